// Large results (BEHAVIOR.md §11): a call's text longer than the bound its
// client asked for is cut, and the whole text is kept in a private file the
// cut answer names. ResultSpill is that folder: it writes the files, expires
// them after a day, and keeps the folder under its size budget by removing
// the oldest first; it refuses a write that would bring the file system near
// full. It is the one object the workers share (they cut and keep the results
// of their own servers' calls): every member function is safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "daemon/mcp/types.h"

namespace mcpgw {

// The bound a call's result text is held to, as the gateway resolved it:
// 0 means none. The spill may be null (then a cut result says no file was
// kept). A tool's error text is answered scrubbed of secrets, so it is kept
// scrubbed too, with `scrubber` (an immutable snapshot, null: none).
class ResultSpill;
class Scrubber;
struct ResultBound {
  uint64_t max_text_bytes = 0;
  ResultSpill* spill = nullptr;
  std::shared_ptr<const Scrubber> scrubber;
  // The call's request digest (daemon/guard/request_digest.h): a kept
  // file is named after it. When the gateway had no need of it as the call
  // came in (no call log, no cassette), `digest` is empty and `request` holds
  // what it is worked out from, only if a file is kept: most calls never
  // need it, and it costs more than the rest of the gateway's part of a call.
  std::string digest;
  struct Request {
    std::string ns;
    std::string tool;
    std::string arguments_json;
  };
  std::optional<Request> request;
  // `digest`, or the one worked out from `request` ("" when neither says).
  std::string Digest() const;
};

class ResultSpill {
 public:
  struct Options {
    std::string dir;                  // created 0700 (with its parent) at the first write
    uint64_t max_bytes = 256u << 20;  // the folder's budget (results.spill_max_mb)
    std::chrono::seconds max_age = std::chrono::hours(24);
    uint64_t keep_free_bytes = 64u << 20;  // never write past this much free space
  };
  explicit ResultSpill(Options options);
  ResultSpill(const ResultSpill&) = delete;
  ResultSpill& operator=(const ResultSpill&) = delete;

  const std::string& dir() const { return options_.dir; }
  // A reload's new budget; the next Keep or Sweep applies it.
  void SetMaxBytes(uint64_t max_bytes);

  // Writes `text` to a new file named by the time and `digest` (hex), after
  // making room: expired files go, then the oldest until the new one fits.
  // The file appears under its final name only once it is complete. Returns
  // its path, or why it was not kept: a sentence fragment ("no space left on
  // device").
  base::Result<std::string> Keep(std::string_view digest, std::string_view text,
                                 std::chrono::system_clock::time_point now);
  // Removes expired files (and abandoned partial ones) and the oldest past
  // the budget. Returns how many files it removed.
  size_t Sweep(std::chrono::system_clock::time_point now);

 private:
  struct Entry;
  size_t MakeRoom(std::chrono::system_clock::time_point now, uint64_t incoming);
  base::Status EnsureDir();

  std::mutex mu_;
  Options options_;
};

// The length of the part of `text` a cut answer keeps so that the part, a
// blank line and `notice` fit in `max_text_bytes` (0 when they cannot), never
// ending inside a UTF-8 sequence.
size_t CutLength(std::string_view text, uint64_t max_text_bytes, std::string_view notice);

// The last line of a cut answer: `[result truncated: N bytes in total; the
// full text is in PATH]`, or `...; the full text could not be kept: WHY]`.
std::string TruncationNotice(size_t total_bytes, const base::Result<std::string>& kept);

// Holds `outcome`'s text (a result or a tool's own error) to `bound`: below or
// at the bound nothing changes; past it the whole text goes to the spill and
// the text becomes the cut answer. Records the whole size and the file in the
// outcome for the call log. Transport errors (the gateway's own words) are left alone.
void FitResult(mcp::CallOutcome& outcome, const ResultBound& bound,
               std::chrono::system_clock::time_point now);

}  // namespace mcpgw
