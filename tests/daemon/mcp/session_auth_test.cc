// The session waiting for credentials (BEHAVIOR.md §3, §9): a refusal is no
// phase — the lifecycle stays where it struck, hosts see what they saw, the
// refused request goes out again once credentials come — and what happens
// to the session meanwhile (it expires, the server lists new tools, the
// probe's deadline passes) is carried on afterwards.
#include <functional>

#include "daemon/mcp/session_test_harness.h"

namespace mcpgw::mcp::testing {
namespace {

const std::string kListChanged =
    SseMessage(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");

void Refuse(Harness& h, TransferId id) {
  h.Respond(id, 401, "application/json", "{}", "", "Bearer realm=\"mcp\"");
}

// Answers a new session's handshake and listing; leaves the GET in h.listen.
void Reinitialize(Harness& h, const std::string& sid) {
  h.RespondJson(h.NextPost("initialize"), InitResult(), sid);
  h.Accept202(h.NextPost("notifications/initialized").id);
  h.RespondJson(h.NextPost("tools/list"), ToolsPage({"echo"}));
  REQUIRE(h.session.phase() == Phase::kReady);
  h.listen = h.Next(HttpMethod::kGet);
}

TEST_CASE("auth: a refusal keeps the phase, and the refused request goes out again",
          "[session][auth]") {
  struct Row {
    const char* where;
    std::string_view era_hint;
    // Brings the session to the request the server refuses.
    std::function<StartTransfer(Harness&)> reach;
    Phase phase;
    Status status;
  };
  const Row rows[] = {
      {"probing the era", "",
       [](Harness& h) {
         h.session.Start(h.now);
         return h.NextPost("server/discover");
       },
       Phase::kDiscovering, Status::kLoading},
      {"initializing", "2025-11-25",
       [](Harness& h) {
         h.session.Start(h.now);
         return h.NextPost("initialize");
       },
       Phase::kConnecting, Status::kLoading},
      {"listing tools", "2025-11-25",
       [](Harness& h) {
         h.session.Start(h.now);
         h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-1");
         h.Accept202(h.NextPost("notifications/initialized").id);
         return h.NextPost("tools/list");
       },
       Phase::kListing, Status::kLoading},
      {"serving a call", "2025-11-25",
       [](Harness& h) {
         h.BringUp();
         h.session.Call(1, "echo", R"({"a":1})", h.now);
         return h.NextPost("tools/call");
       },
       Phase::kReady, Status::kReady},
  };
  for (const Row& row : rows) {
    INFO(row.where);
    Harness h({}, row.era_hint);
    h.answer_authorization = false;
    const StartTransfer refused = row.reach(h);
    const std::string method = MethodOf(refused);
    Refuse(h, refused.id);
    REQUIRE(h.auth_needed.size() == 1);
    CHECK(h.auth_needed[0].www_authenticate == "Bearer realm=\"mcp\"");
    CHECK(h.session.awaiting_authorization());
    CHECK(h.session.phase() == row.phase);
    CHECK(h.session.status() == row.status);
    CHECK(h.session.reason().empty());
    CHECK_FALSE(h.HasStart(HttpMethod::kPost));  // nothing goes out meanwhile

    h.session.SetAuthorization(Secret("Bearer fresh"));
    h.session.OnAuthorized(h.now);
    StartTransfer again = h.NextPost(method);
    CHECK(again.body == refused.body);  // the same request, never run
    CHECK(HeaderOf(again, "Authorization") == "Bearer fresh");
    CHECK_FALSE(h.session.awaiting_authorization());
    CHECK(h.session.phase() == row.phase);
    CHECK(h.auth_needed.size() == 1);
  }
}

TEST_CASE("auth: a second refusal during the wait asks for credentials only once",
          "[session][auth]") {
  Harness h;
  h.BringUp();
  h.answer_authorization = false;
  h.session.Call(1, "echo", "{}", h.now);
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer first = h.NextPost("tools/call");
  StartTransfer second = h.NextPost("tools/call");
  Refuse(h, first.id);
  Refuse(h, second.id);
  CHECK(h.auth_needed.size() == 1);
  h.session.OnAuthorized(h.now);
  CHECK(h.NextPost("tools/call").body == first.body);
  CHECK(h.NextPost("tools/call").body == second.body);
  CHECK(h.finished.empty());
}

TEST_CASE("auth: a session that expires during the wait is replaced once credentials come",
          "[session][auth]") {
  Harness h;
  h.BringUp();
  h.answer_authorization = false;
  h.session.Call(1, "echo", "{}", h.now);
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer refused = h.NextPost("tools/call");
  StartTransfer expired = h.NextPost("tools/call");
  Refuse(h, refused.id);
  h.Respond(expired.id, 404, "text/plain", "");  // sid-1 is gone; call 2 never ran
  // No new session while the credentials are awaited: it would be refused.
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  CHECK(h.session.phase() == Phase::kReady);
  CHECK(h.session.status() == Status::kReady);

  SECTION("authorized: a new session, and both calls go out in it") {
    h.session.OnAuthorized(h.now);
    Reinitialize(h, "sid-2");
    StartTransfer a = h.NextPost("tools/call");
    StartTransfer b = h.NextPost("tools/call");
    CHECK(HeaderOf(a, "Mcp-Session-Id") == "sid-2");
    CHECK(HeaderOf(b, "Mcp-Session-Id") == "sid-2");
    CHECK(((a.body == refused.body && b.body == expired.body) ||
           (a.body == expired.body && b.body == refused.body)));
    CHECK(h.finished.empty());
  }
  SECTION("refused: both calls fail, the server stays ready and tries again later") {
    h.session.OnAuthorizationFailed("authorization required", h.now);
    h.Pump();
    REQUIRE(h.finished.size() == 2);
    for (const CallFinished& f : h.finished) {
      CHECK(f.outcome.kind == CallErrorKind::kTransport);
      CHECK(f.outcome.text == "session expired and re-initializing failed: authorization required");
    }
    CHECK(h.session.phase() == Phase::kBackingOff);
    CHECK(h.session.status() == Status::kReady);
    h.Advance(1s);
    h.NextPost("initialize");
  }
}

TEST_CASE("auth: tools that change during the wait are listed once credentials come",
          "[session][auth]") {
  Harness h;
  h.BringUp({"echo"});
  h.answer_authorization = false;
  h.session.Call(1, "echo", "{}", h.now);
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer refused = h.NextPost("tools/call");
  StartTransfer streaming = h.NextPost("tools/call");
  h.Head(streaming.id, 200, "text/event-stream");
  Refuse(h, refused.id);
  CHECK(h.Aborted(h.listen.id));  // the GET stream closes during the wait
  h.Data(streaming.id, kListChanged);
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));  // not listed while refused

  h.session.OnAuthorized(h.now);
  h.NextPost("tools/call");
  StartTransfer list = h.NextPost("tools/list");
  CHECK(h.HasStart(HttpMethod::kGet));  // and the stream opens again
  h.RespondJson(list, ToolsPage({"echo", "new"}));
  CHECK(Names(h.session) == std::vector<std::string>{"echo", "new"});
}

TEST_CASE("auth: a probe whose deadline passes during the wait is sent afresh", "[session][auth]") {
  Harness h({}, "");
  h.answer_authorization = false;
  h.session.Start(h.now);
  Refuse(h, h.NextPost("server/discover").id);
  h.Advance(std::chrono::seconds(10));  // the probe's own 10 s: no verdict is taken from it
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  CHECK(h.session.phase() == Phase::kDiscovering);
  h.session.OnAuthorized(h.now);
  h.NextPost("server/discover");
  CHECK(h.session.phase() == Phase::kDiscovering);
}

TEST_CASE("auth: a call refused on a replaced session waits for the new one", "[session][auth]") {
  Harness h;
  h.BringUp();
  h.answer_authorization = false;
  h.session.Call(1, "echo", "{}", h.now);
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer old_call = h.NextPost("tools/call");
  h.Respond(h.NextPost("tools/call").id, 404, "text/plain", "");  // sid-1 expired
  StartTransfer init = h.NextPost("initialize");
  Refuse(h, old_call.id);  // still on sid-1's connection
  REQUIRE(h.auth_needed.size() == 1);
  CHECK(h.session.phase() == Phase::kConnecting);
  // The new session's handshake carries on; no call goes out before it serves.
  h.RespondJson(init, InitResult(), "sid-2");
  h.Accept202(h.NextPost("notifications/initialized").id);
  h.RespondJson(h.NextPost("tools/list"), ToolsPage({"echo"}));
  CHECK(h.session.phase() == Phase::kReady);
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));

  h.session.OnAuthorized(h.now);
  StartTransfer a = h.NextPost("tools/call");
  StartTransfer b = h.NextPost("tools/call");
  CHECK(HeaderOf(a, "Mcp-Session-Id") == "sid-2");
  CHECK(HeaderOf(b, "Mcp-Session-Id") == "sid-2");
  CHECK((a.body == old_call.body || b.body == old_call.body));
}

}  // namespace
}  // namespace mcpgw::mcp::testing
