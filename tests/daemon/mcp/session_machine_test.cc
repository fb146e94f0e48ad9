// The session machine against servers that restart, drop streams and lose
// sessions (BEHAVIOR.md §3, §5): a call runs at most once, every new session lists
// tools before it serves, the GET stream belongs to its session, abandoned
// sessions are DELETEd, nothing that must be sent is dropped, every transfer
// has a deadline, and authorization waits instead of failing.
#include "daemon/mcp/session_test_harness.h"

namespace mcpgw::mcp::testing {
namespace {

const std::string kListChanged =
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}";

std::string PingEvent(int n) {
  return SseMessage("{\"jsonrpc\":\"2.0\",\"id\":\"ping-" + std::to_string(n) +
                    "\",\"method\":\"ping\"}");
}

// Answers a new session's handshake and listing; leaves the GET in h.listen.
void Reinitialize(Harness& h, const std::vector<std::string>& tools, const std::string& sid) {
  StartTransfer init = h.NextPost("initialize");
  CHECK(HeaderOf(init, "Mcp-Session-Id") == "<none>");
  h.RespondJson(init, InitResult(), sid);
  h.Accept202(h.NextPost("notifications/initialized").id);
  StartTransfer list = h.NextPost("tools/list");
  CHECK(HeaderOf(list, "Mcp-Session-Id") == sid);
  h.RespondJson(list, ToolsPage(tools));
  REQUIRE(h.session.phase() == Phase::kReady);
  h.listen = h.Next(HttpMethod::kGet);
}

size_t CountPosts(const Harness& h, const std::string& method) {
  return static_cast<size_t>(std::count_if(h.starts.begin(), h.starts.end(), [&](const auto& t) {
    return t.method == HttpMethod::kPost && MethodOf(t) == method;
  }));
}

TEST_CASE("machine: a call whose resumption gets 404 is never sent again", "[session][machine]") {
  Harness h;
  h.BringUp({"echo"});
  h.Head(h.listen.id, 200, "text/event-stream");
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  h.Data(call.id, "id: ev-1\ndata:\n\n");  // the server took the call
  h.Done(call.id, "connection reset by peer");
  h.Advance(1s);
  StartTransfer resume = h.Next(HttpMethod::kGet);
  CHECK(HeaderOf(resume, "Last-Event-ID") == "ev-1");
  h.Respond(resume.id, 404, "application/json", "{}");

  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.finished[0].outcome.text.find(
            "the tool may have run, and calling it again may run it again") != std::string::npos);
  // The 404 also said the session is gone: a new one, listed, without a call.
  CHECK(h.Aborted(h.listen.id));
  Reinitialize(h, {"echo", "other"}, "sid-2");
  CHECK(Names(h.session) == std::vector<std::string>{"echo", "other"});
  h.Advance(10s);
  CHECK(CountPosts(h, "tools/call") == 0);
  CHECK(h.Logged("session 1 expired"));
}

TEST_CASE("machine: a call's lost stream without an event id fails once", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  h.Done(call.id);
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.text ==
        "stream ended before the response; the tool may have run, and calling it again may run it "
        "again");
  h.Advance(1min);
  CHECK(CountPosts(h, "tools/call") == 0);
  CHECK(h.session.phase() == Phase::kReady);
}

TEST_CASE("machine: calls in flight on an expired session are not sent again",
          "[session][machine]") {
  Harness h;
  h.BringUp();
  h.Head(h.listen.id, 200, "text/event-stream");
  h.session.Call(1, "echo", "{}", h.now);
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer first = h.NextPost("tools/call");
  StartTransfer second = h.NextPost("tools/call");
  // The first POST is answered 404: it was never taken, so it is resent once.
  h.Respond(first.id, 404, "text/plain", "");
  Reinitialize(h, {"echo"}, "sid-2");
  StartTransfer resent = h.NextPost("tools/call");
  CHECK(resent.body == first.body);
  CHECK(HeaderOf(resent, "Mcp-Session-Id") == "sid-2");
  // The second, taken by the old session, still ends by its own answer.
  h.RespondJson(second, "{\"content\":[{\"type\":\"text\",\"text\":\"two\"}]}");
  h.RespondJson(resent, "{\"content\":[{\"type\":\"text\",\"text\":\"one\"}]}");
  REQUIRE(h.finished.size() == 2);
  CHECK(h.finished[0].id == 2);
  CHECK(h.finished[1].id == 1);
  CHECK(CountPosts(h, "tools/call") == 0);
}

TEST_CASE("machine: a 404 on the GET stream re-initializes and re-lists at once",
          "[session][machine]") {
  Harness h;
  h.BringUp({"old"});
  h.Head(h.listen.id, 200, "text/event-stream");
  h.Done(h.listen.id, "connection reset");  // the server went away
  h.Advance(1s);
  StartTransfer again = h.Next(HttpMethod::kGet);
  CHECK(HeaderOf(again, "Mcp-Session-Id") == "sid-1");
  h.Respond(again.id, 404, "application/json", "{}");  // back, with no memory of us
  Reinitialize(h, {"new", "newer"}, "sid-2");
  CHECK(Names(h.session) == std::vector<std::string>{"new", "newer"});
  CHECK(h.state_changes == 1);
  // The new stream belongs to the new session.
  CHECK(HeaderOf(h.listen, "Mcp-Session-Id") == "sid-2");
  CHECK(HeaderOf(h.listen, "MCP-Protocol-Version") == "2025-11-25");
}

TEST_CASE("machine: a 404 on a session's first GET means no stream, not a lost session",
          "[session][machine]") {
  Harness h;
  h.BringUp();
  h.Respond(h.listen.id, 404, "text/plain", "");
  h.Advance(10min);
  CHECK_FALSE(h.HasStart(HttpMethod::kGet));
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  CHECK(h.session.phase() == Phase::kReady);
}

TEST_CASE("machine: the GET stream of an old session never blocks or disables the new one",
          "[session][machine]") {
  Harness h;
  h.BringUp();
  h.Respond(h.listen.id, 405, "text/plain", "");  // this session offers none
  h.session.Call(1, "echo", "{}", h.now);
  h.Respond(h.NextPost("tools/call").id, 404, "text/plain", "");
  Reinitialize(h, {"echo"}, "sid-2");  // the new session opens its own stream
  h.RespondJson(h.NextPost("tools/call"), "{\"content\":[]}");  // call 1, resent
  StartTransfer old_get = h.listen;
  h.Head(old_get.id, 200, "text/event-stream");
  h.session.Call(2, "echo", "{}", h.now);
  h.Respond(h.NextPost("tools/call").id, 404, "text/plain", "");
  CHECK(h.Aborted(old_get.id));  // tied to sid-2, which is gone
  h.Data(old_get.id, SseMessage(kListChanged));
  CHECK_FALSE(h.HasStart(HttpMethod::kGet));
  Reinitialize(h, {"echo"}, "sid-3");
  CHECK(HeaderOf(h.listen, "Mcp-Session-Id") == "sid-3");
}

TEST_CASE("machine: list_changed from a replaced session is ignored", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");
  h.session.Call(2, "echo", "{}", h.now);
  h.Respond(h.NextPost("tools/call").id, 404, "text/plain", "");
  Reinitialize(h, {"echo"}, "sid-2");
  h.NextPost("tools/call");  // call 2, resent
  // Call 1's stream still belongs to sid-1.
  h.Data(call.id, SseMessage(kListChanged));
  h.Pump();
  CHECK(CountPosts(h, "tools/list") == 0);
}

TEST_CASE("machine: an attempt that made a session and failed DELETEs it", "[session][machine]") {
  Harness h;
  h.session.Start(h.now);
  std::vector<std::string> deleted;
  for (int i = 1; i <= 4; ++i) {
    const std::string sid = "sid-" + std::to_string(i);
    h.RespondJson(h.NextPost("initialize"), InitResult(), sid);
    h.Accept202(h.NextPost("notifications/initialized").id);
    h.Respond(h.NextPost("tools/list").id, 500, "text/plain", "");
    CHECK(h.session.status() == Status::kError);
    CHECK(h.session.reason() == "HTTP 500 from server");
    StartTransfer del = h.Next(HttpMethod::kDelete);
    deleted.push_back(HeaderOf(del, "Mcp-Session-Id"));
    CHECK(HeaderOf(del, "MCP-Protocol-Version") == "2025-11-25");
    h.Respond(del.id, 204, "", "");
    h.Advance(*h.session.NextWakeup() - h.now);
  }
  CHECK(deleted == std::vector<std::string>{"sid-1", "sid-2", "sid-3", "sid-4"});
  CHECK(h.Logged("session 1 abandoned"));
}

TEST_CASE("machine: a session that expires while listing is a failed attempt, not a loop",
          "[session][machine]") {
  Harness h;
  h.session.Start(h.now);
  h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-1");
  h.Accept202(h.NextPost("notifications/initialized").id);
  h.Respond(h.NextPost("tools/list").id, 404, "text/plain", "");
  CHECK(h.session.phase() == Phase::kBackingOff);
  CHECK(h.session.status() == Status::kError);
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
}

TEST_CASE("machine: a cancellation waits for a slot, never dropped", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(h.listen.id, 200, "text/event-stream");
  std::string pings;
  for (int i = 0; i < 40; ++i) pings += PingEvent(i);
  h.Data(h.listen.id, pings);
  std::vector<StartTransfer> replies;
  while (h.HasStart(HttpMethod::kPost)) replies.push_back(h.NextPost(""));
  CHECK(replies.size() == 32);  // the rest wait their turn
  h.session.Cancel(1, h.now);
  h.Pump();
  CHECK(h.Aborted(call.id));
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  // As slots free up, the queue drains in order; the cancellation comes last.
  for (int i = 0; i < 8; ++i) {
    h.Accept202(replies[static_cast<size_t>(i)].id);
    h.NextPost("");
  }
  h.Accept202(replies[8].id);
  StartTransfer cancelled = h.NextPost("notifications/cancelled");
  CHECK(ParseJson(cancelled.body)["params"]["requestId"].GetInt64() == RpcIdOf(call));
}

TEST_CASE("machine: a flood of pings is bounded and logged", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.Head(h.listen.id, 200, "text/event-stream");
  std::string flood;
  for (int i = 0; i < 1000; ++i) flood += PingEvent(i);
  h.Data(h.listen.id, flood);
  CHECK(h.starts.size() == 32);
  CHECK(h.Logged("left unanswered"));
}

TEST_CASE("machine: notifications and DELETEs have a deadline", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  h.NextPost("tools/call");
  h.session.Cancel(1, h.now);
  StartTransfer cancelled = h.NextPost("notifications/cancelled");
  h.Advance(30s - 1ms);
  CHECK_FALSE(h.Aborted(cancelled.id));
  h.Advance(1ms);
  CHECK(h.Aborted(cancelled.id));
  CHECK(h.Logged("a notification got no answer in 30 s"));
}

TEST_CASE("machine: the GET stream has a deadline for its head and a lifetime",
          "[session][machine]") {
  Harness h;
  h.BringUp();
  SECTION("no head within 2 minutes: abandoned, reopened after a back-off") {
    h.Advance(2min);
    CHECK(h.Aborted(h.listen.id));
    CHECK_FALSE(h.HasStart(HttpMethod::kGet));
    h.Advance(1s);
    CHECK(h.HasStart(HttpMethod::kGet));
  }
  SECTION("a stream open for 10 minutes is opened afresh at once") {
    h.Head(h.listen.id, 200, "text/event-stream");
    h.Advance(10min - 1ms);
    CHECK_FALSE(h.Aborted(h.listen.id));
    h.Advance(1ms);
    CHECK(h.Aborted(h.listen.id));
    StartTransfer again = h.Next(HttpMethod::kGet);
    CHECK(HeaderOf(again, "Mcp-Session-Id") == "sid-1");
  }
  CHECK(h.session.phase() == Phase::kReady);
}

TEST_CASE("machine: 401 before ready waits for authorization as loading", "[session][machine]") {
  Harness h;
  h.answer_authorization = false;
  h.session.Start(h.now);
  h.Respond(h.NextPost("initialize").id, 401, "application/json", "{}", "",
            "Bearer resource_metadata=\"https://mcp.example.test/.well-known/x\"");
  REQUIRE(h.auth_needed.size() == 1);
  CHECK(h.auth_needed[0].http_status == 401);
  CHECK(h.auth_needed[0].www_authenticate.find("resource_metadata") != std::string::npos);
  // A hold is no phase: the handshake waits where it was.
  CHECK(h.session.phase() == Phase::kConnecting);
  CHECK(h.session.awaiting_authorization());
  CHECK(h.session.status() == Status::kLoading);
  h.session.SetAuthorization(Secret("Bearer fresh-token"));
  h.session.OnAuthorized(h.now);
  StartTransfer init = h.NextPost("initialize");
  CHECK(HeaderOf(init, "Authorization") == "Bearer fresh-token");
  h.RespondJson(init, InitResult(), "sid-1");
  StartTransfer initialized = h.NextPost("notifications/initialized");
  CHECK(HeaderOf(initialized, "Authorization") == "Bearer fresh-token");
  h.Accept202(initialized.id);
  h.RespondJson(h.NextPost("tools/list"), ToolsPage({"echo"}));
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.auth_needed.size() == 1);
}

TEST_CASE("machine: no credentials before ready is a failed attempt", "[session][machine]") {
  Harness h;
  h.session.Start(h.now);
  h.Respond(h.NextPost("initialize").id, 401, "application/json", "{}");
  CHECK(h.auth_needed.size() == 1);
  CHECK(h.session.status() == Status::kError);
  CHECK(h.session.reason() == "HTTP 401 from server");
  CHECK(h.session.NextWakeup() == h.now + 1s);
}

TEST_CASE("machine: a ready server's calls wait for authorization", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.answer_authorization = false;
  h.session.Call(1, "echo", "{\"a\":1}", h.now);
  StartTransfer refused = h.NextPost("tools/call");
  h.Respond(refused.id, 403, "application/json", "{}", "",
            "Bearer error=\"insufficient_scope\", scope=\"files:write\"");
  REQUIRE(h.auth_needed.size() == 1);
  CHECK(h.auth_needed[0].http_status == 403);
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.Aborted(h.listen.id));
  h.session.Call(2, "echo", "{}", h.now);
  h.Pump();
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  CHECK(h.finished.empty());
  SECTION("authorized: both are sent, the refused one again") {
    h.session.SetAuthorization(Secret("Bearer more-scope"));
    h.session.OnAuthorized(h.now);
    h.Pump();
    StartTransfer again = h.NextPost("tools/call");
    StartTransfer second = h.NextPost("tools/call");
    CHECK(again.body == refused.body);
    CHECK(HeaderOf(again, "Authorization") == "Bearer more-scope");
    CHECK(HeaderOf(second, "Authorization") == "Bearer more-scope");
    CHECK(h.HasStart(HttpMethod::kGet));  // the stream, again
  }
  SECTION("not authorized: both fail with the reason, the server stays ready") {
    h.session.OnAuthorizationFailed("authorization required: run \"mcpgw login alpha\"", h.now);
    h.Pump();
    REQUIRE(h.finished.size() == 2);
    for (const CallFinished& f : h.finished) {
      CHECK(f.outcome.kind == CallErrorKind::kTransport);
      CHECK(f.outcome.text == "authorization required: run \"mcpgw login alpha\"");
    }
    CHECK(h.session.phase() == Phase::kReady);
  }
  CHECK(h.auth_needed.size() == 1);
}

TEST_CASE("machine: a call waiting for authorization keeps its deadline", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.answer_authorization = false;
  h.session.Call(1, "echo", "{}", h.now);
  h.Respond(h.NextPost("tools/call").id, 401, "application/json", "{}");
  h.Advance(5min);
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.text == "timed out after 5 min");
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));  // it never reached the server: nothing to cancel
}

TEST_CASE("machine: a 403 that is no scope challenge is a plain error", "[session][machine]") {
  Harness h;
  h.BringUp();
  h.session.Call(1, "echo", "{}", h.now);
  h.Respond(h.NextPost("tools/call").id, 403, "application/json", "{}");
  CHECK(h.auth_needed.empty());
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.text == "HTTP 403 from server");
}

TEST_CASE("machine: a ready server that cannot re-initialize retries in the background",
          "[session][machine]") {
  Harness h;
  h.BringUp({"old"});
  h.session.Call(1, "echo", "{}", h.now);
  h.Respond(h.NextPost("tools/call").id, 404, "text/plain", "");
  h.Done(h.NextPost("initialize").id, "connection refused");
  REQUIRE(h.finished.size() == 1);
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.session.phase() == Phase::kBackingOff);
  CHECK(h.Logged("could not open a new session: connection refused"));
  h.Advance(1s);
  Reinitialize(h, {"new"}, "sid-2");
  CHECK(Names(h.session) == std::vector<std::string>{"new"});
}

}  // namespace
}  // namespace mcpgw::mcp::testing
