// QuietSockets: the sockets of one HttpClient that its loop watches for
// reading and has not reported readable since, so that curl's checks of them
// need no system call. Owned by the HttpClient, used on its loop's thread.
//
// curl 7.88 polls a kept connection before each reuse, to learn whether the
// server closed it, and polls it again right after sending a request, to
// learn whether the answer is already there: two poll() calls per request
// whose answers the event loop already has. On Linux the daemon defines
// poll() (quiet_sockets.cc): a poll of one socket, for reading only, without
// waiting, on a socket one of this thread's QuietSockets holds, is answered
// "nothing yet" without the system call; every other poll goes to the C
// library. What arrives meanwhile, the loop's next turn reports (the watch is
// level-triggered), and curl, told nothing yet, waits for that report, as it
// does when a real poll finds nothing. A server that closed a kept connection
// since the loop last looked is found by curl's send or read, and curl then
// retries the request on a new connection, as it does when the close comes
// just after its own check.
#pragma once

#include <cstdint>
#include <unordered_set>

namespace mcpgw::http {

class QuietSockets {
 public:
  QuietSockets();  // joins this thread's sets; destroy it on the same thread
  ~QuietSockets();
  QuietSockets(const QuietSockets&) = delete;
  QuietSockets& operator=(const QuietSockets&) = delete;

  void Set(int fd, bool quiet);

  // Polls of one socket this thread answered without a system call, and the
  // ones of that shape (one socket, no wait) it passed to the C library.
  static uint64_t ThreadAnswered();
  static uint64_t ThreadPassed();

  // For poll(): whether any of this thread's sets holds `fd`.
  static bool ThreadHolds(int fd);

 private:
  std::unordered_set<int> fds_;
  QuietSockets* next_ = nullptr;
};

}  // namespace mcpgw::http
