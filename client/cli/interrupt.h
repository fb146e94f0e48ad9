// Turns SIGINT into a CancelToken trigger for the duration of one `mcpgw call`. The signal
// handler only writes a byte to a self-pipe; a watcher thread reads it and triggers the token,
// so nothing that is not async-signal-safe runs in the handler. Owned by the command's scope.
#pragma once

#include <atomic>
#include <thread>

#include "client/api/daemon_api.h"

namespace mcpgw::cli {

class InterruptWatcher {
 public:
  // Installs the SIGINT handler; a second SIGINT after the first kills the process as usual.
  explicit InterruptWatcher(CancelToken* token);
  // Restores the previous SIGINT disposition and stops the watcher thread.
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  bool interrupted() const { return interrupted_.load(); }

 private:
  void Watch();

  CancelToken* token_;
  int pipe_[2] = {-1, -1};
  std::atomic<bool> interrupted_{false};
  bool installed_ = false;
  std::thread thread_;
};

}  // namespace mcpgw::cli
