#include "daemon/net/quiet_sockets.h"

#include <poll.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#endif

namespace mcpgw::http {
namespace {

// Plain values only: poll() may run while a thread's C++ objects are being
// torn down, and these must still be readable then.
thread_local QuietSockets* t_sets = nullptr;
thread_local uint64_t t_answered = 0;
thread_local uint64_t t_passed = 0;

}  // namespace

QuietSockets::QuietSockets() : next_(t_sets) { t_sets = this; }

QuietSockets::~QuietSockets() {
  for (QuietSockets** link = &t_sets; *link != nullptr; link = &(*link)->next_) {
    if (*link == this) {
      *link = next_;
      return;
    }
  }
}

void QuietSockets::Set(int fd, bool quiet) {
  if (quiet) {
    fds_.insert(fd);
  } else {
    fds_.erase(fd);
  }
}

uint64_t QuietSockets::ThreadAnswered() { return t_answered; }

uint64_t QuietSockets::ThreadPassed() { return t_passed; }

bool QuietSockets::ThreadHolds(int fd) {
  for (const QuietSockets* set = t_sets; set != nullptr; set = set->next_) {
    if (set->fds_.count(fd) != 0) return true;
  }
  return false;
}

}  // namespace mcpgw::http

#if defined(__linux__) && defined(__GLIBC__)

// glibc declares poll()'s array write-only (it is read and written): GCC
// would take reading it here for reading uninitialized memory.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// Takes the place of the C library's poll() for the whole process (libcurl
// calls it through the dynamic linker); see quiet_sockets.h.
extern "C" int poll(struct pollfd* fds, nfds_t nfds, int timeout) {
  using mcpgw::http::QuietSockets;
  using mcpgw::http::t_answered;
  using mcpgw::http::t_passed;
  constexpr short kReadEvents = POLLIN | POLLPRI | POLLRDNORM | POLLRDBAND;
  if (nfds == 1 && timeout == 0) {
    if (fds[0].fd >= 0 && (fds[0].events & ~kReadEvents) == 0 &&
        QuietSockets::ThreadHolds(fds[0].fd)) {
      fds[0].revents = 0;
      t_answered++;
      return 0;
    }
    t_passed++;
  }
  using PollFunction = int (*)(struct pollfd*, nfds_t, int);
  static const auto next = reinterpret_cast<PollFunction>(dlsym(RTLD_NEXT, "poll"));
  return next(fds, nfds, timeout);
}

#endif
