// HostPoller on macOS and the BSDs: a kqueue holding the daemon socket's
// read/write filters and a user event (see wake.h). A kqueue descriptor polls readable while events
// are queued, so Clear() harvests them.
#include <fcntl.h>
#include <sys/event.h>
#include <unistd.h>

#include <cerrno>

#include "client/lib/wake.h"

namespace mcpgw::client {
namespace {

constexpr uintptr_t kUserIdent = 1;

}  // namespace

HostPoller::~HostPoller() {
  if (fd_ >= 0) close(fd_);
}

bool HostPoller::Open() {
  if (fd_ >= 0) return true;
  fd_ = kqueue();
  if (fd_ < 0) return false;
  fcntl(fd_, F_SETFD, FD_CLOEXEC);
  struct kevent ev;
  EV_SET(&ev, kUserIdent, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, nullptr);
  if (kevent(fd_, &ev, 1, nullptr, 0, nullptr) != 0) {
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
  struct kevent ev[2];
  EV_SET(&ev[0], socket_fd, EVFILT_READ, EV_ADD, 0, 0, nullptr);
  EV_SET(&ev[1], socket_fd, EVFILT_WRITE, want_write ? EV_ADD : EV_DELETE, 0, 0, nullptr);
  // Deleting a write filter that was never added fails harmlessly.
  kevent(fd_, ev, watched_ == socket_fd || want_write ? 2 : 1, nullptr, 0, nullptr);
  watched_ = socket_fd;
  watched_write_ = want_write;
}

void HostPoller::Forget(int socket_fd) {
  if (fd_ < 0 || watched_ != socket_fd) return;
  struct kevent ev[2];
  EV_SET(&ev[0], socket_fd, EVFILT_READ, EV_DELETE, 0, 0, nullptr);
  EV_SET(&ev[1], socket_fd, EVFILT_WRITE, EV_DELETE, 0, 0, nullptr);
  kevent(fd_, ev, watched_write_ ? 2 : 1, nullptr, 0, nullptr);
  watched_ = -1;
  watched_write_ = false;
}

void HostPoller::Signal() {
  struct kevent ev;
  EV_SET(&ev, kUserIdent, EVFILT_USER, 0, NOTE_TRIGGER, 0, nullptr);
  kevent(fd_, &ev, 1, nullptr, 0, nullptr);
}

void HostPoller::Clear(bool /*signaled*/) {
  if (fd_ < 0) return;
  struct kevent events[16];
  const struct timespec zero = {0, 0};
  while (kevent(fd_, nullptr, 0, events, 16, &zero) == 16) {
  }
}

}  // namespace mcpgw::client
