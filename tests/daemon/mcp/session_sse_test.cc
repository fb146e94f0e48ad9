// Session over SSE responses (BEHAVIOR.md §6): split streams, server requests and
// notifications interleaved with the response, priming events, resumption
// with GET + Last-Event-ID.
#include "daemon/mcp/session_test_harness.h"

namespace mcpgw::mcp::testing {
namespace {

const std::string kPing = "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"method\":\"ping\"}";
const std::string kSampling =
    "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"sampling/createMessage\",\"params\":{}}";
const std::string kLog =
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\"}}";

TEST_CASE("sse: initialize over SSE, byte by byte, with server messages interleaved",
          "[session][sse]") {
  Harness h;
  h.session.Start(h.now);
  StartTransfer init = h.NextPost("initialize");
  h.Head(init.id, 200, "text/event-stream; charset=utf-8", "sid-1");
  const std::string stream = "id: prime-0\ndata:\n\n" + SseMessage(kPing, "e1") +
                             "event: message\r\n" + SseMessage(kSampling) + ": comment\n" +
                             SseMessage(kLog) +
                             SseMessage(Result(RpcIdOf(init), InitResult()), "e2");
  for (char c : stream) h.Data(init.id, std::string(1, c));

  // ping answered with an empty result, echoing its string id.
  StartTransfer pong = h.NextPost("");
  CHECK(pong.body == "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"result\":{}}");
  CHECK(HeaderOf(pong, "Accept") == "application/json, text/event-stream");
  // Any other request is refused.
  StartTransfer refusal = h.NextPost("");
  CHECK(refusal.body ==
        "{\"jsonrpc\":\"2.0\",\"id\":42,\"error\":{\"code\":-32601,"
        "\"message\":\"method not supported by this client\"}}");
  // The response ended the stream: the session does not wait for its end,
  // and tells the transport the stream did its work (so its connection may
  // be kept).
  CHECK(h.Aborted(init.id));
  CHECK(h.Answered(init.id));
  StartTransfer initialized = h.NextPost("notifications/initialized");
  CHECK(HeaderOf(initialized, "Mcp-Session-Id") == "sid-1");
  h.Pump();
  CHECK(h.starts.empty());  // the notification needed no answer
  h.Done(init.id);          // a late completion of the aborted transfer is ignored
  h.Accept202(initialized.id);

  StartTransfer list = h.NextPost("tools/list");
  h.Head(list.id, 200, "text/event-stream");
  h.Data(list.id, SseMessage(Result(RpcIdOf(list), ToolsPage({"b", "a"}))));
  CHECK(h.session.status() == Status::kReady);
  CHECK(Names(h.session) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("sse: a call answered over SSE", "[session][sse]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  const std::string stream =
      "id: 1\ndata:\n\n" + SseMessage(kPing) +
      SseMessage(Result(RpcIdOf(call),
                        "{\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                        "{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}]}"));
  // Split in uneven chunks.
  for (size_t i = 0; i < stream.size(); i += 7) h.Data(call.id, stream.substr(i, 7));
  REQUIRE(h.finished.size() == 1);
  CHECK(h.Answered(call.id));
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kNone);
  CHECK(h.finished[0].outcome.text == "a\n\n[image omitted: image/png]");
  CHECK(h.finished[0].outcome.bytes_in == stream.size());
  CHECK(h.NextPost("").body.find("\"result\":{}") != std::string::npos);
}

TEST_CASE("sse: a stream cut before its answer is not passed off as answered", "[session][sse]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  // Another request's answer on this stream does not end it.
  h.Data(call.id, SseMessage(kPing) + SseMessage(Result(RpcIdOf(call) + 1000, "{}")));
  CHECK_FALSE(h.Aborted(call.id));
  h.session.Cancel(1, h.now);
  CHECK(h.Aborted(call.id));
  CHECK_FALSE(h.Answered(call.id));
}

TEST_CASE("sse: a stream that closes early is resumed with Last-Event-ID", "[session][sse]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  SECTION("after the server's retry delay") {
    h.Data(call.id, "id: ev-1\nretry: 1500\ndata:\n\n");  // a priming event
    h.Done(call.id);
    CHECK(h.finished.empty());
    CHECK(h.session.NextWakeup() == h.now + 1500ms);
    h.Advance(1499ms);
    CHECK_FALSE(h.HasStart(HttpMethod::kGet));
    h.Advance(1ms);
  }
  SECTION("after a short default delay, also when the connection broke") {
    h.Data(call.id, "id: ev-1\ndata:\n\n");
    h.Done(call.id, "connection reset by peer");
    CHECK(h.finished.empty());
    REQUIRE(h.session.NextWakeup().has_value());
    CHECK(*h.session.NextWakeup() - h.now <= 1s);
    h.Advance(*h.session.NextWakeup() - h.now);
  }
  SECTION("a retry the server asks for is bounded") {
    h.Data(call.id, "id: ev-1\nretry: 999999999\ndata:\n\n");
    h.Done(call.id);
    REQUIRE(h.session.NextWakeup().has_value());
    CHECK(*h.session.NextWakeup() - h.now <= 10s);
    h.Advance(*h.session.NextWakeup() - h.now);
  }
  StartTransfer resume = h.Next(HttpMethod::kGet);
  CHECK(HeaderOf(resume, "Last-Event-ID") == "ev-1");
  CHECK(HeaderOf(resume, "Accept") == "text/event-stream");
  CHECK(HeaderOf(resume, "Mcp-Session-Id") == "sid-1");
  CHECK(HeaderOf(resume, "MCP-Protocol-Version") == "2025-11-25");
  CHECK(resume.body.empty());
  h.Head(resume.id, 200, "text/event-stream");
  h.Data(resume.id,
         SseMessage(Result(RpcIdOf(call), "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}"),
                    "ev-2"));
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kNone);
  CHECK(h.finished[0].outcome.text == "ok");
}

TEST_CASE("sse: resumption gives up", "[session][sse]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  std::string text;
  SECTION("without an event id") {
    h.Data(call.id, SseMessage(kLog));
    h.Done(call.id);
    text =
        "stream ended before the response; the tool may have run, and calling it again may run it "
        "again";
  }
  SECTION("without an event id, connection broken") {
    h.Done(call.id, "connection reset by peer");
    text = "connection reset by peer; the tool may have run, and calling it again may run it again";
  }
  SECTION("after a few fruitless resumptions") {
    h.Data(call.id, "id: ev-1\ndata:\n\n");
    h.Done(call.id);
    int resumptions = 0;
    while (h.finished.empty() && resumptions < 20) {
      h.Advance(1s);
      StartTransfer resume = h.Next(HttpMethod::kGet);
      CHECK(HeaderOf(resume, "Last-Event-ID") == "ev-1");
      ++resumptions;
      h.Respond(resume.id, 200, "text/event-stream", ": nothing new\n");
    }
    CHECK(resumptions == 5);
    text =
        "stream ended before the response; the tool may have run, and calling it again may run it "
        "again";
  }
  SECTION("a resumption the server refuses") {
    h.Data(call.id, "id: ev-1\ndata:\n\n");
    h.Done(call.id);
    h.Advance(1s);
    h.Respond(h.Next(HttpMethod::kGet).id, 405, "text/plain", "");
    text =
        "its stream broke and resuming it failed: HTTP 405 from server; the tool may have run, "
        "and calling it again may run it again";
  }
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text == text);
}

TEST_CASE("sse: broken events fail the request", "[session][sse]") {
  SessionLimits limits;
  limits.max_sse_event_bytes = 256;
  Harness h(limits);
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  std::string text;
  SECTION("invalid JSON") {
    h.Data(call.id, "data: {not json\n\n");
    text = "invalid JSON from server";
  }
  SECTION("an event over the bound") {
    h.Data(call.id, "data: \"" + std::string(300, 'x') + "\"\n\n");
    text = "server event exceeds 256 bytes";
  }
  CHECK(h.Aborted(call.id));
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text == text);
}

TEST_CASE("sse: the standalone stream answers pings and skips junk", "[session][sse]") {
  Harness h;
  h.BringUp();
  h.Head(h.listen.id, 200, "text/event-stream");
  h.Data(h.listen.id, "data: [1,2]\n\ndata: nonsense\n\n" + SseMessage(kLog) + SseMessage(kPing));
  StartTransfer pong = h.NextPost("");
  CHECK(pong.body == "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"result\":{}}");
  CHECK(HeaderOf(pong, "Mcp-Session-Id") == "sid-1");
  CHECK_FALSE(h.Aborted(h.listen.id));
  CHECK(h.session.status() == Status::kReady);
}

TEST_CASE("sse: a flood of server requests is answered boundedly", "[session][sse]") {
  Harness h;
  h.BringUp();
  h.Head(h.listen.id, 200, "text/event-stream");
  std::string flood;
  for (int i = 0; i < 1000; ++i) flood += SseMessage(kPing);
  h.Data(h.listen.id, flood);
  h.Pump();
  CHECK(h.starts.size() <= 64);
  CHECK_FALSE(h.starts.empty());
}

}  // namespace
}  // namespace mcpgw::mcp::testing
