// WakeFd on macOS and the BSDs: a non-blocking pipe (see wake_fd.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/wake_fd.h"

namespace mcpgw::base {
namespace {

bool CloseOnExecNonBlocking(int fd) {
  return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 &&
         fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0;
}

}  // namespace

WakeFd::~WakeFd() {
  if (read_fd_ >= 0) close(read_fd_);
  if (write_fd_ >= 0) close(write_fd_);
}

bool WakeFd::Open() {
  if (read_fd_ >= 0) return true;
  int fds[2];
  if (pipe(fds) != 0) return false;
  if (!CloseOnExecNonBlocking(fds[0]) || !CloseOnExecNonBlocking(fds[1])) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  return true;
}

void WakeFd::Signal() {
  if (write_fd_ < 0) return;
  const char byte = 1;
  while (write(write_fd_, &byte, 1) < 0 && errno == EINTR) {
  }
}

void WakeFd::Drain() {
  char buf[64];
  while (read(read_fd_, buf, sizeof(buf)) > 0) {
  }
}

}  // namespace mcpgw::base
