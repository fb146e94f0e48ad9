// The session's protocol era (revision 2026-07-28 beside 2025-11-25): the
// server/discover probe and its verdicts, the stateless wire (headers, _meta,
// x-mcp-header, resultType, cancellation, subscriptions/listen, freshness),
// and a server that changes era while the session serves.
#include <catch2/catch.hpp>

#include "daemon/mcp/session_test_harness.h"

namespace mcpgw::mcp::testing {
namespace {

constexpr std::string_view kModern = "2026-07-28";

std::string DiscoverResult(bool list_changed = false) {
  return std::string(R"({"resultType":"complete","supportedVersions":["2026-07-28"],)") +
         R"("capabilities":{"tools":{"listChanged":)" + (list_changed ? "true" : "false") +
         R"(}},"ttlMs":0,"cacheScope":"public"})";
}

std::string ModernPage(const std::string& tools_json, int ttl_ms = 600000) {
  return R"({"resultType":"complete","tools":)" + tools_json + R"(,"ttlMs":)" +
         std::to_string(ttl_ms) + R"(,"cacheScope":"public"})";
}

const std::string kEchoTools =
    R"([{"name":"echo","inputSchema":{"type":"object","properties":{)"
    R"("text":{"type":"string"},"region":{"type":"string","x-mcp-header":"Region"},)"
    R"("count":{"type":"integer","x-mcp-header":"Count"}}}},)"
    R"({"name":"bad","inputSchema":{"type":"object","properties":{)"
    R"("v":{"type":"object","x-mcp-header":"V"}}}}])";

std::string Error(int64_t id, int code, const std::string& message, const std::string& data = "") {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"error":{"code":)" +
         std::to_string(code) + R"(,"message":")" + message + "\"" +
         (data.empty() ? "" : ",\"data\":" + data) + "}}";
}

// Checks what every modern POST carries: the version header, Mcp-Method
// matching the body, the revision's _meta, and no session.
void CheckModernPost(const StartTransfer& t, const std::string& method) {
  INFO(t.body);
  CHECK(HeaderOf(t, "MCP-Protocol-Version") == kModern);
  CHECK(HeaderOf(t, "Mcp-Method") == method);
  CHECK(HeaderOf(t, "Mcp-Session-Id") == "<none>");
  CHECK(HeaderOf(t, "Accept") == "application/json, text/event-stream");
  rapidjson::Document doc = ParseJson(t.body);
  REQUIRE(doc["params"].HasMember("_meta"));
  const rapidjson::Value& meta = doc["params"]["_meta"];
  CHECK(meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28");
  CHECK(meta["io.modelcontextprotocol/clientInfo"]["name"] == "mcpgw");
  CHECK(meta["io.modelcontextprotocol/clientCapabilities"].ObjectEmpty());
}

// Start, probe (answered modern), list `tools_json`: ready on the modern wire.
void BringUpModern(Harness& h, const std::string& tools_json = kEchoTools,
                   bool list_changed = false, int ttl_ms = 600000) {
  h.session.Start(h.now);
  StartTransfer probe = h.NextPost("server/discover");
  CheckModernPost(probe, "server/discover");
  h.RespondJson(probe, DiscoverResult(list_changed));
  StartTransfer list = h.NextPost("tools/list");
  CheckModernPost(list, "tools/list");
  h.RespondJson(list, ModernPage(tools_json, ttl_ms));
  REQUIRE(h.session.status() == Status::kReady);
  REQUIRE(h.session.protocol_version() == kModern);
  h.state_changes = 0;
}

TEST_CASE("era: a modern server is probed with server/discover and never initialized",
          "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  CHECK(Names(h.session) == std::vector<std::string>{"echo"});  // "bad" left out
  CHECK(h.Logged("tool \"bad\" left out"));
  // Nothing else: no initialize, no GET stream, no subscription (the server
  // did not say it sends list_changed).
  h.Pump();
  CHECK(h.starts.empty());
}

TEST_CASE("era: 2025 servers fall back to initialize whatever they make of the probe",
          "[session][era]") {
  struct Case {
    const char* name;
    int status;
    const char* type;
    std::string body;  // "%ID%" becomes the probe's id
  };
  const Case cases[] = {
      {"SDK 400 before initialize", 400, "application/json",
       R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}})"},
      {"empty result", 200, "application/json", R"({"jsonrpc":"2.0","id":%ID%,"result":{}})"},
      {"method not found", 200, "application/json",
       R"({"jsonrpc":"2.0","id":%ID%,"error":{"code":-32601,"message":"Method not found"}})"},
      {"an error on an SSE stream", 200, "text/event-stream",
       "data: "
       "{\"jsonrpc\":\"2.0\",\"id\":%ID%,\"error\":{\"code\":-32601,\"message\":\"no\"}}\n\n"},
      {"404", 404, "text/plain", "Not Found"},
      {"405", 405, "", ""},
      {"400 without a body", 400, "", ""},
      {"invalid JSON", 200, "application/json", "{not json"},
      {"202", 202, "", ""},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Harness h({}, "");
      h.session.Start(h.now);
      StartTransfer probe = h.NextPost("server/discover");
      std::string body = c.body;
      const auto at = body.find("%ID%");
      if (at != std::string::npos) body.replace(at, 4, std::to_string(RpcIdOf(probe)));
      h.Respond(probe.id, c.status, c.type, body);
      StartTransfer init = h.NextPost("initialize");
      CHECK(HeaderOf(init, "Mcp-Method") == "<none>");
      CHECK(HeaderOf(init, "MCP-Protocol-Version") == "<none>");
      CHECK_FALSE(ParseJson(init.body)["params"].HasMember("_meta"));
      h.RespondJson(init, InitResult(), "sid-1");
      h.Accept202(h.NextPost("notifications/initialized").id);
      StartTransfer list = h.NextPost("tools/list");
      CHECK(HeaderOf(list, "Mcp-Session-Id") == "sid-1");
      CHECK(HeaderOf(list, "Mcp-Method") == "<none>");
      h.RespondJson(list, ToolsPage({"echo"}));
      CHECK(h.session.status() == Status::kReady);
      CHECK(h.session.protocol_version() == "2025-11-25");
      CHECK(h.HasStart(HttpMethod::kGet));  // the legacy GET stream
    }
  }
}

TEST_CASE("era: a server that does not answer the probe is taken for a 2025 one",
          "[session][era]") {
  Harness h({}, "");
  h.session.Start(h.now);
  h.NextPost("server/discover");
  h.Advance(std::chrono::seconds(9));
  h.Pump();
  CHECK(h.starts.empty());
  h.Advance(std::chrono::seconds(1));
  h.NextPost("initialize");
}

TEST_CASE("era: a refused version is asked again once, at a version the server lists",
          "[session][era]") {
  Harness h({}, "");
  h.session.Start(h.now);
  StartTransfer first = h.NextPost("server/discover");
  const std::string data = R"({"supported":["2026-07-28"],"requested":"2026-07-28"})";
  h.Respond(first.id, 400, "application/json",
            Error(RpcIdOf(first), -32022, "Unsupported protocol version", data));
  StartTransfer second = h.NextPost("server/discover");
  CheckModernPost(second, "server/discover");
  CHECK(RpcIdOf(second) != RpcIdOf(first));

  SECTION("then answered") {
    h.RespondJson(second, DiscoverResult());
    h.RespondJson(h.NextPost("tools/list"), ModernPage("[]"));
    CHECK(h.session.status() == Status::kReady);
  }
  SECTION("refused again: the attempt fails and the next one probes again") {
    h.Respond(second.id, 400, "application/json",
              Error(RpcIdOf(second), -32022, "Unsupported protocol version", data));
    CHECK(h.session.status() == Status::kError);
    CHECK_THAT(h.session.reason(), Catch::Contains("refused protocol version 2026-07-28"));
    h.Advance(std::chrono::seconds(1));
    h.NextPost("server/discover");
  }
  SECTION("a server of only 2025 versions is initialized") {
    h.Respond(second.id, 400, "application/json",
              Error(RpcIdOf(second), -32022, "Unsupported protocol version",
                    R"({"supported":["2025-11-25"]})"));
    h.NextPost("initialize");
  }
}

TEST_CASE("era: a modern server that needs capabilities the gateway lacks is an error",
          "[session][era]") {
  Harness h({}, "");
  h.session.Start(h.now);
  StartTransfer probe = h.NextPost("server/discover");
  h.Respond(probe.id, 400, "application/json",
            Error(RpcIdOf(probe), -32021, "elicitation required",
                  R"({"requiredCapabilities":{"elicitation":{}}})"));
  CHECK(h.session.status() == Status::kError);
  CHECK(h.session.reason() == "server/discover refused: error -32021: elicitation required");
  h.Pump();
  CHECK(h.starts.empty());  // never initialize
}

TEST_CASE("era: calls on the modern wire carry Mcp-Name, Mcp-Param-* and _meta", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  const std::string args = R"({"text":"hi", "region":"Zürich ","count":3})";
  h.session.Call(1, "echo", args, h.now);
  StartTransfer call = h.NextPost("tools/call");
  CheckModernPost(call, "tools/call");
  CHECK(HeaderOf(call, "Mcp-Name") == "echo");
  CHECK(HeaderOf(call, "Mcp-Param-Region") == "=?base64?WsO8cmljaCA=?=");
  CHECK(HeaderOf(call, "Mcp-Param-Count") == "3");
  // The arguments keep the host's bytes.
  CHECK(call.body.find(R"("arguments":{"text":"hi", "region":"Zürich ","count":3})") !=
        std::string::npos);
  h.RespondJson(call, R"({"resultType":"complete","content":[{"type":"text","text":"echo: hi"}]})");
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kNone);
  CHECK(h.finished[0].outcome.text == "echo: hi");
  CHECK(h.finished[0].outcome.request_params.find("\"_meta\"") != std::string::npos);

  SECTION("a null or absent annotated argument sends no header") {
    h.session.Call(2, "echo", R"({"text":"x","region":null})", h.now);
    StartTransfer second = h.NextPost("tools/call");
    CHECK(HeaderOf(second, "Mcp-Param-Region") == "<none>");
    CHECK(HeaderOf(second, "Mcp-Param-Count") == "<none>");
  }
}

TEST_CASE("era: resultType decides what a call's result is", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  SECTION("input required: the gateway cannot give input") {
    h.RespondJson(call, R"({"resultType":"input_required","inputRequests":{"a":)"
                        R"({"method":"elicitation/create","params":{}}},"requestState":"s"})");
    REQUIRE(h.finished.size() == 1);
    CHECK(h.finished[0].outcome.kind == CallErrorKind::kBackend);
    CHECK_THAT(h.finished[0].outcome.text,
               Catch::Contains("needs interactive input that the gateway cannot give") &&
                   Catch::Contains("elicitation/create"));
  }
  SECTION("an unknown result type is invalid") {
    h.RespondJson(call, R"({"resultType":"task","content":[]})");
    REQUIRE(h.finished.size() == 1);
    CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  }
  SECTION("absent means complete") {
    h.RespondJson(call, R"({"content":[{"type":"text","text":"ok"}]})");
    REQUIRE(h.finished.size() == 1);
    CHECK(h.finished[0].outcome.text == "ok");
  }
}

TEST_CASE("era: cancelling on the modern wire closes the stream and sends nothing",
          "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.Head(call.id, 200, "text/event-stream");

  SECTION("the host cancels") { h.session.Cancel(1, h.now); }
  SECTION("the deadline passes") { h.Advance(std::chrono::minutes(5)); }
  CHECK(h.Aborted(call.id));
  h.Pump();
  for (const StartTransfer& t : h.starts) CHECK(MethodOf(t) != "notifications/cancelled");
}

TEST_CASE("era: a modern server that is down is retried 1 s, then 2 s later, and probed each time",
          "[session][era]") {
  Harness h({}, "");
  h.session.Start(h.now);
  h.Done(h.NextPost("server/discover").id, "connection refused", false);
  REQUIRE(h.session.status() == Status::kError);
  CHECK_THAT(h.session.reason(), Catch::Contains("connection refused"));
  h.Advance(std::chrono::milliseconds(999));
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  h.Advance(std::chrono::milliseconds(1));
  StartTransfer probe = h.NextPost("server/discover");
  CheckModernPost(probe, "server/discover");
  h.Done(probe.id, "connection refused", false);
  h.Advance(std::chrono::milliseconds(1999));
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  h.Advance(std::chrono::milliseconds(1));
  h.RespondJson(h.NextPost("server/discover"), DiscoverResult());
  h.RespondJson(h.NextPost("tools/list"), ModernPage(kEchoTools));
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.session.protocol_version() == kModern);
  CHECK_FALSE(h.HasStart(HttpMethod::kGet));  // no session, no GET stream
}

TEST_CASE("era: a failed call on the modern wire leaves the server ready for the next one",
          "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  h.session.Call(1, "echo", "{}", h.now);
  h.Done(h.NextPost("tools/call").id, "connection reset");
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(h.session.status() == Status::kReady);
  // The next call goes out as it is: no probe, no initialize, no session.
  h.session.Call(2, "echo", "{}", h.now);
  StartTransfer next = h.NextPost("tools/call");
  CheckModernPost(next, "tools/call");
  CHECK(h.starts.empty());
  h.RespondJson(next, R"({"content":[{"type":"text","text":"back"}]})");
  REQUIRE(h.finished.size() == 2);
  CHECK(h.finished[1].outcome.text == "back");
}

TEST_CASE("era: shutting down a modern session sends no DELETE", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  h.session.Shutdown(h.now);
  CHECK_FALSE(h.HasStart(HttpMethod::kDelete));
}

TEST_CASE("era: a 2025 server that upgrades to 2026-07-28 is probed again", "[session][era]") {
  Harness h;  // known legacy
  h.BringUp({"echo"});
  h.session.Call(1, "echo", R"({"text":"after"})", h.now);
  StartTransfer first = h.NextPost("tools/call");
  CHECK(HeaderOf(first, "Mcp-Session-Id") == "sid-1");
  // The upgraded server refuses a request without the revision's headers.
  h.Respond(first.id, 400, "application/json",
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Header mismatch"}})");
  CHECK(h.finished.empty());
  CHECK(h.session.status() == Status::kReady);
  h.Respond(h.Next(HttpMethod::kDelete).id, 405, "", "");  // the old session, abandoned
  StartTransfer probe = h.NextPost("server/discover");
  h.RespondJson(probe, DiscoverResult());
  h.RespondJson(h.NextPost("tools/list"), ModernPage(kEchoTools));
  // The refused call goes out once more, on the modern wire.
  StartTransfer again = h.NextPost("tools/call");
  CheckModernPost(again, "tools/call");
  h.RespondJson(again, R"({"content":[{"type":"text","text":"echo: after"}]})");
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.text == "echo: after");
  CHECK(h.session.protocol_version() == kModern);
  CHECK(h.state_changes > 0);
}

TEST_CASE("era: a modern server that is a 2025 one again is initialized", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  h.session.Call(1, "echo", R"({"text":"x"})", h.now);
  StartTransfer first = h.NextPost("tools/call");
  h.Respond(
      first.id, 400, "application/json",
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}})");
  StartTransfer probe = h.NextPost("server/discover");
  h.Respond(probe.id, 400, "application/json",
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}})");
  h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-9");
  h.Accept202(h.NextPost("notifications/initialized").id);
  h.RespondJson(h.NextPost("tools/list"), ToolsPage({"echo"}));
  StartTransfer again = h.NextPost("tools/call");
  CHECK(HeaderOf(again, "Mcp-Session-Id") == "sid-9");
  CHECK_FALSE(ParseJson(again.body)["params"].HasMember("_meta"));
  h.RespondJson(again, R"({"content":[{"type":"text","text":"legacy"}]})");
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.text == "legacy");
  CHECK(h.session.protocol_version() == "2025-11-25");
}

TEST_CASE("era: a call refused twice fails and is never sent a third time", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  h.session.Call(1, "echo", "{}", h.now);
  const std::string mismatch =
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Header mismatch: Mcp-Param-Region"}})";
  h.Respond(h.NextPost("tools/call").id, 400, "application/json", mismatch);
  h.RespondJson(h.NextPost("server/discover"), DiscoverResult());
  h.RespondJson(h.NextPost("tools/list"), ModernPage(kEchoTools));
  h.Respond(h.NextPost("tools/call").id, 400, "application/json", mismatch);
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK_THAT(h.finished[0].outcome.text, Catch::Contains("-32020"));
  h.Pump();
  for (const StartTransfer& t : h.starts) CHECK(MethodOf(t) != "tools/call");
}

TEST_CASE("era: the modern wire's error answers", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h);
  h.session.Call(1, "echo", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  SECTION("a 404 carrying a JSON-RPC error is the server's answer") {
    h.Respond(call.id, 404, "application/json",
              Error(RpcIdOf(call), -32601, "Method not found: tools/call"));
    REQUIRE(h.finished.size() == 1);
    CHECK(h.finished[0].outcome.kind == CallErrorKind::kBackend);
    CHECK(h.finished[0].outcome.text == "error -32601: Method not found: tools/call");
  }
  SECTION("a missing client capability is the server's refusal") {
    h.Respond(call.id, 400, "application/json",
              Error(RpcIdOf(call), -32021, "needs sampling",
                    R"({"requiredCapabilities":{"sampling":{}}})"));
    REQUIRE(h.finished.size() == 1);
    CHECK(h.finished[0].outcome.kind == CallErrorKind::kBackend);
    CHECK_THAT(h.finished[0].outcome.text, Catch::Contains("client capabilities"));
  }
  SECTION("other statuses are transport errors") {
    h.Respond(call.id, 500, "application/json", Error(RpcIdOf(call), -32603, "boom"));
    REQUIRE(h.finished.size() == 1);
    CHECK(h.finished[0].outcome.kind == CallErrorKind::kTransport);
    CHECK(h.finished[0].outcome.text == "HTTP 500 from server");
  }
}

TEST_CASE("era: list_changed arrives on a subscriptions/listen stream", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h, kEchoTools, /*list_changed=*/true);
  StartTransfer listen = h.NextPost("subscriptions/listen");
  CheckModernPost(listen, "subscriptions/listen");
  CHECK(listen.long_lived);  // held open: a small receive buffer
  CHECK(ParseJson(listen.body)["params"]["notifications"]["toolsListChanged"].GetBool());
  h.Head(listen.id, 200, "text/event-stream");
  h.Data(
      listen.id,
      SseMessage(
          R"({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true}}})"));
  h.Pump();
  CHECK(h.starts.empty());
  h.Data(listen.id, SseMessage(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})"));
  h.RespondJson(
      h.NextPost("tools/list"),
      ModernPage(R"([{"name":"echo","inputSchema":{}},{"name":"new","inputSchema":{}}])"));
  CHECK(Names(h.session) == std::vector<std::string>{"echo", "new"});

  SECTION("a stream the server ends is opened again after a pause") {
    h.Done(listen.id);
    h.Pump();
    CHECK(h.starts.empty());
    h.Advance(std::chrono::seconds(1));
    h.NextPost("subscriptions/listen");
  }
}

TEST_CASE("era: a server that refuses subscriptions/listen is not asked again", "[session][era]") {
  Harness h({}, "");
  BringUpModern(h, kEchoTools, /*list_changed=*/true);
  StartTransfer listen = h.NextPost("subscriptions/listen");
  h.Respond(listen.id, 404, "application/json", Error(RpcIdOf(listen), -32601, "Method not found"));
  h.Advance(std::chrono::minutes(5));
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
}

TEST_CASE("era: a stale listing is fetched again on the next call", "[session][era]") {
  SECTION("ttlMs 0: stale at once, but not listed on every call") {
    Harness h({}, "");
    BringUpModern(h, kEchoTools, false, /*ttl_ms=*/0);
    h.session.Call(1, "echo", "{}", h.now);
    h.NextPost("tools/call");
    h.Pump();
    CHECK(h.starts.empty());  // listed a moment ago
    h.Advance(std::chrono::seconds(11));
    h.session.Call(2, "echo", "{}", h.now);
    h.NextPost("tools/call");
    h.NextPost("tools/list");
  }
  SECTION("a long ttlMs keeps the listing") {
    Harness h({}, "");
    BringUpModern(h, kEchoTools, false, /*ttl_ms=*/600000);
    h.Advance(std::chrono::minutes(9));
    h.session.Call(1, "echo", "{}", h.now);
    h.NextPost("tools/call");
    h.Pump();
    CHECK(h.starts.empty());
    h.Advance(std::chrono::minutes(2));
    h.session.Call(2, "echo", "{}", h.now);
    h.NextPost("tools/call");
    h.NextPost("tools/list");
  }
}

TEST_CASE("era: a known 2025 server refusing initialize like a modern one is probed",
          "[session][era]") {
  Harness h;  // the cache says 2025-11-25
  h.session.Start(h.now);
  StartTransfer init = h.NextPost("initialize");
  h.Respond(
      init.id, 400, "application/json",
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"MCP-Protocol-Version is missing"}})");
  h.RespondJson(h.NextPost("server/discover"), DiscoverResult());
  h.RespondJson(h.NextPost("tools/list"), ModernPage("[]"));
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.session.protocol_version() == kModern);
}

TEST_CASE("era: a refused probe waits for authorization and is sent again", "[session][era]") {
  Harness h({}, "");
  h.answer_authorization = false;
  h.session.Start(h.now);
  StartTransfer probe = h.NextPost("server/discover");
  h.Respond(probe.id, 401, "application/json", "{}", "", "Bearer");
  REQUIRE(h.auth_needed.size() == 1);
  CHECK(h.session.status() == Status::kLoading);
  h.session.OnAuthorized(h.now);
  h.Pump();
  StartTransfer again = h.NextPost("server/discover");
  h.RespondJson(again, DiscoverResult());
  h.RespondJson(h.NextPost("tools/list"), ModernPage("[]"));
  CHECK(h.session.status() == Status::kReady);
}

}  // namespace
}  // namespace mcpgw::mcp::testing
