// SseDecoder: an incremental text/event-stream parser (WHATWG "server-sent
// events" rules: LF, CR or CRLF line ends, `data`/`event`/`id`/`retry`
// fields, comments, a leading BOM) with a bound on one event's size. Bytes go
// in in any split; complete events come out. Passive: the session drives it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::mcp {

struct SseEvent {
  std::string type = "message";  // the `event` field, "message" when absent
  std::string data;              // `data` lines joined with "\n"
  std::string id;                // the last event id in force (may be empty)
  bool has_id = false;           // this event set or carried an id
};

class SseDecoder {
 public:
  explicit SseDecoder(size_t max_event_bytes);

  // Feeds bytes; appends each completed event (empty-data events are not
  // dispatched, per the standard) to `out`. Returns false, and stays failed,
  // once an event or a single line exceeds the bound.
  bool Feed(std::string_view bytes, std::vector<SseEvent>& out);

  // The last `retry` value in milliseconds, if the server sent one.
  std::optional<long> retry_ms() const { return retry_ms_; }
  // The last event id seen (for Last-Event-ID on resumption).
  const std::string& last_event_id() const { return last_event_id_; }
  bool failed() const { return failed_; }

 private:
  void ProcessLine(std::string_view line, std::vector<SseEvent>& out);

  size_t max_event_bytes_;
  std::string line_;      // the current, incomplete line
  bool skip_lf_ = false;  // previous chunk ended in CR
  bool bom_checked_ = false;
  SseEvent pending_;
  bool has_data_ = false;
  size_t pending_bytes_ = 0;
  std::string last_event_id_;
  std::optional<long> retry_ms_;
  bool failed_ = false;
};

}  // namespace mcpgw::mcp
