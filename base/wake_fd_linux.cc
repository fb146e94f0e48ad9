// WakeFd on Linux: an eventfd (see wake_fd.h).
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "base/wake_fd.h"

namespace mcpgw::base {

WakeFd::~WakeFd() {
  if (read_fd_ >= 0) close(read_fd_);
}

bool WakeFd::Open() {
  if (read_fd_ >= 0) return true;
  read_fd_ = write_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  return read_fd_ >= 0;
}

void WakeFd::Signal() {
  if (write_fd_ < 0) return;
  const uint64_t one = 1;
  while (write(write_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
}

void WakeFd::Drain() {
  uint64_t count = 0;
  while (read(read_fd_, &count, sizeof(count)) < 0 && errno == EINTR) {
  }
}

}  // namespace mcpgw::base
