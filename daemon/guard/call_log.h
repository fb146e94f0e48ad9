// CallLog: the optional JSON-lines audit log of calls (BEHAVIOR.md §8). The daemon
// opens it once from the settings and appends one line per call_dynamic_tool
// request from the main thread, refusals included. A line records who called what, when, how it
// ended and how many bytes moved, and the request digest (request_digest.h), never the arguments or
// the result. The file is private (0600) and rotated by size: path → path.1 → path.2 … path.<keep>.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <sys/types.h>

#include "base/status.h"

namespace mcpgw {

struct CallRecord {
  std::chrono::system_clock::time_point time;  // when the call was received
  pid_t pid = 0;                               // the client process
  uid_t uid = 0;
  std::string ns;  // namespace, as requested
  std::string tool;
  // The request digest (daemon/guard/request_digest.h): 64 hex digits, or
  // empty when the request named no namespace, tool or object of arguments
  // to digest (the line then records "request_digest":null).
  std::string request_digest;
  // How the call ended: "ok", "backend", "transport", "denied", "not_ready",
  // "invalid_request" or "cancelled" (proto::ErrorKindName gives the error ones).
  std::string outcome = "ok";
  uint64_t duration_ms = 0;
  uint64_t bytes_in = 0;   // response bytes received from the server
  uint64_t bytes_out = 0;  // request bytes sent to the server
  // The size of the result's whole text (a tool's error text included), even
  // when its client got it cut (BEHAVIOR.md §11); absent when there was none.
  std::optional<uint64_t> result_bytes;
  std::string result_file;  // where the whole text was kept; empty when it was not cut
};

// "2025-03-04T05:06:07.089Z": UTC to the millisecond, as the call log and
// cassettes write times.
std::string Iso8601Utc(std::chrono::system_clock::time_point t);

// The line Append writes for `record`, without its newline.
std::string FormatCallRecord(const CallRecord& record);

class CallLog {
 public:
  CallLog() = default;
  ~CallLog();
  CallLog(const CallLog&) = delete;
  CallLog& operator=(const CallLog&) = delete;

  // Opens (creating with mode 0600) `path` for appending. Refuses a path that
  // is a symbolic link or not a regular file; an existing file readable by
  // group or others is made 0600. An error names the path. `max_bytes`
  // bounds one file; `keep` rotated files are kept.
  base::Status Open(const std::string& path, uint64_t max_bytes, int keep);
  void Close();
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }  // as given to Open

  // Writes one line, rotating first if the file would pass max_bytes. Never
  // throws or aborts: a failure is returned the first time it happens (and
  // again only after a write has succeeded in between); otherwise ok.
  base::Status Append(const CallRecord& record);

 private:
  base::Status OpenFile();
  base::Status Rotate();
  // `error` if it is the first since the last success, else ok.
  base::Status Report(base::Status error);

  std::string path_;
  uint64_t max_bytes_ = 0;
  int keep_ = 0;
  int fd_ = -1;
  uint64_t size_ = 0;
  bool failing_ = false;  // the last failure was reported; stay quiet until a success
};

}  // namespace mcpgw
