// The mode the daemon's Unix socket file is born with. The process's umask is
// shared by every thread, so IpcServer::Listen never changes it to make the
// file private; where the system lets a socket decide its file's mode, the
// socket is given that mode before bind(). One implementation per platform:
// socket_mode_linux.cc (the kernel gives the file the socket's own mode, less
// the umask), socket_mode_macos.cc (it does not: the file is born 0777 less
// the umask, and Listen's chmod before listen() closes it to others).
#pragma once

#include <sys/types.h>

namespace mcpgw {

// Gives `fd`, an AF_UNIX socket not yet bound, the file mode `mode` where the
// platform honours it at bind(). 0, or the errno of the failure.
int SetModeBeforeBind(int fd, mode_t mode);

}  // namespace mcpgw
