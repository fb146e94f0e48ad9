// libFuzzer target for SseDecoder: the input is a byte stream, decoded once in
// one chunk and once in chunks whose sizes come from the stream's own bytes.
// Both must agree, and every event must respect the decoder's bound.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/bounded_json.h"
#include "base/utf8.h"
#include "daemon/mcp/sse_decoder.h"

namespace {

constexpr size_t kMaxEventBytes = 64;

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

struct Decoded {
  std::vector<mcpgw::mcp::SseEvent> events;
  bool ok = true;
  std::string last_event_id;
  std::optional<long> retry_ms;
};

Decoded Decode(std::string_view stream, const std::vector<size_t>& cuts) {
  mcpgw::mcp::SseDecoder decoder(kMaxEventBytes);
  Decoded d;
  size_t at = 0;
  for (size_t cut : cuts) {
    d.ok = decoder.Feed(stream.substr(at, cut - at), d.events) && d.ok;
    at = cut;
  }
  d.ok = decoder.Feed(stream.substr(at), d.events) && d.ok;
  FUZZ_CHECK(d.ok == !decoder.failed());
  d.last_event_id = decoder.last_event_id();
  d.retry_ms = decoder.retry_ms();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view stream(reinterpret_cast<const char*>(data), size);

  // Cut points derived from the bytes themselves: deterministic per input,
  // varied across inputs, including empty chunks and cuts inside CRLF.
  std::vector<size_t> cuts;
  uint32_t state = 2166136261u;
  for (size_t i = 0; i < size; ++i) {
    state = (state ^ data[i]) * 16777619u;
    if ((state >> 29) == 0 || (state & 3) == 0) cuts.push_back(i);
  }
  std::vector<size_t> every_byte;
  for (size_t i = 1; i < size && size < 512; ++i) every_byte.push_back(i);

  const Decoded whole = Decode(stream, {});
  for (const auto* split : {&cuts, &every_byte}) {
    const Decoded parts = Decode(stream, *split);
    FUZZ_CHECK(parts.ok == whole.ok);
    FUZZ_CHECK(parts.last_event_id == whole.last_event_id);
    FUZZ_CHECK(parts.retry_ms == whole.retry_ms);
    FUZZ_CHECK(parts.events.size() == whole.events.size());
    for (size_t i = 0; i < whole.events.size(); ++i) {
      FUZZ_CHECK(parts.events[i].type == whole.events[i].type);
      FUZZ_CHECK(parts.events[i].data == whole.events[i].data);
      FUZZ_CHECK(parts.events[i].id == whole.events[i].id);
      FUZZ_CHECK(parts.events[i].has_id == whole.events[i].has_id);
    }
  }
  for (const auto& e : whole.events) {
    FUZZ_CHECK(!e.data.empty() && e.data.size() <= kMaxEventBytes);
    FUZZ_CHECK(!e.type.empty());
    FUZZ_CHECK(e.data.find('\r') == std::string::npos);
    FUZZ_CHECK(e.type.find_first_of("\r\n") == std::string::npos);
    FUZZ_CHECK(e.id.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
    FUZZ_CHECK(mcpgw::base::IsValidUtf8(e.data) && mcpgw::base::IsValidUtf8(e.type) &&
               mcpgw::base::IsValidUtf8(e.id));
  }
  FUZZ_CHECK(whole.retry_ms.value_or(0) >= 0);
  return 0;
}
