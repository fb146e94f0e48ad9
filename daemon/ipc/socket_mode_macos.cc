// A socket's file mode on macOS (see socket_mode.h): bind() creates the file
// 0777 less the umask whatever the socket's mode, and fchmod() on a socket
// fails, so there is nothing to set before bind(); Listen makes the file 0600
// before the socket listens.
#include "daemon/ipc/socket_mode.h"

namespace mcpgw {

int SetModeBeforeBind(int fd, mode_t mode) {
  (void)fd;
  (void)mode;
  return 0;
}

}  // namespace mcpgw
