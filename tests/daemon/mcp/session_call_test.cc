// Session calls (BEHAVIOR.md §3, §5): tools/call, outcomes, the 5-minute deadline,
// cancellation, session expiry (404) and shutdown.
#include <set>

#include "daemon/mcp/session_test_harness.h"

namespace mcpgw::mcp::testing {
namespace {

std::string CallResult(const std::string& text, bool is_error = false) {
  return std::string("{\"content\":[{\"type\":\"text\",\"text\":\"") + text +
         "\"}],\"isError\":" + (is_error ? "true" : "false") + "}";
}

TEST_CASE("call: tools/call with the exact arguments, and its result", "[session][call]") {
  Harness h;
  h.BringUp();
  h.Head(h.listen.id, 200, "text/event-stream");  // the stream is open for 10 min
  h.session.Call(7, "echo", "{\"x\":[1,2],\"y\":\"\\u00e9\"}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  CHECK(HeaderOf(call, "Accept") == "application/json, text/event-stream");
  CHECK(HeaderOf(call, "Content-Type") == "application/json");
  CHECK(HeaderOf(call, "Mcp-Session-Id") == "sid-1");
  CHECK(HeaderOf(call, "MCP-Protocol-Version") == "2025-11-25");
  const std::string params = "{\"name\":\"echo\",\"arguments\":{\"x\":[1,2],\"y\":\"\\u00e9\"}}";
  CHECK(call.body.find(",\"params\":" + params + "}") != std::string::npos);
  CHECK(h.session.NextWakeup() == h.now + 5min);

  const std::string response = Result(RpcIdOf(call), CallResult("hello"));
  h.Respond(call.id, 200, "application/json", response);
  REQUIRE(h.finished.size() == 1);
  const CallFinished& done = h.finished[0];
  CHECK(done.id == 7);
  CHECK(done.outcome.kind == CallErrorKind::kNone);
  CHECK(done.outcome.text == "hello");
  CHECK(done.outcome.request_params == params);
  CHECK(done.outcome.bytes_out == call.body.size());
  CHECK(done.outcome.bytes_in == response.size());
  CHECK(h.session.NextWakeup() == h.now + 10min);  // the stream's lifetime
}

TEST_CASE("call: every call gets a fresh JSON-RPC id", "[session][call]") {
  Harness h;
  h.BringUp();
  std::set<int64_t> ids;
  for (CallId i = 1; i <= 5; ++i) {
    h.session.Call(i, "echo", "{}", h.now);
    ids.insert(RpcIdOf(h.NextPost("tools/call")));
  }
  CHECK(ids.size() == 5);
}

TEST_CASE("call: outcomes", "[session][call]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  const int64_t id = RpcIdOf(call);
  CallErrorKind kind = CallErrorKind::kNone;
  std::string text;
  SECTION("isError is a backend error with the server's text") {
    h.Respond(call.id, 200, "application/json", Result(id, CallResult("no such file", true)));
    kind = CallErrorKind::kBackend;
    text = "no such file";
  }
  SECTION("a JSON-RPC error is a backend error with its code and message") {
    h.Respond(call.id, 200, "application/json",
              "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
                  ",\"error\":{\"code\":-32602,\"message\":\"Unknown tool\\r\\n: echo\"}}");
    kind = CallErrorKind::kBackend;
    text = "error -32602: Unknown tool: echo";
  }
  SECTION("HTTP 401") {
    h.Respond(call.id, 401, "application/json", "{}");
    kind = CallErrorKind::kTransport;
    text = "HTTP 401 from server";
  }
  SECTION("a redirect") {
    h.Head(call.id, 307, "text/html");
    CHECK(h.Aborted(call.id));
    kind = CallErrorKind::kTransport;
    text = "redirect refused (HTTP 307)";
  }
  SECTION("a transport failure") {
    h.Head(call.id, 200, "application/json");
    h.Data(call.id, "{\"jsonrpc\":");
    h.Done(call.id, "connection reset by peer");
    kind = CallErrorKind::kTransport;
    text = "connection reset by peer; the tool may have run, and calling it again may run it again";
  }
  SECTION("a connection that never came up") {
    h.Done(call.id, "connection refused", /*request_sent=*/false);
    kind = CallErrorKind::kTransport;
    text = "connection refused";
  }
  SECTION("invalid JSON") {
    h.Respond(call.id, 200, "application/json", "{\"jsonrpc\":\"2.0\",");
    kind = CallErrorKind::kTransport;
    text = "invalid JSON from server";
  }
  SECTION("a response to another id") {
    h.Respond(call.id, 200, "application/json", Result(id + 100, CallResult("x")));
    kind = CallErrorKind::kTransport;
    text = "invalid response from server";
  }
  SECTION("a batch") {
    h.Respond(call.id, 200, "application/json", "[" + Result(id, CallResult("x")) + "]");
    kind = CallErrorKind::kTransport;
    text = "invalid response from server";
  }
  SECTION("202 without a response") {
    h.Respond(call.id, 202, "", "");
    kind = CallErrorKind::kTransport;
    text = "server accepted the request without answering it";
  }
  SECTION("an unexpected content type") {
    h.Respond(call.id, 200, "text/html", "<html>");
    kind = CallErrorKind::kTransport;
    text = "unexpected content type from server";
  }
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == kind);
  CHECK(h.finished[0].outcome.text == text);
  CHECK(h.finished[0].outcome.request_params == "{\"name\":\"echo\",\"arguments\":{}}");
  // A failed call leaves the server ready.
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.state_changes == 0);
}

TEST_CASE("call: a connection lost after the request was sent is never sent again",
          "[session][call]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  // The transport must not send it again by itself either.
  CHECK(call.at_most_once);
  // What the transport reports for a tools/call it would have re-sent on a
  // fresh connection.
  h.Done(call.id, "the connection was lost after the request was sent", /*request_sent=*/true);
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text ==
        "the connection was lost after the request was sent; the tool may have run, and calling "
        "it again may run it again");
  h.Advance(1min);
  h.Pump();
  for (const StartTransfer& t : h.starts) CHECK(MethodOf(t) != "tools/call");
  CHECK(h.session.status() == Status::kReady);
}

TEST_CASE("call: bounds on the response", "[session][call]") {
  SessionLimits limits;
  limits.max_response_bytes = 1024;
  limits.max_json_depth = 8;
  Harness h(limits);
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  const int64_t id = RpcIdOf(call);
  std::string text;
  SECTION("over the byte bound, as JSON: aborted while streaming") {
    h.Head(call.id, 200, "application/json");
    h.Data(call.id, std::string(1000, ' '));
    CHECK(h.finished.empty());
    h.Data(call.id, std::string(25, ' '));
    CHECK(h.Aborted(call.id));
    text = "response exceeds 1 KiB";
  }
  SECTION("over the byte bound, as SSE") {
    h.Head(call.id, 200, "text/event-stream");
    for (int i = 0; i < 100 && h.finished.empty(); ++i) h.Data(call.id, ": keep-alive padding\n");
    CHECK(h.Aborted(call.id));
    text = "response exceeds 1 KiB";
  }
  SECTION("too deep") {
    h.Respond(call.id, 200, "application/json",
              Result(id, "{\"content\":[],\"structuredContent\":[[[[[[[[[[1]]]]]]]]]]}"));
    text = "JSON nested deeper than 8";
  }
  SECTION("too deep in an SSE event") {
    h.Head(call.id, 200, "text/event-stream");
    h.Data(call.id, SseMessage(Result(id, "{\"a\":[[[[[[[[[[1]]]]]]]]]]}")));
    CHECK(h.Aborted(call.id));
    text = "JSON nested deeper than 8";
  }
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text == text);
}

TEST_CASE("call: the 5-minute deadline", "[session][call]") {
  Harness h;
  h.BringUp();
  h.session.Call(3, "slow", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Advance(5min - 1ms);
  CHECK(h.finished.empty());
  h.Advance(1ms);
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].id == 3);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text == "timed out after 5 min");
  CHECK(h.Aborted(call.id));
  StartTransfer cancelled = h.NextPost("notifications/cancelled");
  CHECK(ParseJson(cancelled.body)["params"]["requestId"].GetInt64() == RpcIdOf(call));
  CHECK(h.session.status() == Status::kReady);
}

TEST_CASE("call: cancellation aborts and tells the server", "[session][call]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer first = h.NextPost("tools/call");
  StartTransfer second = h.NextPost("tools/call");
  h.Head(second.id, 200, "text/event-stream");
  h.session.Cancel(2, h.now);
  h.Pump();
  CHECK(h.Aborted(second.id));
  CHECK_FALSE(h.Aborted(first.id));
  StartTransfer cancelled = h.NextPost("notifications/cancelled");
  CHECK(HeaderOf(cancelled, "Mcp-Session-Id") == "sid-1");
  CHECK(HeaderOf(cancelled, "MCP-Protocol-Version") == "2025-11-25");
  rapidjson::Document body = ParseJson(cancelled.body);
  CHECK(body["params"]["requestId"].GetInt64() == RpcIdOf(second));
  CHECK(std::string(body["params"]["reason"].GetString()) == "cancelled by the client");

  // The response arriving anyway is dropped, whichever stream carries it.
  h.Data(second.id, SseMessage(Result(RpcIdOf(second), CallResult("late"))));
  h.Done(second.id);
  h.Head(h.listen.id, 200, "text/event-stream");
  h.Data(h.listen.id, SseMessage(Result(RpcIdOf(second), CallResult("late"))));
  CHECK(h.finished.empty());
  // Cancelling twice, or an unknown call, does nothing.
  h.session.Cancel(2, h.now);
  h.session.Cancel(99, h.now);
  h.Pump();
  CHECK(h.starts.empty());

  h.RespondJson(first, CallResult("one"));
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].id == 1);
  CHECK(h.finished[0].outcome.text == "one");
}

TEST_CASE("call: HTTP 404 re-initializes and retries the call once", "[session][call]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{\"a\":1}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Respond(call.id, 404, "text/plain", "");
  CHECK(h.finished.empty());

  StartTransfer init = h.NextPost("initialize");
  CHECK(HeaderOf(init, "Mcp-Session-Id") == "<none>");
  // Calls arriving meanwhile wait behind the new session.
  h.session.Call(2, "echo", "{}", h.now);
  h.Pump();
  CHECK(h.starts.empty());
  h.RespondJson(init, InitResult(), "sid-2");
  StartTransfer initialized = h.NextPost("notifications/initialized");
  CHECK(HeaderOf(initialized, "Mcp-Session-Id") == "sid-2");
  h.Pump();
  CHECK(h.starts.empty());
  h.Accept202(initialized.id);
  // The new session lists its tools before it serves anything.
  StartTransfer list = h.NextPost("tools/list");
  CHECK(HeaderOf(list, "Mcp-Session-Id") == "sid-2");
  h.Pump();
  CHECK(h.starts.empty());
  h.RespondJson(list, ToolsPage({"echo", "new"}));
  CHECK(Names(h.session) == std::vector<std::string>{"echo", "new"});

  StartTransfer retry = h.NextPost("tools/call");
  StartTransfer queued = h.NextPost("tools/call");
  CHECK(HeaderOf(retry, "Mcp-Session-Id") == "sid-2");
  CHECK(HeaderOf(queued, "Mcp-Session-Id") == "sid-2");
  CHECK(retry.body == call.body);

  SECTION("the retry succeeds") {
    h.RespondJson(retry, CallResult("again"));
    h.RespondJson(queued, CallResult("queued"));
    REQUIRE(h.finished.size() == 2);
    CHECK(h.finished[0].id == 1);
    CHECK(h.finished[0].outcome.kind == CallErrorKind::kNone);
    CHECK(h.finished[0].outcome.text == "again");
    CHECK(h.finished[1].outcome.text == "queued");
  }
  SECTION("a second 404 fails the call") {
    h.Respond(retry.id, 404, "text/plain", "");
    REQUIRE(h.finished.size() == 1);
    CHECK(h.finished[0].id == 1);
    CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
    CHECK(h.finished[0].outcome.text == "HTTP 404 from server");
  }
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.state_changes == 1);  // the new tools
}

TEST_CASE("call: a failed re-initialization fails the waiting calls", "[session][call]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  h.Respond(h.NextPost("tools/call").id, 404, "text/plain", "");
  h.Done(h.NextPost("initialize").id, "connection refused");
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text ==
        "session expired and re-initializing failed: connection refused");
  CHECK(h.session.status() == Status::kReady);

  CHECK(h.session.phase() == Phase::kBackingOff);

  // The next call starts a new session at once, without waiting out the back-off.
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer init = h.NextPost("initialize");
  h.RespondJson(init, InitResult(), "sid-3");
  h.Accept202(h.NextPost("notifications/initialized").id);
  h.RespondJson(h.NextPost("tools/list"), ToolsPage({"echo"}));
  StartTransfer call = h.NextPost("tools/call");
  CHECK(HeaderOf(call, "Mcp-Session-Id") == "sid-3");
}

TEST_CASE("call: not ready, and racing a state change", "[session][call]") {
  Harness h;
  h.session.Call(1, "echo", "{}", h.now);
  h.Pump();
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text == "server not ready");
  CHECK(h.finished[0].outcome.request_params.empty());
  CHECK(h.finished[0].outcome.bytes_out == 0);
  CHECK(h.starts.empty());
}

TEST_CASE("call: shutdown fails pending calls and deletes the session", "[session][call]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.session.Shutdown(h.now);
  h.Pump();
  CHECK(h.Aborted(call.id));
  CHECK(h.Aborted(h.listen.id));
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text == "gateway shutting down");

  StartTransfer del = h.Next(HttpMethod::kDelete);
  CHECK(HeaderOf(del, "Mcp-Session-Id") == "sid-1");
  CHECK(HeaderOf(del, "MCP-Protocol-Version") == "2025-11-25");
  CHECK(h.starts.empty());
  CHECK_FALSE(h.session.NextWakeup().has_value());

  // Nothing else leaves after shutdown.
  h.session.Call(2, "echo", "{}", h.now);
  h.Pump();
  REQUIRE(h.finished.size() == 2);
  CHECK(h.finished[1].outcome.text == "gateway shutting down");
  h.Head(h.listen.id, 200, "text/event-stream");
  h.Data(h.listen.id,
         SseMessage("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}"));
  h.Respond(del.id, 200, "", "");
  h.Advance(10min);
  CHECK(h.starts.empty());
}

TEST_CASE("call: shutdown without a session sends no DELETE", "[session][call]") {
  Harness h;
  h.session.Start(h.now);
  StartTransfer init = h.NextPost("initialize");
  h.session.Shutdown(h.now);
  h.Pump();
  CHECK(h.Aborted(init.id));
  CHECK(h.starts.empty());
}

}  // namespace
}  // namespace mcpgw::mcp::testing
