// Session lifecycle (BEHAVIOR.md §3, §6): handshake, headers, versions, back-off,
// the first-attempt bound, tool listing and re-listing.
#include "daemon/mcp/session_test_harness.h"

namespace mcpgw::mcp::testing {
namespace {

TEST_CASE("session: handshake, then tools listed, then ready", "[session]") {
  Harness h;
  CHECK(h.session.status() == Status::kLoading);
  CHECK(h.session.tools()->empty());
  h.session.Start(h.now);

  StartTransfer init = h.NextPost("initialize");
  CHECK(init.server->url.Reveal() == "https://mcp.example.test/mcp");
  CHECK(HeaderOf(init, "Accept") == "application/json, text/event-stream");
  CHECK(HeaderOf(init, "Content-Type") == "application/json");
  CHECK(HeaderOf(init, "Mcp-Session-Id") == "<none>");
  CHECK(HeaderOf(init, "MCP-Protocol-Version") == "<none>");
  rapidjson::Document body = ParseJson(init.body);
  CHECK(std::string(body["jsonrpc"].GetString()) == "2.0");
  CHECK(std::string(body["params"]["protocolVersion"].GetString()) == "2025-11-25");
  CHECK(body["params"]["capabilities"].IsObject());
  CHECK(body["params"]["capabilities"].MemberCount() == 0);
  CHECK(std::string(body["params"]["clientInfo"]["name"].GetString()) == "mcpgw");
  CHECK(body["params"]["clientInfo"]["version"].IsString());
  CHECK(h.session.status() == Status::kLoading);

  h.RespondJson(init, InitResult(), "sid-1");
  CHECK(h.session.protocol_version() == "2025-11-25");
  StartTransfer initialized = h.NextPost("notifications/initialized");
  CHECK(HeaderOf(initialized, "Accept") == "application/json, text/event-stream");
  CHECK(HeaderOf(initialized, "Mcp-Session-Id") == "sid-1");
  CHECK(HeaderOf(initialized, "MCP-Protocol-Version") == "2025-11-25");
  CHECK(h.starts.empty());  // tools/list waits for the 202
  h.Accept202(initialized.id);

  StartTransfer list = h.NextPost("tools/list");
  CHECK(HeaderOf(list, "Accept") == "application/json, text/event-stream");
  CHECK(HeaderOf(list, "Mcp-Session-Id") == "sid-1");
  CHECK(HeaderOf(list, "MCP-Protocol-Version") == "2025-11-25");
  CHECK(RpcIdOf(list) != RpcIdOf(init));
  CHECK(h.state_changes == 0);
  h.RespondJson(list, ToolsPage({"zeta", "add", "echo", "add"}));

  CHECK(h.session.status() == Status::kReady);
  CHECK(h.session.reason().empty());
  CHECK(Names(h.session) == std::vector<std::string>{"add", "echo", "zeta"});
  CHECK(h.state_changes == 1);
  // The standalone stream for server notifications: its head is due in 2 min.
  CHECK(h.session.NextWakeup() == h.now + 2min);
  StartTransfer get = h.Next(HttpMethod::kGet);
  // Held open for as long as the session: the transport reads it through a
  // small buffer; requests get the usual one.
  CHECK(get.long_lived);
  CHECK_FALSE(list.long_lived);
  CHECK_FALSE(init.long_lived);
  CHECK(HeaderOf(get, "Accept") == "text/event-stream");
  CHECK(HeaderOf(get, "Mcp-Session-Id") == "sid-1");
  CHECK(HeaderOf(get, "MCP-Protocol-Version") == "2025-11-25");
}

TEST_CASE("session: a server without session ids gets no Mcp-Session-Id", "[session]") {
  Harness h;
  h.BringUp({"echo"}, "");
  CHECK(HeaderOf(h.listen, "Mcp-Session-Id") == "<none>");
  CHECK(HeaderOf(h.listen, "MCP-Protocol-Version") == "2025-11-25");
}

TEST_CASE("session: accepts the three protocol versions", "[session]") {
  const std::string version = GENERATE("2025-11-25", "2025-06-18", "2025-03-26");
  Harness h;
  h.session.Start(h.now);
  h.RespondJson(h.NextPost("initialize"), InitResult(version), "sid-1");
  StartTransfer initialized = h.NextPost("notifications/initialized");
  CHECK(HeaderOf(initialized, "MCP-Protocol-Version") == version);
  h.Accept202(initialized.id);
  h.RespondJson(h.NextPost("tools/list"), ToolsPage({"echo"}));
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.session.protocol_version() == version);
}

TEST_CASE("session: refuses another protocol version, naming it", "[session]") {
  Harness h;
  h.session.Start(h.now);
  h.RespondJson(h.NextPost("initialize"), InitResult("2024-11-05"), "sid-1");
  CHECK(h.session.status() == Status::kError);
  CHECK(h.session.reason() == "server answered unsupported protocol version \"2024-11-05\"");
  CHECK(h.state_changes == 1);
  // The server made a session all the same: it is not left behind.
  StartTransfer del = h.Next(HttpMethod::kDelete);
  CHECK(HeaderOf(del, "Mcp-Session-Id") == "sid-1");
  CHECK(h.starts.empty());
  h.Respond(del.id, 204, "", "");
  CHECK(h.session.NextWakeup() == h.now + 1s);
}

TEST_CASE("session: HTTP errors and redirects fail the attempt", "[session]") {
  Harness h;
  h.session.Start(h.now);
  SECTION("401") {
    h.Respond(h.NextPost("initialize").id, 401, "text/plain", "denied");
    CHECK(h.session.reason() == "HTTP 401 from server");
  }
  SECTION("302") {
    StartTransfer init = h.NextPost("initialize");
    h.Head(init.id, 302, "text/html");
    CHECK(h.Aborted(init.id));
    CHECK(h.session.reason() == "redirect refused (HTTP 302)");
  }
  SECTION("connection refused") {
    h.Done(h.NextPost("initialize").id, "connection refused");
    CHECK(h.session.reason() == "connection refused");
  }
  SECTION("JSON-RPC error") {
    StartTransfer init = h.NextPost("initialize");
    h.Respond(init.id, 200, "application/json",
              "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(RpcIdOf(init)) +
                  ",\"error\":{\"code\":-32602,\"message\":\"bad\\u0007 version\"}}");
    CHECK(h.session.reason() == "initialize failed: error -32602: bad version");
  }
  SECTION("initialized refused") {
    h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-1");
    h.Respond(h.NextPost("notifications/initialized").id, 400, "text/plain", "");
    CHECK(h.session.reason() == "HTTP 400 from server");
  }
  CHECK(h.session.status() == Status::kError);
  CHECK(h.session.reason().find("s3cr3t") == std::string::npos);
}

TEST_CASE("session: retries 1, 2, 4 ... 60 s after failures, for ever", "[session]") {
  Harness h;
  h.session.Start(h.now);
  const std::vector<int> expected = {1, 2, 4, 8, 16, 32, 60, 60, 60};
  for (int seconds : expected) {
    StartTransfer init = h.NextPost("initialize");
    h.now += 3s;  // the attempt itself takes a while: delays count from the failure
    h.Done(init.id, "connection refused");
    CHECK(h.session.status() == Status::kError);
    CHECK(h.session.reason() == "connection refused");
    REQUIRE(h.session.NextWakeup() == h.now + std::chrono::seconds(seconds));
    h.Advance(std::chrono::seconds(seconds) - 1ms);
    CHECK_FALSE(h.HasStart(HttpMethod::kPost));
    h.Advance(1ms);
    CHECK(h.HasStart(HttpMethod::kPost));
    CHECK(h.session.status() == Status::kError);  // retrying still shows the error
  }
  CHECK(h.state_changes == 1);  // the reason never changed

  // The next attempt succeeds: ready, and the back-off starts over.
  h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-9");
  h.Accept202(h.NextPost("notifications/initialized").id);
  h.RespondJson(h.NextPost("tools/list"), ToolsPage({"echo"}));
  CHECK(h.session.status() == Status::kReady);
  CHECK(h.session.reason().empty());
  CHECK(h.state_changes == 2);
}

TEST_CASE("session: a new reason during retries is a state change", "[session]") {
  Harness h;
  h.session.Start(h.now);
  h.Done(h.NextPost("initialize").id, "connection refused");
  h.Advance(1s);
  h.Respond(h.NextPost("initialize").id, 503, "text/plain", "");
  CHECK(h.session.reason() == "HTTP 503 from server");
  CHECK(h.state_changes == 2);
  CHECK(h.session.NextWakeup() == h.now + 2s);
}

TEST_CASE("session: the first attempt is bounded by 2 minutes", "[session]") {
  Harness h;
  const TimePoint start = h.now;
  h.session.Start(h.now);
  TransferId hung = 0;
  std::string doing;
  SECTION("initializing") {
    hung = h.NextPost("initialize").id;
    doing = "initializing";
  }
  SECTION("listing tools") {
    h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-1");
    h.now += 30s;
    h.Accept202(h.NextPost("notifications/initialized").id);
    StartTransfer first = h.NextPost("tools/list");
    h.RespondJson(first, ToolsPage({"a"}, "next"));
    hung = h.NextPost("tools/list").id;
    doing = "listing tools";
  }
  CHECK(h.session.NextWakeup() == start + 2min);
  h.Advance(start + 2min - 1ms - h.now);
  CHECK(h.session.status() == Status::kLoading);
  CHECK_FALSE(h.Aborted(hung));
  h.Advance(1ms);
  CHECK(h.session.status() == Status::kError);
  CHECK(h.session.reason() == "timed out after 2 min " + doing);
  CHECK(h.Aborted(hung));
  if (doing == "listing tools") {
    // The abandoned session is DELETEd.
    StartTransfer del = h.Next(HttpMethod::kDelete);
    CHECK(HeaderOf(del, "Mcp-Session-Id") == "sid-1");
    h.Respond(del.id, 204, "", "");
  }
  CHECK(h.session.NextWakeup() == h.now + 1s);
  // The retry is a fresh initialize with its own 2 minutes.
  h.Advance(1s);
  StartTransfer retry = h.NextPost("initialize");
  CHECK(HeaderOf(retry, "Mcp-Session-Id") == "<none>");
  CHECK(h.session.NextWakeup() == h.now + 2min);
}

TEST_CASE("session: tools/list pages follow nextCursor", "[session]") {
  Harness h;
  h.session.Start(h.now);
  h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-1");
  h.Accept202(h.NextPost("notifications/initialized").id);
  StartTransfer p1 = h.NextPost("tools/list");
  CHECK_FALSE(ParseJson(p1.body).HasMember("params"));
  h.RespondJson(p1, ToolsPage({"m", "z"}, "c1"));
  StartTransfer p2 = h.NextPost("tools/list");
  CHECK(std::string(ParseJson(p2.body)["params"]["cursor"].GetString()) == "c1");
  h.RespondJson(p2, ToolsPage({"a", "m"}, "c2"));
  CHECK(h.session.status() == Status::kLoading);
  StartTransfer p3 = h.NextPost("tools/list");
  CHECK(std::string(ParseJson(p3.body)["params"]["cursor"].GetString()) == "c2");
  h.RespondJson(p3, ToolsPage({"b"}));
  CHECK(h.session.status() == Status::kReady);
  CHECK(Names(h.session) == std::vector<std::string>{"a", "b", "m", "z"});
}

TEST_CASE("session: listing bounds", "[session]") {
  SessionLimits limits;
  limits.max_tools = 3;
  limits.max_list_pages = 2;
  Harness h(limits);
  h.session.Start(h.now);
  h.RespondJson(h.NextPost("initialize"), InitResult(), "sid-1");
  h.Accept202(h.NextPost("notifications/initialized").id);
  SECTION("repeated cursor") {
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"a"}, "same"));
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"b"}, "same"));
    CHECK(h.session.reason() == "listing repeated cursor");
  }
  SECTION("too many tools") {
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"a", "b"}, "c1"));
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"c", "d"}));
    CHECK(h.session.reason() == "server lists more than 3 tools");
  }
  SECTION("too many pages") {
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"a"}, "c1"));
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"b"}, "c2"));
    CHECK(h.session.reason() == "server lists more than 2 pages of tools");
    CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  }
  SECTION("exactly at the bounds is fine") {
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"a"}, "c1"));
    h.RespondJson(h.NextPost("tools/list"), ToolsPage({"b", "c"}));
    CHECK(h.session.reason().empty());
    CHECK(h.session.status() == Status::kReady);
    return;
  }
  CHECK(h.session.status() == Status::kError);
}

TEST_CASE("session: list_changed re-lists tools in the background", "[session]") {
  Harness h;
  h.BringUp({"echo"});
  h.Head(h.listen.id, 200, "text/event-stream");
  h.Data(h.listen.id,
         SseMessage("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}"));
  StartTransfer list = h.NextPost("tools/list");
  CHECK(HeaderOf(list, "Mcp-Session-Id") == "sid-1");
  SECTION("new tools") {
    h.RespondJson(list, ToolsPage({"echo", "add"}));
    CHECK(h.state_changes == 1);
    CHECK(Names(h.session) == std::vector<std::string>{"add", "echo"});
  }
  SECTION("same tools: no change") {
    h.RespondJson(list, ToolsPage({"echo"}));
    CHECK(h.state_changes == 0);
  }
  SECTION("a failed re-list keeps the old tools") {
    h.Respond(list.id, 500, "text/plain", "");
    CHECK(h.state_changes == 0);
    CHECK(Names(h.session) == std::vector<std::string>{"echo"});
  }
  SECTION("a re-list that hangs times out") {
    h.Advance(2min);
    CHECK(h.Aborted(list.id));
    CHECK(Names(h.session) == std::vector<std::string>{"echo"});
  }
  CHECK(h.session.status() == Status::kReady);
}

TEST_CASE("session: list_changed during a listing lists once more after it", "[session]") {
  Harness h;
  h.BringUp({"echo"});
  h.Head(h.listen.id, 200, "text/event-stream");
  const std::string changed =
      SseMessage("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
  h.Data(h.listen.id, changed);
  StartTransfer first = h.NextPost("tools/list");
  h.Data(h.listen.id, changed);
  h.Data(h.listen.id, changed);
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
  h.RespondJson(first, ToolsPage({"echo", "one"}));
  StartTransfer second = h.NextPost("tools/list");
  h.RespondJson(second, ToolsPage({"echo", "two"}));
  CHECK(Names(h.session) == std::vector<std::string>{"echo", "two"});
  CHECK(h.state_changes == 2);
  CHECK_FALSE(h.HasStart(HttpMethod::kPost));
}

TEST_CASE("session: the standalone stream", "[session]") {
  Harness h;
  h.BringUp();
  SECTION("405: none, and never asked again") {
    h.Respond(h.listen.id, 405, "text/plain", "");
    CHECK_FALSE(h.session.NextWakeup().has_value());
    h.Advance(10min);
    CHECK_FALSE(h.HasStart(HttpMethod::kGet));
  }
  SECTION("errors reopen it with back-off") {
    h.Done(h.listen.id, "connection reset");
    CHECK(h.session.NextWakeup() == h.now + 1s);
    h.Advance(1s);
    StartTransfer again = h.Next(HttpMethod::kGet);
    h.Respond(again.id, 500, "text/plain", "");
    CHECK(h.session.NextWakeup() == h.now + 2s);
  }
  CHECK(h.session.status() == Status::kReady);
}

TEST_CASE("session: unknown transfer ids and early timers are harmless", "[session]") {
  Harness h;
  h.session.OnTimer(h.now);
  h.session.Start(h.now);
  h.session.OnResponseHead(999, ResponseHead{200, "application/json", "x", "", ""}, h.now);
  h.session.OnResponseData(999, "{}", h.now);
  h.session.OnTransferDone(999, TransferResult{}, h.now);
  h.session.OnTimer(h.now);
  h.NextPost("initialize");
  h.Pump();
  CHECK(h.starts.empty());
  CHECK(h.aborts.empty());
  CHECK(h.session.status() == Status::kLoading);
}

}  // namespace
}  // namespace mcpgw::mcp::testing
