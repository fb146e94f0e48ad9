// mcpgwd: the gateway daemon's command line. Everything else lives in the
// mcpgw_daemon library: the command line (command_line.h), the modes
// (daemon.h), the options (options.h) and the supervisor (supervisor.h).
#include <cstdio>
#include <string>
#include <vector>

#include "daemon/command_line.h"
#include "daemon/daemon.h"
#include "daemon/runtime/service_manager.h"
#ifdef __APPLE__
#include "daemon/ipc/launchd.h"
#endif

namespace {

// The listening socket a service manager passed (socket activation), or -1.
// Asked once: the variables that pass it are consumed by the asking.
mcpgw::base::Result<int> InheritedListenFd() {
  const mcpgw::base::Result<int> passed = mcpgw::TakePassedFds();
  if (!passed.ok()) return passed.status();
  if (*passed > 1) {
    return mcpgw::base::InvalidInput("expected one socket from the service manager, got " +
                                     std::to_string(*passed));
  }
  int fd = *passed == 1 ? mcpgw::kFirstPassedFd : -1;
#ifdef __APPLE__
  // launchd: the agent's "Listeners" socket (packaging/launchd/).
  if (fd < 0) fd = mcpgw::LaunchdListenFd();
#endif
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  const mcpgw::GetEnv env = mcpgw::ProcessEnv();
  const mcpgw::base::Result<mcpgw::CommandLineResult> parsed =
      mcpgw::ParseCommandLine(std::vector<std::string>(argv + 1, argv + argc), env);
  if (!parsed.ok()) {
    std::fputs(parsed.message().c_str(), stderr);
    return mcpgw::kExitMisuse;
  }
  if (!parsed->command_line) {
    std::fputs(parsed->out.c_str(), stdout);
    return 0;
  }
  const mcpgw::CommandLine& command_line = *parsed->command_line;
  if (command_line.check) return mcpgw::Check(command_line, env);
  const mcpgw::base::Result<int> listen_fd = InheritedListenFd();
  if (!listen_fd.ok()) {
    std::fputs(mcpgw::FatalLine(listen_fd.message(), env).c_str(), stderr);
    return mcpgw::kExitUnusable;
  }
  return mcpgw::Serve(command_line, env, *listen_fd);
}
