// The conversation over a fake wire: no HTTP at all. What the conversation
// asks of its transport (wire.h) is recorded; what a transport reports is fed
// to its listener by hand. These tests are the interface's own description:
// the order of events a transport must follow, and what the conversation
// makes of each report, whatever the transport is.
#include <catch2/catch.hpp>

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "daemon/mcp/conversation.h"
#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/wire.h"

namespace mcpgw::mcp {
namespace {

using namespace std::chrono_literals;

// One request the conversation sent, kept past Send (its routing's views are not).
struct Sent {
  RpcId id = 0;
  Role role = Role::kRead;
  bool resent = false;
  std::string body;
  std::string method;  // the JSON-RPC method of the body
  bool routed = false;
  std::string routed_version;
  std::string routed_method;
  std::string routed_name;
};

struct Cancelled {
  RpcId id;
  std::string notice;
  bool keep_reading;
};

class FakeWire final : public Wire {
 public:
  void Begin(TimePoint) override { ++begins; }
  void Abandon(std::string_view expired, TimePoint) override { abandons.emplace_back(expired); }
  void Opened(std::string_view version) override { opened.emplace_back(version); }
  void Confirm(std::string body, TimePoint, std::string timeout_reason, TimePoint) override {
    confirms.push_back(std::move(body));
    confirm_timeout = std::move(timeout_reason);
  }
  void Close(TimePoint) override { closed = true; }
  void Send(OutRequest request, TimePoint) override {
    Sent s;
    s.id = request.id;
    s.role = request.role;
    s.resent = request.resent;
    s.body = std::move(request.body);
    rapidjson::Document doc;
    doc.Parse(s.body.c_str(), s.body.size());
    REQUIRE_FALSE(doc.HasParseError());
    s.method = doc["method"].GetString();
    if (request.routing) {
      s.routed = true;
      s.routed_version = std::string(request.routing->version);
      s.routed_method = std::string(request.routing->method);
      if (request.routing->name) s.routed_name = std::string(*request.routing->name);
    }
    REQUIRE_FALSE(closed);
    sent.push_back(std::move(s));
  }
  void Drop(RpcId id) override { drops.push_back(id); }
  bool Cancel(RpcId id, std::string notice, bool keep_reading, TimePoint) override {
    cancels.push_back(Cancelled{id, std::move(notice), keep_reading});
    return false;
  }
  void Reply(std::string body, From to, TimePoint) override {
    replies.emplace_back(std::move(body), to.session);
  }
  void Tell(std::string body, TimePoint) override { tells.push_back(std::move(body)); }
  void Listen(Listening how, TimePoint) override { listens.push_back(how); }
  void StopListening() override { ++stops; }
  void AskCredentials() override { ++asks; }
  void OnTimer(TimePoint) override {}
  std::optional<TimePoint> NextWakeup() const override { return std::nullopt; }
  void AfterEvent(TimePoint) override {}

  // The first request sent for `method`, taken off the list.
  Sent Take(std::string_view method) {
    for (auto it = sent.begin(); it != sent.end(); ++it) {
      if (it->method == method) {
        Sent s = std::move(*it);
        sent.erase(it);
        return s;
      }
    }
    FAIL("no request " << method << " was sent");
    return {};
  }

  int begins = 0;
  std::vector<std::string> abandons;
  std::vector<std::string> opened;
  std::vector<std::string> confirms;
  std::string confirm_timeout;
  bool closed = false;
  std::deque<Sent> sent;
  std::vector<RpcId> drops;
  std::vector<Cancelled> cancels;
  std::vector<std::pair<std::string, uint64_t>> replies;
  std::vector<std::string> tells;
  std::vector<Listening> listens;
  int stops = 0;
  int asks = 0;
};

class FakeOut final : public ConversationOut {
 public:
  void Finished(CallFinished finished) override { calls.push_back(std::move(finished)); }
  void Changed() override { ++changes; }
  void Log(LogLevel, std::string text) override { logs.push_back(std::move(text)); }

  std::vector<CallFinished> calls;
  int changes = 0;
  std::vector<std::string> logs;
};

// A conversation over the fake wire, and answers fed to it as a transport
// would deliver them.
struct Rig {
  explicit Rig(std::string_view era_hint = "2025-11-25")
      : conversation("alpha", SessionLimits{}, &wire, &out) {
    conversation.SetEraHint(era_hint);
  }

  // Delivers `json` (one JSON-RPC message) as the answer to request `id`.
  void Answer(RpcId id, const std::string& json, bool refused = false) {
    rapidjson::Document doc;
    doc.Parse(json.c_str(), json.size());
    REQUIRE_FALSE(doc.HasParseError());
    const Message msg = ClassifyMessage(doc);
    mcp::Answer answer;
    answer.message = &doc;
    answer.classified = msg.kind == MessageKind::kResponse ? &msg : nullptr;
    answer.refused = refused;
    answer.how = refused ? "refused" : "answered";
    conversation.listener()->OnAnswer(id, answer, now);
    conversation.Publish();
  }
  void Result(RpcId id, const std::string& result) {
    Answer(id, "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"result\":" + result + "}");
  }
  void Lose(RpcId id, Loss loss) {
    conversation.listener()->OnLost(id, loss, now);
    conversation.Publish();
  }
  void ServerSends(const std::string& json, From from) {
    rapidjson::Document doc;
    doc.Parse(json.c_str(), json.size());
    conversation.listener()->OnServerMessage(ClassifyMessage(doc), from, now);
  }

  // A 2025 server: initialize, the handshake's end, one page of tools.
  void BringUp(const std::string& tools = R"({"tools":[{"name":"echo","inputSchema":{}}]})") {
    conversation.Start(now);
    const Sent init = wire.Take("initialize");
    CHECK(init.role == Role::kOpen);
    CHECK_FALSE(init.routed);
    Result(
        init.id,
        R"({"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}})");
    REQUIRE(wire.confirms.size() == 1);
    conversation.listener()->OnConfirmed(now);
    Result(wire.Take("tools/list").id, tools);
    REQUIRE(conversation.status() == Status::kReady);
  }

  TimePoint now = TimePoint{} + 1h;
  FakeWire wire;
  FakeOut out;
  Conversation conversation;
};

TEST_CASE("conversation over a fake wire: a 2025 server's handshake, listing and serving",
          "[conversation]") {
  Rig rig;
  rig.BringUp();
  CHECK(rig.wire.begins == 1);
  // The transport heard the version negotiated and when the handshake ended.
  CHECK(rig.wire.opened == std::vector<std::string>{"2025-11-25"});
  CHECK(rig.wire.confirms[0].find("notifications/initialized") != std::string::npos);
  CHECK(rig.wire.confirm_timeout == "timed out after 2 min initializing");
  // Serving: the transport listens for what the 2025 session sends unasked.
  CHECK(rig.wire.listens == std::vector<Listening>{Listening::kSession});
  CHECK(rig.conversation.tools()->size() == 1);
  CHECK(rig.out.changes >= 1);
}

TEST_CASE("conversation over a fake wire: the probe finds the stateless era", "[conversation]") {
  Rig rig(/*era_hint=*/"");
  rig.conversation.Start(rig.now);
  const Sent probe = rig.wire.Take("server/discover");
  CHECK(probe.role == Role::kProbe);
  // The stateless era's routing facts go with every request, the probe's too.
  CHECK(probe.routed);
  CHECK(probe.routed_method == "server/discover");
  rig.Result(
      probe.id,
      R"({"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}}})");
  const Sent page = rig.wire.Take("tools/list");
  CHECK(page.routed_version == "2026-07-28");
  rig.Result(page.id, R"({"tools":[{"name":"echo","inputSchema":{}}]})");
  CHECK(rig.conversation.status() == Status::kReady);
  CHECK(rig.conversation.protocol_version() == "2026-07-28");
  CHECK(rig.wire.opened.empty());  // no session on the stateless era
  CHECK(rig.wire.listens == std::vector<Listening>{Listening::kSubscribe});
  // The transport asks for the subscription request each time it opens the stream.
  const OutRequest sub = rig.conversation.listener()->Subscription();
  CHECK(sub.body.find("subscriptions/listen") != std::string::npos);
  REQUIRE(sub.routing);
  CHECK(sub.routing->version == "2026-07-28");
}

TEST_CASE("conversation over a fake wire: a probe without an answer means a 2025 server",
          "[conversation]") {
  Rig rig(/*era_hint=*/"");
  rig.conversation.Start(rig.now);
  const Sent probe = rig.wire.Take("server/discover");
  // A refusal that holds no modern error: initialize at 2025-11-25.
  rig.Answer(probe.id, R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}})",
             /*refused=*/true);
  CHECK(rig.wire.Take("initialize").role == Role::kOpen);
  CHECK(std::any_of(rig.out.logs.begin(), rig.out.logs.end(), [](const std::string& l) {
    return l.find("no 2026-07-28 answer to server/discover (refused)") != std::string::npos;
  }));
}

TEST_CASE("conversation over a fake wire: calls end in their answer or their loss",
          "[conversation]") {
  Rig rig;
  rig.BringUp();
  rig.conversation.Call(1, "echo", R"({"text":"hi"})", rig.now);
  const Sent call = rig.wire.Take("tools/call");
  CHECK(call.role == Role::kCall);  // at most once: the transport never sends it again
  rig.Result(call.id, R"({"content":[{"type":"text","text":"hi"}]})");
  REQUIRE(rig.out.calls.size() == 1);
  CHECK(rig.out.calls[0].id == 1);
  CHECK(rig.out.calls[0].outcome.kind == CallErrorKind::kNone);
  CHECK(rig.out.calls[0].outcome.text == "hi");
  CHECK(rig.out.calls[0].outcome.request_params == R"({"name":"echo","arguments":{"text":"hi"}})");

  rig.conversation.Call(2, "echo", "{}", rig.now);
  Loss lost;
  lost.reason = "the connection was lost" + std::string(kMayHaveRun);
  rig.Lose(rig.wire.Take("tools/call").id, lost);
  REQUIRE(rig.out.calls.size() == 2);
  CHECK(rig.out.calls[1].outcome.kind == CallErrorKind::kTransport);
  CHECK(rig.out.calls[1].outcome.text == lost.reason);
  CHECK(rig.wire.sent.empty());  // nothing went out again
}

TEST_CASE("conversation over a fake wire: a request the server never took goes out once more",
          "[conversation]") {
  Rig rig;
  rig.BringUp();
  rig.conversation.Call(1, "echo", "{}", rig.now);
  const Sent call = rig.wire.Take("tools/call");
  CHECK_FALSE(call.resent);
  Loss expired;
  expired.remedy = Loss::Remedy::kResend;
  expired.reason = "HTTP 404 from server";
  expired.session_expired = "HTTP 404 from server";
  rig.Lose(call.id, expired);
  // The session is given up as expired, a new attempt opens another.
  CHECK(rig.wire.abandons == std::vector<std::string>{"HTTP 404 from server"});
  CHECK(rig.wire.begins == 2);
  const Sent init = rig.wire.Take("initialize");
  rig.Result(
      init.id,
      R"({"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}})");
  rig.conversation.listener()->OnConfirmed(rig.now);
  rig.Result(rig.wire.Take("tools/list").id, R"({"tools":[{"name":"echo","inputSchema":{}}]})");
  // Ready again: the call goes out once more, and says so to the transport.
  const Sent again = rig.wire.Take("tools/call");
  CHECK(again.id == call.id);
  CHECK(again.resent);
  CHECK(rig.out.calls.empty());
}

TEST_CASE("conversation over a fake wire: held requests wait for credentials", "[conversation]") {
  Rig rig;
  rig.BringUp();
  rig.conversation.Call(1, "echo", "{}", rig.now);
  rig.conversation.Call(2, "echo", "{}", rig.now);
  const Sent first = rig.wire.Take("tools/call");
  const Sent second = rig.wire.Take("tools/call");
  Loss refused;
  refused.remedy = Loss::Remedy::kHold;
  rig.Lose(first.id, refused);
  rig.Lose(second.id, refused);
  // One wait: the driver is asked once, the stream stops, nothing fails.
  CHECK(rig.wire.asks == 1);
  CHECK(rig.wire.stops == 1);
  CHECK(rig.conversation.awaiting_authorization());
  CHECK(rig.conversation.status() == Status::kReady);
  rig.conversation.Call(3, "echo", "{}", rig.now);
  CHECK(rig.wire.sent.empty());  // a new call waits too
  rig.conversation.OnAuthorized(rig.now);
  CHECK(rig.wire.Take("tools/call").id == first.id);
  CHECK(rig.wire.Take("tools/call").id == second.id);
  rig.wire.Take("tools/call");
  CHECK(rig.out.calls.empty());
}

TEST_CASE("conversation over a fake wire: cancelling and deadlines tell the transport",
          "[conversation]") {
  Rig rig;
  rig.BringUp();
  rig.conversation.Call(1, "echo", "{}", rig.now);
  const Sent call = rig.wire.Take("tools/call");
  rig.conversation.Cancel(1, rig.now);
  REQUIRE(rig.wire.cancels.size() == 1);
  CHECK(rig.wire.cancels[0].id == call.id);
  CHECK(rig.wire.cancels[0].notice.find("notifications/cancelled") != std::string::npos);
  CHECK(rig.wire.cancels[0].notice.find("cancelled by the client") != std::string::npos);
  CHECK_FALSE(rig.wire.cancels[0].keep_reading);
  CHECK(rig.out.calls.empty());  // a dropped call is never answered

  // Deadlines are the conversation's own, whatever the transport.
  rig.conversation.Call(2, "echo", "{}", rig.now);
  rig.wire.Take("tools/call");
  REQUIRE(rig.conversation.NextWakeup() == rig.now + 5min);
  rig.now += 5min;
  rig.conversation.OnTimer(rig.now);
  REQUIRE(rig.out.calls.size() == 1);
  CHECK(rig.out.calls[0].outcome.text == "timed out after 5 min");
  CHECK(rig.wire.cancels.back().notice.find("timed out") != std::string::npos);
}

TEST_CASE("conversation over a fake wire: what the server sends unasked", "[conversation]") {
  Rig rig;
  rig.BringUp();
  // A ping is answered to the session it came from.
  rig.ServerSends(R"({"jsonrpc":"2.0","id":"p1","method":"ping"})", From{7, false});
  REQUIRE(rig.wire.replies.size() == 1);
  CHECK(rig.wire.replies[0].first == R"({"jsonrpc":"2.0","id":"p1","result":{}})");
  CHECK(rig.wire.replies[0].second == 7);
  // list_changed from a replaced session says nothing; from the current one
  // it lists again.
  rig.ServerSends(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})",
                  From{7, false});
  CHECK(rig.wire.sent.empty());
  rig.ServerSends(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})",
                  From{8, true});
  rig.Result(rig.wire.Take("tools/list").id,
             R"({"tools":[{"name":"echo","inputSchema":{}},{"name":"more","inputSchema":{}}]})");
  CHECK(rig.conversation.tools()->size() == 2);
}

TEST_CASE("conversation over a fake wire: shutdown fails the calls, then closes the transport",
          "[conversation]") {
  Rig rig;
  rig.BringUp();
  rig.conversation.Call(1, "echo", "{}", rig.now);
  rig.wire.Take("tools/call");
  rig.conversation.Shutdown(rig.now);
  REQUIRE(rig.out.calls.size() == 1);
  CHECK(rig.out.calls[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(rig.out.calls[0].outcome.text == "gateway shutting down");
  CHECK(rig.wire.closed);
  CHECK(rig.conversation.phase() == Phase::kClosed);
  // Nothing more goes out; a late answer finds nothing.
  rig.conversation.Call(2, "echo", "{}", rig.now);
  CHECK(rig.out.calls.back().outcome.text == "gateway shutting down");
  CHECK(rig.conversation.NextWakeup() == std::nullopt);
}

TEST_CASE("conversation over a fake wire: a failed handshake backs off and tries again",
          "[conversation]") {
  Rig rig;
  rig.conversation.Start(rig.now);
  rig.wire.Take("initialize");
  rig.conversation.listener()->OnAttemptFailed("connection refused", rig.now);
  rig.conversation.Publish();
  CHECK(rig.conversation.status() == Status::kError);
  CHECK(rig.conversation.reason() == "connection refused");
  CHECK(rig.wire.abandons.size() == 1);
  REQUIRE(rig.conversation.NextWakeup() == rig.now + 1s);
  rig.now += 1s;
  rig.conversation.OnTimer(rig.now);
  CHECK(rig.wire.begins == 2);
  rig.wire.Take("initialize");
}

}  // namespace
}  // namespace mcpgw::mcp
