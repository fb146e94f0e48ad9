#include "daemon/mcp/sse_decoder.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "base/bounded_json.h"
#include "base/utf8.h"

namespace mcpgw::mcp {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// "retry" takes a value made only of ASCII digits; anything else is ignored.
std::optional<long> ParseRetry(std::string_view value) {
  if (value.empty()) return std::nullopt;
  long n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    const int d = c - '0';
    n = n > (LONG_MAX - d) / 10 ? LONG_MAX : n * 10 + d;  // saturate
  }
  return n;
}

bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace

SseDecoder::SseDecoder(size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

size_t SseDecoder::max_line_bytes() const {
  return max_event_bytes_ > SIZE_MAX - kLineOverheadBytes ? SIZE_MAX
                                                          : max_event_bytes_ + kLineOverheadBytes;
}

bool SseDecoder::Feed(std::string_view bytes, std::vector<SseEvent>& out) {
  if (failed_) return false;
  if (!bom_checked_) {
    // One U+FEFF at the very start of the stream is dropped; it may arrive
    // split over several chunks, so hold bytes until it is decided.
    const size_t take = std::min(bytes.size(), kBom.size() - line_.size());
    line_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    if (line_.size() < kBom.size() && kBom.starts_with(line_)) return true;
    bom_checked_ = true;
    std::string head;
    head.swap(line_);
    if (head != kBom && !Consume(head, out)) return false;
  }
  return Consume(bytes, out);
}

bool SseDecoder::Consume(std::string_view bytes, std::vector<SseEvent>& out) {
  const size_t max_line = max_line_bytes();
  while (!bytes.empty() && !failed_) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
        continue;
      }
    }
    const size_t end = bytes.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      if (line_.size() + bytes.size() > max_line) return Fail();
      line_.append(bytes);
      break;
    }
    if (line_.size() + end > max_line) return Fail();
    if (line_.empty()) {
      ProcessLine(bytes.substr(0, end), out);  // the whole line is in this chunk
    } else {
      line_.append(bytes.substr(0, end));
      ProcessLine(line_, out);
      line_.clear();
    }
    skip_lf_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
  }
  return !failed_;
}

bool SseDecoder::Fail() {
  failed_ = true;
  line_.clear();
  line_.shrink_to_fit();
  type_.clear();
  data_.clear();
  data_.shrink_to_fit();
  return false;
}

void SseDecoder::ProcessLine(std::string_view raw, std::vector<SseEvent>& out) {
  if (raw.empty()) {
    Dispatch(out);
    return;
  }
  if (raw.front() == ':') return;  // comment

  // The stream is UTF-8 text: ill-formed bytes read as U+FFFD. Line ends
  // are ASCII, so a complete line never ends inside a sequence.
  std::string_view line = raw;
  std::string repaired;
  if (!IsAscii(raw)) {
    base::AppendUtf8Replacing(raw, &repaired);
    line = repaired;
  }

  std::string_view field = line, value;
  if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }

  if (field == "data") {
    // Bound the event as it grows: data lines join with "\n".
    const size_t joined = data_.size() + value.size() + (has_data_ ? 1 : 0);
    if (joined > max_event_bytes_) {
      Fail();
      return;
    }
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) {
      last_event_id_.assign(value);
      event_has_id_ = true;
    }
  } else if (field == "retry") {
    if (auto ms = ParseRetry(value)) retry_ms_ = ms;
  }
  // Any other field is ignored.
}

void SseDecoder::Dispatch(std::vector<SseEvent>& out) {
  // The id field updates the last event id even when the event carries no
  // data: MCP's priming event is an id with an empty data field.
  if (!data_.empty()) {
    SseEvent& e = out.emplace_back();
    if (!type_.empty()) e.type = std::move(type_);
    e.data = std::move(data_);
    e.id = last_event_id_;
    e.has_id = event_has_id_ || !last_event_id_.empty();
  }
  type_.clear();
  data_.clear();
  has_data_ = false;
  event_has_id_ = false;
}

}  // namespace mcpgw::mcp
