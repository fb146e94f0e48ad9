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

  // Feeds bytes; appends each completed event to `out`. An event whose data
  // is empty (no data field, or only empty ones, like MCP's priming event) is
  // not dispatched, but its id still becomes last_event_id(). Returns false,
  // and stays failed, once an event's data exceeds `max_event_bytes` or a
  // single line (of any field, comments too) exceeds it by more than 64 bytes.
  bool Feed(std::string_view bytes, std::vector<SseEvent>& out);

  // The last `retry` value in milliseconds, if the server sent one.
  std::optional<long> retry_ms() const { return retry_ms_; }
  // The last event id seen (for Last-Event-ID on resumption).
  const std::string& last_event_id() const { return last_event_id_; }
  bool failed() const { return failed_; }

 private:
  // A line may hold a field name, a colon and a space besides the event's
  // data, so the line bound is the event bound plus this much.
  static constexpr size_t kLineOverheadBytes = 64;

  size_t max_line_bytes() const;
  bool Consume(std::string_view bytes, std::vector<SseEvent>& out);
  void ProcessLine(std::string_view line, std::vector<SseEvent>& out);
  void Dispatch(std::vector<SseEvent>& out);
  bool Fail();

  size_t max_event_bytes_;
  std::string line_;      // the current, incomplete line
  bool skip_lf_ = false;  // the previous line ended in CR: a following LF ends nothing
  bool bom_checked_ = false;
  // The event being built (the standard's "event type" and "data" buffers).
  std::string type_;
  std::string data_;
  bool has_data_ = false;      // a data field was seen
  bool event_has_id_ = false;  // an id field was seen
  std::string last_event_id_;
  std::optional<long> retry_ms_;
  bool failed_ = false;
};

}  // namespace mcpgw::mcp
