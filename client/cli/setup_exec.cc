#include "client/cli/setup_exec.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/platform.h"

#ifndef MCPGW_SETUP_FROM_BINDIR
#define MCPGW_SETUP_FROM_BINDIR "../libexec/mcpgw"
#endif

namespace mcpgw::cli {

std::vector<std::string> SetupHelperPaths(const std::string& self) {
  const size_t slash = self.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : self.substr(0, slash);
  const std::string libexec = MCPGW_SETUP_FROM_BINDIR;
  std::vector<std::string> paths = {dir + "/mcpgw-setup"};
  paths.push_back((libexec.starts_with('/') ? libexec : dir + "/" + libexec) + "/mcpgw-setup");
  return paths;
}

int ExecSetupHelper(int argc, char** argv, std::ostream& err) {
  std::string self = base::ExecutablePath();
  if (self.empty()) {
    err << "mcpgw: cannot tell where this mcpgw program is, so cannot find mcpgw-setup\n";
    return 1;
  }
  std::vector<char*> args(argv, argv + argc);
  args[0] = self.data();
  args.push_back(nullptr);
  std::string tried;
  for (const std::string& path : SetupHelperPaths(self)) {
    execv(path.c_str(), args.data());  // returns only when it failed
    tried += "\n  " + path + ": " + std::strerror(errno);
  }
  err << "mcpgw: import, hosts, doctor and top run in mcpgw-setup, installed with mcpgw; it could "
         "not "
         "be started:"
      << tried << "\n";
  return 1;
}

}  // namespace mcpgw::cli
