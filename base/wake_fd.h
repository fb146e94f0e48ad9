// A descriptor that other threads make readable to wake a thread that polls
// it: an eventfd on Linux, a non-blocking pipe on macOS and the BSDs
// (wake_fd_linux.cc, wake_fd_macos.cc). Used by libmcpgw to interrupt the
// caller blocked on the daemon socket, and by the daemon's workers to take
// tasks posted from other threads.
#pragma once

namespace mcpgw::base {

class WakeFd {
 public:
  WakeFd() = default;
  ~WakeFd();
  WakeFd(const WakeFd&) = delete;
  WakeFd& operator=(const WakeFd&) = delete;

  // Creates the descriptor(s), close-on-exec and non-blocking; false on
  // failure (errno set).
  bool Open();
  bool is_open() const { return read_fd_ >= 0; }
  int fd() const { return read_fd_; }
  // Makes fd() readable. Safe from any thread.
  void Signal();
  // Makes fd() unreadable again.
  void Drain();

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;  // == read_fd_ for an eventfd
};

}  // namespace mcpgw::base
