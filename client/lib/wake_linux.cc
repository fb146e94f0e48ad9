// HostPoller on Linux: an epoll instance holding the daemon socket and an
// eventfd of its own (see wake.h). An epoll descriptor is
// itself pollable, which is what lets a host watch one stable descriptor.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "client/lib/wake.h"

namespace mcpgw::client {

HostPoller::~HostPoller() {
  if (fd_ >= 0) close(fd_);
}

bool HostPoller::Open() {
  if (fd_ >= 0) return true;
  if (!wake_.Open()) return false;
  fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (fd_ < 0) return false;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_.fd();
  if (epoll_ctl(fd_, EPOLL_CTL_ADD, wake_.fd(), &ev) != 0) {
    const int saved = errno;
    close(fd_);
    fd_ = -1;
    errno = saved;
    return false;
  }
  return true;
}

void HostPoller::Watch(int socket_fd, bool want_write) {
  if (fd_ < 0) return;
  if (watched_ == socket_fd && watched_write_ == want_write) return;
  if (watched_ >= 0 && watched_ != socket_fd) Forget(watched_);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (want_write ? EPOLLOUT : 0u);
  ev.data.fd = socket_fd;
  epoll_ctl(fd_, watched_ == socket_fd ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, socket_fd, &ev);
  watched_ = socket_fd;
  watched_write_ = want_write;
}

void HostPoller::Forget(int socket_fd) {
  if (fd_ < 0 || watched_ != socket_fd) return;
  epoll_ctl(fd_, EPOLL_CTL_DEL, socket_fd, nullptr);
  watched_ = -1;
  watched_write_ = false;
}

void HostPoller::Signal() { wake_.Signal(); }

// Level-triggered epoll needs no harvesting: once the socket and the eventfd
// are drained, the descriptor stops polling readable.
void HostPoller::Clear(bool signaled) {
  if (signaled) wake_.Drain();
}

}  // namespace mcpgw::client
