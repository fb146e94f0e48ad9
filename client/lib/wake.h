// The two descriptors libmcpgw polls with, each owned by one handle.
// base::WakeFd (base/wake_fd.h) is a descriptor other threads make readable to
// interrupt a poll(): it wakes the blocked caller that is driving the socket
// (blocking interface).
// HostPoller is the one descriptor a host's event loop watches (pollable
// interface): an epoll instance on Linux, a kqueue elsewhere, readable while
// the daemon socket inside it is ready (for writing too when output waits) or
// while finished requests wait to be delivered. It stays the same descriptor
// for the handle's life, while connections to the daemon come and go.
// Platform code: wake_linux.cc, wake_macos.cc.
#pragma once

#include "base/wake_fd.h"

namespace mcpgw::client {

class HostPoller {
 public:
  HostPoller() = default;
  ~HostPoller();
  HostPoller(const HostPoller&) = delete;
  HostPoller& operator=(const HostPoller&) = delete;

  // Creates the instance; false on failure (errno set).
  bool Open();
  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  // Watches `socket_fd` for reading, and for writing when `want_write`.
  // Adds it the first time, changes it afterwards.
  void Watch(int socket_fd, bool want_write);
  // Stops watching `socket_fd` (before it is closed).
  void Forget(int socket_fd);
  // Makes fd() readable until Clear(): finished requests wait.
  void Signal();
  // Clears Signal() (when `signaled`) and whatever readiness the platform
  // keeps queued, so fd() polls readable again only for new work.
  void Clear(bool signaled);

 private:
  int fd_ = -1;
  base::WakeFd wake_;  // Linux: the eventfd behind Signal()
  int watched_ = -1;   // the socket inside, -1 when none
  bool watched_write_ = false;
};

}  // namespace mcpgw::client
