// Socket path resolution shared by mcpgwd and its clients (see socket_path.h);
// the default folder is the system's: socket_path_linux.cc, socket_path_macos.cc.
#include "proto/socket_path.h"

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>

namespace mcpgw::proto {

std::string DefaultSocketPath() {
  return DefaultSocketPath([](const char* name) { return std::getenv(name); }, geteuid(),
                           IsUserRuntimeDir);
}

bool IsUserRuntimeDir(const std::string& dir, uid_t uid) {
  struct stat st;
  return lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid &&
         (st.st_mode & 07777) == 0700;
}

std::string ResolveSocketPath(std::string_view flag) {
  return flag.empty() ? DefaultSocketPath() : std::string(flag);
}

size_t MaxSocketPathLength() { return sizeof(sockaddr_un::sun_path) - 1; }

base::Status CheckSocketPath(std::string_view path) {
  if (path.empty()) return base::InvalidInput("the socket path is empty");
  if (path.find('\0') != std::string_view::npos) {
    return base::InvalidInput("the socket path contains a NUL byte");
  }
  if (path.size() > MaxSocketPathLength()) {
    return base::InvalidInput(
        "the socket path is " + std::to_string(path.size()) + " bytes long, more than the " +
        std::to_string(MaxSocketPathLength()) +
        " a Unix socket address can hold; choose a shorter --socket or MCPGW_SOCKET: " +
        std::string(path));
  }
  return base::Status();
}

}  // namespace mcpgw::proto
