// A socket's file mode on Linux (see socket_mode.h): bind() creates the file
// with the mode of the socket's own inode less the umask, and fchmod() on the
// unbound socket sets that mode.
#include <sys/stat.h>

#include <cerrno>

#include "daemon/ipc/socket_mode.h"

namespace mcpgw {

int SetModeBeforeBind(int fd, mode_t mode) { return fchmod(fd, mode) == 0 ? 0 : errno; }

}  // namespace mcpgw
