#include "daemon/ipc/launchd.h"

#include <launch.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <spdlog/spdlog.h>

namespace mcpgw {

int LaunchdListenFd() {
  int* fds = nullptr;
  size_t count = 0;
  int rc = launch_activate_socket("Listeners", &fds, &count);
  if (rc != 0) {
    // ESRCH: not started by launchd; ENOENT: no socket of that name.
    if (rc != ESRCH && rc != ENOENT) {
      spdlog::warn("launchd: cannot take the Listeners socket: {}", std::strerror(rc));
    }
    return -1;
  }
  int fd = count > 0 ? fds[0] : -1;
  for (size_t i = 1; i < count; i++) close(fds[i]);
  if (count > 1) spdlog::warn("launchd passed {} Listeners sockets; serving the first", count);
  std::free(fds);
  return fd;
}

}  // namespace mcpgw
