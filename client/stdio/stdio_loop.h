// `mcpgw stdio`'s I/O: one thread, one poll() over stdin, stdout and the daemon's descriptor
// (AsyncDaemonApi::fd). Lines read from stdin go to a StdioBridge; its answers are written to
// stdout as they come, buffered while the host is slow to read, and past kMaxPendingOutput
// stdin is left unread until the host catches up, so memory stays bounded. At the end of
// stdin the calls already read are still answered (each when the daemon answers it, by its
// own deadline), then Run() returns. Owns the bridge; the caller owns the api and the
// descriptors.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "client/api/async_api.h"
#include "client/stdio/stdio_bridge.h"

namespace mcpgw::cli {

// Answers waiting for the host past this many bytes stop the reading of stdin.
inline constexpr size_t kMaxPendingOutput = 1u << 20;

class StdioLoop {
 public:
  // `notice` receives lines meant for stderr (the host's log).
  // `max_text_bytes` as StdioBridge takes it.
  StdioLoop(AsyncDaemonApi& api, int in_fd, int out_fd, StdioBridge::Notice notice,
            long long max_text_bytes = MCPGW_MAX_TEXT_STDIO);
  ~StdioLoop();
  StdioLoop(const StdioLoop&) = delete;
  StdioLoop& operator=(const StdioLoop&) = delete;

  // Runs until stdin has ended and every call read from it was answered and written, or
  // until stdout fails (the host is gone). Returns the process exit code: 0.
  int Run();

 private:
  void ReadInput();
  void Line(std::string_view line);
  void Queue(std::string message);
  void Flush();
  size_t pending_output() const { return out_.size() - out_sent_; }

  AsyncDaemonApi& api_;
  const int in_fd_;
  const int out_fd_;
  StdioBridge::Notice notice_;
  StdioBridge bridge_;
  std::vector<char> in_chunk_;
  std::string line_;        // a line begun in an earlier read
  bool oversized_ = false;  // the current line passed kMaxStdioLineBytes: dropped
  bool in_eof_ = false;
  std::string out_;  // answers not written yet, from out_sent_ on
  size_t out_sent_ = 0;
  bool out_broken_ = false;
  int out_flags_ = -1;  // stdout's flags before Run() made it non-blocking
};

}  // namespace mcpgw::cli
