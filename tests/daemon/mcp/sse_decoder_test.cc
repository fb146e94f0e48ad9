#include "daemon/mcp/sse_decoder.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace mcpgw::mcp {
namespace {

constexpr size_t kBig = 1u << 20;

std::vector<SseEvent> DecodeWhole(std::string_view stream, size_t max = kBig) {
  SseDecoder d(max);
  std::vector<SseEvent> out;
  REQUIRE(d.Feed(stream, out));
  return out;
}

// Feeds `stream` in chunks of `chunk` bytes.
std::vector<SseEvent> DecodeChunked(std::string_view stream, size_t chunk, size_t max = kBig) {
  SseDecoder d(max);
  std::vector<SseEvent> out;
  for (size_t i = 0; i < stream.size(); i += chunk) {
    REQUIRE(d.Feed(stream.substr(i, chunk), out));
  }
  return out;
}

std::vector<std::string> Data(const std::vector<SseEvent>& events) {
  std::vector<std::string> data;
  for (const auto& e : events) data.push_back(e.data);
  return data;
}

bool SameEvents(const std::vector<SseEvent>& a, const std::vector<SseEvent>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].type != b[i].type || a[i].data != b[i].data || a[i].id != b[i].id ||
        a[i].has_id != b[i].has_id) {
      return false;
    }
  }
  return true;
}

TEST_CASE("sse: one event with type, id and data", "[sse]") {
  auto events = DecodeWhole("event: notice\nid: 7\ndata: {\"a\":1}\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == "notice");
  CHECK(events[0].id == "7");
  CHECK(events[0].has_id);
  CHECK(events[0].data == "{\"a\":1}");
}

TEST_CASE("sse: defaults to type message and no id", "[sse]") {
  auto events = DecodeWhole("data: x\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == "message");
  CHECK(events[0].id.empty());
  CHECK_FALSE(events[0].has_id);
}

TEST_CASE("sse: an event is dispatched only at its blank line", "[sse]") {
  SseDecoder d(kBig);
  std::vector<SseEvent> out;
  REQUIRE(d.Feed("data: x\n", out));
  CHECK(out.empty());
  REQUIRE(d.Feed("\n", out));
  CHECK(Data(out) == std::vector<std::string>{"x"});
}

TEST_CASE("sse: an unfinished event at end of input is not dispatched", "[sse]") {
  CHECK(DecodeWhole("data: a\n\ndata: b\n").size() == 1);
}

TEST_CASE("sse: multiple data lines join with LF", "[sse]") {
  CHECK(Data(DecodeWhole("data: a\ndata: b\ndata\ndata:c\n\n")) ==
        std::vector<std::string>{"a\nb\n\nc"});
}

TEST_CASE("sse: LF, CR and CRLF all end lines, mixed in one stream", "[sse]") {
  const std::string stream = "data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\ndata: e\n\r";
  auto events = DecodeWhole(stream);
  CHECK(Data(events) == std::vector<std::string>{"a", "b", "c", "d\ne"});
}

TEST_CASE("sse: CRLF split between chunks is one line end, not two", "[sse]") {
  SseDecoder d(kBig);
  std::vector<SseEvent> out;
  REQUIRE(d.Feed("data: a\r", out));
  REQUIRE(d.Feed("\ndata: b\r", out));
  REQUIRE(d.Feed("\n\r", out));
  REQUIRE(d.Feed("\n", out));
  // Had the LF after a CR counted as an empty line, "a" would have been
  // dispatched on its own.
  CHECK(Data(out) == std::vector<std::string>{"a\nb"});
}

TEST_CASE("sse: every chunk size gives the same events", "[sse]") {
  const std::string stream =
      "\xEF\xBB\xBF: comment\r\nretry: 1500\nevent: e1\rid: 42\r\ndata:  two spaces\r\n"
      "data: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n\nid\ndata: after\r\r"
      "data: last\r\n\r\n";
  const auto whole = DecodeWhole(stream);
  REQUIRE(whole.size() == 3);
  CHECK(whole[0].type == "e1");
  CHECK(whole[0].data == " two spaces\ncaf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  CHECK(whole[0].id == "42");
  CHECK(whole[1].id.empty());  // a bare "id" line resets the id
  CHECK(whole[1].has_id);
  CHECK(whole[2].data == "last");
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    INFO("chunk size " << chunk);
    CHECK(SameEvents(DecodeChunked(stream, chunk), whole));
  }
}

TEST_CASE("sse: a UTF-8 sequence split across chunks survives", "[sse]") {
  SseDecoder d(kBig);
  std::vector<SseEvent> out;
  REQUIRE(d.Feed("data: \xF0\x9F", out));
  REQUIRE(d.Feed("\x98", out));
  REQUIRE(d.Feed("\x80\n\n", out));
  CHECK(Data(out) == std::vector<std::string>{"\xF0\x9F\x98\x80"});
}

TEST_CASE("sse: ill-formed UTF-8 reads as U+FFFD", "[sse]") {
  CHECK(Data(DecodeWhole("data: a\xFF"
                         "b\xC3\n\n")) == std::vector<std::string>{"a\xEF\xBF\xBD"
                                                                   "b\xEF\xBF\xBD"});
}

TEST_CASE("sse: a BOM is dropped only at the start of the stream", "[sse]") {
  CHECK(Data(DecodeWhole("\xEF\xBB\xBF"
                         "data: x\n\n")) == std::vector<std::string>{"x"});
  CHECK(Data(DecodeChunked("\xEF\xBB\xBF"
                           "data: x\n\n",
                           1)) == std::vector<std::string>{"x"});
  // A second BOM is part of the first line: the field "\uFEFFdata" is unknown.
  CHECK(DecodeWhole("\xEF\xBB\xBF\xEF\xBB\xBF"
                    "data: x\n\n")
            .empty());
  // A BOM later in the stream is text like any other.
  CHECK(Data(DecodeWhole("data: x\n\ndata: \xEF\xBB\xBFy\n\n")) ==
        std::vector<std::string>{"x", "\xEF\xBB\xBFy"});
  // Bytes that start like a BOM but are not one are kept (here they spoil
  // the field name, so nothing is dispatched).
  CHECK(DecodeChunked("\xEF\xBB"
                      "data: z\n\n",
                      1)
            .empty());
  CHECK(DecodeWhole("\xEF\xBB\xBE"
                    "data: z\n\n")
            .empty());
}

TEST_CASE("sse: comments are ignored", "[sse]") {
  CHECK(Data(DecodeWhole(": keep-alive\ndata: x\n:another\n\n")) == std::vector<std::string>{"x"});
  CHECK(DecodeWhole(":\n\n: only comments\n\n").empty());
}

TEST_CASE("sse: only one space after the colon is stripped", "[sse]") {
  CHECK(Data(DecodeWhole("data:x\n\n"))[0] == "x");
  CHECK(Data(DecodeWhole("data: x\n\n"))[0] == "x");
  CHECK(Data(DecodeWhole("data:  x\n\n"))[0] == " x");
  CHECK(Data(DecodeWhole("data:\tx\n\n"))[0] == "\tx");
  CHECK(Data(DecodeWhole("data: a: b\n\n"))[0] == "a: b");  // only the first colon splits
}

TEST_CASE("sse: a field without a colon has an empty value", "[sse]") {
  auto events = DecodeWhole("event\ndata\ndata\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == "message");  // empty event type reads as message
  CHECK(events[0].data == "\n");
}

TEST_CASE("sse: unknown fields are ignored, field names are case-sensitive", "[sse]") {
  auto events = DecodeWhole("Data: no\nfoo: bar\ndata: yes\nEVENT: x\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "yes");
  CHECK(events[0].type == "message");
}

TEST_CASE("sse: an event without data is not dispatched but its id is kept", "[sse]") {
  SseDecoder d(kBig);
  std::vector<SseEvent> out;
  // MCP's priming event: an id and an empty data field.
  REQUIRE(d.Feed("id: prime-1\ndata:\n\n", out));
  CHECK(out.empty());
  CHECK(d.last_event_id() == "prime-1");
  REQUIRE(d.Feed("id: 2\n\n", out));
  CHECK(out.empty());
  CHECK(d.last_event_id() == "2");
  // The next event carries the id in force.
  REQUIRE(d.Feed("data: x\n\n", out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].id == "2");
  CHECK(out[0].has_id);
}

TEST_CASE("sse: the event type does not leak into the next event", "[sse]") {
  auto events = DecodeWhole("event: a\n\nevent: b\ndata: 1\n\ndata: 2\n\n");
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == "b");
  CHECK(events[1].type == "message");
}

TEST_CASE("sse: an id containing NUL is ignored", "[sse]") {
  SseDecoder d(kBig);
  std::vector<SseEvent> out;
  REQUIRE(d.Feed("id: good\ndata: 1\n\n", out));
  REQUIRE(d.Feed(std::string_view("id: b\0d\ndata: 2\n\n", 17), out));
  REQUIRE(out.size() == 2);
  CHECK(out[1].id == "good");
  CHECK(d.last_event_id() == "good");
}

TEST_CASE("sse: an empty id resets the last event id", "[sse]") {
  SseDecoder d(kBig);
  std::vector<SseEvent> out;
  REQUIRE(d.Feed("id: 1\ndata: a\n\nid:\ndata: b\n\n", out));
  CHECK(d.last_event_id().empty());
  REQUIRE(out.size() == 2);
  CHECK(out[1].id.empty());
}

TEST_CASE("sse: retry takes only ASCII digits", "[sse]") {
  SseDecoder d(kBig);
  std::vector<SseEvent> out;
  CHECK_FALSE(d.retry_ms().has_value());
  REQUIRE(d.Feed("retry: 2500\n\n", out));
  CHECK(d.retry_ms() == 2500L);
  REQUIRE(d.Feed("retry: 10s\nretry: -5\nretry:  7\nretry: 1.5\nretry:\n\n", out));
  CHECK(d.retry_ms() == 2500L);  // none of those were digits only
  REQUIRE(d.Feed("retry: 99999999999999999999999\n\n", out));
  CHECK(d.retry_ms().value() > 2500L);  // saturates instead of overflowing
  REQUIRE(d.Feed("retry:0\n", out));
  CHECK(d.retry_ms() == 0L);
  CHECK(out.empty());  // retry alone dispatches nothing
}

TEST_CASE("sse: event data exactly at the bound passes, one byte over fails", "[sse]") {
  const size_t max = 100;
  SECTION("one data line") {
    CHECK(Data(DecodeWhole("data: " + std::string(max, 'a') + "\n\n", max))[0].size() == max);
    SseDecoder d(max);
    std::vector<SseEvent> out;
    CHECK_FALSE(d.Feed("data: " + std::string(max + 1, 'a') + "\n\n", out));
    CHECK(out.empty());
    CHECK(d.failed());
  }
  SECTION("the joining LFs count") {
    const std::string half(max / 2, 'b');  // 50 + "\n" + 49 = 100
    CHECK(DecodeWhole("data: " + half + "\ndata: " + half.substr(1) + "\n\n", max).size() == 1);
    SseDecoder d(max);
    std::vector<SseEvent> out;
    CHECK_FALSE(d.Feed("data: " + half + "\ndata: " + half + "\n\n", out));
  }
  SECTION("split into one-byte chunks") {
    const std::string over = "data: " + std::string(max + 1, 'c') + "\n\n";
    SseDecoder d(max);
    std::vector<SseEvent> out;
    bool ok = true;
    for (char c : over) ok = d.Feed(std::string_view(&c, 1), out) && ok;
    CHECK_FALSE(ok);
    CHECK(out.empty());
  }
}

TEST_CASE("sse: a line may be 64 bytes longer than the event bound, not 65", "[sse]") {
  const size_t max = 100;
  {
    SseDecoder d(max);
    std::vector<SseEvent> out;
    CHECK(d.Feed(":" + std::string(max + 63, 'x') + "\ndata: ok\n\n", out));
    CHECK(out.size() == 1);
  }
  {
    SseDecoder d(max);
    std::vector<SseEvent> out;
    CHECK_FALSE(d.Feed(":" + std::string(max + 64, 'x') + "\ndata: ok\n\n", out));
    CHECK(out.empty());
  }
}

TEST_CASE("sse: a line that never ends fails at the bound, not at end of memory", "[sse]") {
  const size_t max = 1000;
  SseDecoder d(max);
  std::vector<SseEvent> out;
  const std::string chunk(100, 'x');  // a comment line without an end
  REQUIRE(d.Feed(":", out));
  bool ok = true;
  size_t fed = 1;
  while (ok && fed < 10 * max) {
    ok = d.Feed(chunk, out);
    fed += chunk.size();
  }
  CHECK_FALSE(ok);
  CHECK(fed < 2 * max);
}

TEST_CASE("sse: a failed decoder stays failed", "[sse]") {
  SseDecoder d(10);
  std::vector<SseEvent> out;
  REQUIRE(d.Feed("data: ok\n\n", out));
  REQUIRE(out.size() == 1);
  CHECK_FALSE(d.Feed("data: 0123456789a\n\n", out));
  CHECK_FALSE(d.Feed("data: x\n\n", out));
  CHECK(d.failed());
  CHECK(out.size() == 1);
}

TEST_CASE("sse: many events in one chunk come out in order", "[sse]") {
  std::string stream;
  for (int i = 0; i < 1000; ++i)
    stream += "id: " + std::to_string(i) + "\ndata: " + std::to_string(i) + "\n\n";
  auto events = DecodeWhole(stream);
  REQUIRE(events.size() == 1000);
  CHECK(events[999].data == "999");
  CHECK(events[999].id == "999");
  CHECK(SameEvents(DecodeChunked(stream, 7), events));
}

}  // namespace
}  // namespace mcpgw::mcp
