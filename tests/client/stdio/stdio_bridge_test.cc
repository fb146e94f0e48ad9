// `mcpgw stdio`: the MCP server side of the bridge, driven line by line against a fake
// daemon whose requests finish when the test says (the bridge is single-threaded and passive,
// so every test here is deterministic).
#include <map>
#include <memory>
#include <set>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "client/stdio/stdio_bridge.h"
#include "client/stdio/stdio_messages.h"
#include "proto/mcp_versions.h"

namespace mcpgw::cli {
namespace {

// Scripted daemon. Process() answers every request but those to namespaces "slow*", which
// wait for Release(ns); a cancelled request is answered MCPGW_CANCELLED, as libmcpgw does.
class FakeApi : public AsyncDaemonApi {
 public:
  struct Started {
    RequestId id = 0;
    bool call = false;
    std::optional<std::string> ns, tool;
    std::string arguments;
    Done done;
    bool cancelled = false;
    bool finished = false;
  };

  RequestId StartGetDynamicTools(const ToolsRequest& request, Done done) override {
    last_get_ns = request.ns;
    last_get_tool = request.tool;
    last_get = request;
    ++gets;
    return Add(Started{0, false, request.ns, request.tool, "", std::move(done)});
  }
  RequestId StartCallDynamicTool(const std::string& ns, const std::string& tool,
                                 std::string_view arguments_json, long long max_text_bytes,
                                 Done done) override {
    last_call = ns + "/" + tool + " " + std::string(arguments_json);
    last_max_text_bytes = max_text_bytes;
    return Add(Started{0, true, ns, tool, std::string(arguments_json), std::move(done)});
  }
  void Cancel(RequestId id) override {
    for (Started& s : started_) {
      if (s.id == id && !s.finished) {
        s.cancelled = true;
        cancelled.insert(s.ns.value_or(""));
      }
    }
  }
  base::Status Connect() override { return base::Status(); }
  int fd() override { return -1; }
  long timeout_ms() override { return -1; }
  // Runs the callbacks of everything that can finish now.
  void Process() override {
    for (size_t i = 0; i < started_.size(); ++i) {
      Started& s = started_[i];
      if (s.finished) continue;
      const std::string ns = s.ns.value_or("");
      ApiResult result;
      if (s.cancelled) {
        result = {MCPGW_CANCELLED, "cancelled"};
      } else if (ns.rfind("slow", 0) == 0) {
        if (released_.count(ns) == 0) continue;
        result = {MCPGW_OK, "done " + ns};
      } else if (!s.call) {
        result = get_result;
      } else if (const auto it = results.find(ns); it != results.end()) {
        result = it->second;
      } else {
        result = {MCPGW_OK, "result of " + s.tool.value_or("")};
      }
      s.finished = true;
      Done done = s.done;  // a callback may start requests (and grow started_)
      done(result);
    }
  }

  void Release(const std::string& ns) {
    released_.insert(ns);
    Process();
  }
  size_t pending() const {
    size_t n = 0;
    for (const Started& s : started_) n += !s.finished;
    return n;
  }
  size_t started() const { return started_.size(); }

  ApiResult get_result{MCPGW_OK, "{\"servers\":[]}"};
  std::map<std::string, ApiResult> results;
  std::optional<std::string> last_get_ns, last_get_tool;
  ToolsRequest last_get;
  int gets = 0;
  std::string last_call;
  long long last_max_text_bytes = 0;
  std::set<std::string> cancelled;

 private:
  RequestId Add(Started s) {
    s.id = started_.size() + 1;
    started_.push_back(std::move(s));
    return started_.back().id;
  }
  std::vector<Started> started_;
  std::set<std::string> released_;
};

// Collects what the bridge writes; every message must be a single line.
class Output {
 public:
  StdioBridge::Writer Writer() {
    return [this](std::string message) { messages_.push_back(std::move(message)); };
  }
  // The n-th message (0-based).
  rapidjson::Document At(size_t n) {
    REQUIRE(messages_.size() > n);
    const std::string& text = messages_[n];
    CHECK(text.find('\n') == std::string::npos);
    rapidjson::Document doc;
    doc.Parse(text.c_str());
    REQUIRE_FALSE(doc.HasParseError());
    return doc;
  }
  const std::string& Raw(size_t n) {
    REQUIRE(messages_.size() > n);
    return messages_[n];
  }
  size_t count() const { return messages_.size(); }

 private:
  std::vector<std::string> messages_;
};

// Hands the bridge one line, then lets the fake daemon answer what it can.
void Feed(StdioBridge& bridge, FakeApi& api, std::string_view line) {
  bridge.HandleLine(line);
  api.Process();
}

// A tools/call line; `id_json` is the id's JSON text.
std::string CallWithId(const std::string& id_json, const std::string& tool,
                       const std::string& arguments) {
  return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"method":"tools/call","params":{"name":")" +
         tool + R"(","arguments":)" + arguments + "}}";
}

std::string Call(int id, const std::string& tool, const std::string& arguments) {
  return CallWithId(std::to_string(id), tool, arguments);
}

std::string Text(const rapidjson::Document& doc) {
  return doc["result"]["content"][0]["text"].GetString();
}

bool IsError(const rapidjson::Document& doc) { return doc["result"]["isError"].GetBool(); }

TEST_CASE("initialize negotiates the protocol version and describes the server", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
       R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  Feed(
      bridge, api,
      R"({"jsonrpc":"2.0","id":"two","method":"initialize","params":{"protocolVersion":"2024-11-05"}})");
  Feed(bridge, api, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":3,"method":"ping"})");

  const auto first = out.At(0);
  CHECK(first["id"].GetInt() == 1);
  CHECK(std::string(first["jsonrpc"].GetString()) == "2.0");
  const auto& result = first["result"];
  CHECK(std::string(result["protocolVersion"].GetString()) == "2025-06-18");
  CHECK(result["capabilities"]["tools"]["listChanged"].GetBool() == false);
  CHECK(std::string(result["serverInfo"]["name"].GetString()) == "mcpgw");
  CHECK(std::string(result["serverInfo"]["version"].GetString()) == MCPGW_VERSION);
  const std::string instructions = result["instructions"].GetString();
  CHECK(instructions.find("get_dynamic_tools") != std::string::npos);
  CHECK(instructions.find("call_dynamic_tool") != std::string::npos);

  const auto second = out.At(1);
  CHECK(std::string(second["id"].GetString()) == "two");
  CHECK(std::string(second["result"]["protocolVersion"].GetString()) == "2025-11-25");

  const auto ping = out.At(2);  // the notification got no answer
  CHECK(ping["id"].GetInt() == 3);
  CHECK(ping["result"].IsObject());
  CHECK(ping["result"].MemberCount() == 0);
  CHECK(out.count() == 3);
}

constexpr std::string_view kModernMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientInfo":{"name":"host","version":"1"},)"
    R"("io.modelcontextprotocol/clientCapabilities":{}})";

// A request of revision 2026-07-28: `members` are the params' own members ("" for none).
std::string Modern(const std::string& id_json, const std::string& method,
                   const std::string& members = "") {
  return R"({"jsonrpc":"2.0","id":)" + id_json + R"(,"method":")" + method + R"(","params":{)" +
         members + (members.empty() ? "" : ",") + std::string(kModernMeta) + "}}";
}

TEST_CASE("a 2026-07-28 host is served without initialize", "[stdio][modern]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Modern("1", "server/discover"));
  const auto discover = out.At(0);
  const auto& result = discover["result"];
  CHECK(std::string(result["resultType"].GetString()) == "complete");
  CHECK(std::string(result["supportedVersions"][0].GetString()) == "2026-07-28");
  CHECK(std::string(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].GetString()) ==
        "mcpgw");
  CHECK(result["capabilities"]["tools"].IsObject());

  Feed(bridge, api, Modern("2", "tools/list"));
  const auto list = out.At(1);
  CHECK(std::string(list["result"]["resultType"].GetString()) == "complete");
  CHECK(list["result"]["tools"].Size() == 2);
  CHECK(list["result"]["ttlMs"].IsInt64());

  Feed(bridge, api,
       Modern("3", "tools/call",
              R"("name":"call_dynamic_tool","arguments":{"namespace":"alpha","toolName":"add",)"
              R"("arguments":{"a":1}})"));
  const auto called = out.At(2);
  CHECK(std::string(called["result"]["resultType"].GetString()) == "complete");
  CHECK(Text(called) == "result of add");
  CHECK(api.last_call == R"(alpha/add {"a":1})");
  // Its calls ask for the daemon's bound for models unless told otherwise.
  CHECK(api.last_max_text_bytes == MCPGW_MAX_TEXT_STDIO);

  // A tool error is a complete result too.
  api.results = {{"broken", {MCPGW_BACKEND, "boom"}}};
  Feed(bridge, api,
       Modern("4", "tools/call",
              R"("name":"call_dynamic_tool","arguments":{"namespace":"broken","toolName":"x"})"));
  const auto failed = out.At(3);
  CHECK(std::string(failed["result"]["resultType"].GetString()) == "complete");
  CHECK(IsError(failed));

  Feed(bridge, api, Modern("5", "ping"));
  CHECK(std::string(out.At(4)["result"]["resultType"].GetString()) == "complete");
  CHECK(out.count() == 5);
}

TEST_CASE("a 2026-07-28 host's subscription is acknowledged and ended", "[stdio][modern]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api,
       Modern("\"sub\"", "subscriptions/listen", R"("notifications":{"toolsListChanged":true})"));
  REQUIRE(out.count() == 2);
  const auto ack = out.At(0);
  CHECK(std::string(ack["method"].GetString()) == "notifications/subscriptions/acknowledged");
  CHECK(std::string(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].GetString()) ==
        "sub");
  const auto closed = out.At(1);
  CHECK(std::string(closed["id"].GetString()) == "sub");
  CHECK(std::string(closed["result"]["resultType"].GetString()) == "complete");
}

TEST_CASE("a request at an unsupported version is refused with the supported ones",
          "[stdio][modern]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{)"
       R"("io.modelcontextprotocol/protocolVersion":"2099-01-01",)"
       R"("io.modelcontextprotocol/clientCapabilities":{}}}})");
  const auto refused = out.At(0);
  CHECK(refused["id"].GetInt() == 7);
  CHECK(refused["error"]["code"].GetInt() == proto::kMcpUnsupportedVersionCode);
  CHECK(std::string(refused["error"]["data"]["supported"][0].GetString()) == "2026-07-28");
  CHECK(std::string(refused["error"]["data"]["requested"].GetString()) == "2099-01-01");
  // Without the required capabilities the request is malformed.
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{)"
       R"("io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
  CHECK(out.At(1)["error"]["code"].GetInt() == kInvalidParams);
  CHECK(api.started() == 0);
}

TEST_CASE("a 2025 host still gets 2025 results, and may probe too", "[stdio][modern]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  CHECK_FALSE(out.At(0)["result"].HasMember("resultType"));
  Feed(bridge, api, Call(2, "get_dynamic_tools", "{}"));
  CHECK_FALSE(out.At(1)["result"].HasMember("resultType"));
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":3,"method":"server/discover"})");
  CHECK(out.At(2)["result"]["supportedVersions"].Size() == 4);
}

TEST_CASE("tools/list offers exactly the two gateway tools", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})");
  const auto doc = out.At(0);
  const auto& tools = doc["result"]["tools"];
  REQUIRE(tools.Size() == 2);
  CHECK(std::string(tools[0]["name"].GetString()) == "get_dynamic_tools");
  CHECK(std::string(tools[1]["name"].GetString()) == "call_dynamic_tool");

  const auto& get = tools[0];
  CHECK(std::string(get["inputSchema"]["type"].GetString()) == "object");
  CHECK(std::string(get["inputSchema"]["properties"]["namespace"]["type"].GetString()) == "string");
  CHECK(get["inputSchema"]["properties"]["toolName"]["description"].IsString());
  CHECK_FALSE(get["inputSchema"].HasMember("required"));
  CHECK(get["annotations"]["readOnlyHint"].GetBool());
  CHECK(std::string(get["description"].GetString()).find("namespace") != std::string::npos);

  const auto& call = tools[1];
  const auto& props = call["inputSchema"]["properties"];
  CHECK(std::string(props["namespace"]["type"].GetString()) == "string");
  CHECK(std::string(props["toolName"]["type"].GetString()) == "string");
  CHECK(std::string(props["arguments"]["type"].GetString()) == "object");
  const auto& required = call["inputSchema"]["required"];
  REQUIRE(required.Size() == 2);
  CHECK(std::string(required[0].GetString()) == "namespace");
  CHECK(std::string(required[1].GetString()) == "toolName");
  CHECK_FALSE(call["annotations"]["readOnlyHint"].GetBool());
}

TEST_CASE("get_dynamic_tools offers query and limit, and says when to use query", "[stdio][find]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})");
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":3,"method":"server/discover"})");
  const auto list = out.At(0);
  const auto& get = list["result"]["tools"][0];
  const auto& props = get["inputSchema"]["properties"];
  CHECK(std::string(props["query"]["type"].GetString()) == "string");
  CHECK(std::string(props["query"]["description"].GetString()).find("own words") !=
        std::string::npos);
  CHECK(std::string(props["limit"]["type"].GetString()) == "integer");
  CHECK(props["limit"]["minimum"].GetInt() == 1);
  CHECK(props["limit"]["maximum"].GetInt() == 50);
  CHECK(props["limit"]["default"].GetInt() == 10);
  CHECK_FALSE(get["inputSchema"].HasMember("required"));
  const std::string description = get["description"].GetString();
  CHECK(description.find("With query") != std::string::npos);
  CHECK(description.find("do not know which server") != std::string::npos);
  // call_dynamic_tool's description points to query for finding the tool too.
  const std::string call_description = list["result"]["tools"][1]["description"].GetString();
  CHECK(call_description.find("with query when you do not know which server") != std::string::npos);
  // Each answer's text copied while its document lives.
  const auto instructions_of = [&](size_t i) {
    return std::string(out.At(i)["result"]["instructions"].GetString());
  };
  for (const std::string& instructions : {instructions_of(1), instructions_of(2)}) {
    CHECK(instructions.find("with query") != std::string::npos);
    CHECK(instructions.find("call the top match") != std::string::npos);
  }
}

TEST_CASE("get_dynamic_tools forwards query and limit, the limit's range for the daemon to judge",
          "[stdio][find]") {
  FakeApi api;
  api.get_result = {MCPGW_OK, R"({"query":"send mail","tools":[]})"};
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Call(1, "get_dynamic_tools", R"({"query":"send mail"})"));
  CHECK(Text(out.At(0)) == R"({"query":"send mail","tools":[]})");
  CHECK_FALSE(IsError(out.At(0)));
  CHECK(api.last_get.query == "send mail");
  CHECK_FALSE(api.last_get.ns);
  CHECK_FALSE(api.last_get.limit);

  Feed(bridge, api, Call(2, "get_dynamic_tools", R"({"namespace":"mail","query":"x","limit":3})"));
  CHECK(api.last_get.ns == "mail");
  CHECK(api.last_get.limit == 3);
  for (const int64_t limit : {51, -2}) {
    Feed(bridge, api,
         Call(3, "get_dynamic_tools", R"({"query":"x","limit":)" + std::to_string(limit) + "}"));
    CHECK(api.last_get.limit == limit);
  }
  Feed(bridge, api, Call(4, "get_dynamic_tools", R"({"query":"","limit":null})"));
  CHECK(api.last_get.query == "");
  CHECK_FALSE(api.last_get.limit);
  CHECK(api.gets == 5);
  CHECK(out.count() == 5);

  // Without a query the limit is not even read: the request is what it always was.
  Feed(bridge, api, Call(5, "get_dynamic_tools", R"({"namespace":"alpha","limit":"x"})"));
  CHECK_FALSE(IsError(out.At(5)));
  CHECK(api.last_get.ns == "alpha");
  CHECK_FALSE(api.last_get.query);
  CHECK_FALSE(api.last_get.limit);
}

TEST_CASE("a query or limit of the wrong type is refused in-band, nothing sent", "[stdio][find]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  const std::string not_integer = "invalid_request: limit must be an integer from 1 to 50";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"query":5})", "invalid_request: query must be a string"},
      {R"({"query":["x"]})", "invalid_request: query must be a string"},
      {R"({"namespace":7,"query":"x"})", "invalid_request: namespace and toolName must be strings"},
      {R"({"query":"x","limit":2.5})", not_integer},
      {R"({"query":"x","limit":"5"})", not_integer},
      {R"({"query":"x","limit":true})", not_integer},
      {R"({"query":"x","limit":1e1})", not_integer},
      // What libmcpgw cannot carry: 0 would read as the default, and no int holds 2^40.
      {R"({"query":"x","limit":0})", not_integer},
      {R"({"query":"x","limit":1099511627776})", not_integer},
      {R"({"namespace":"a","toolName":"t","query":"x"})",
       "invalid_request: query does not go with toolName"},
  };
  int id = 0;
  for (const auto& [arguments, refusal] : cases) {
    INFO(arguments);
    Feed(bridge, api, Call(id, "get_dynamic_tools", arguments));
    const auto doc = out.At(static_cast<size_t>(id));
    CHECK(doc["id"].GetInt() == id);
    CHECK(IsError(doc));
    CHECK(Text(doc).rfind(refusal, 0) == 0);
    ++id;
  }
  CHECK(api.gets == 0);
}

TEST_CASE("tools/call is bridged to the daemon", "[stdio]") {
  FakeApi api;
  api.get_result = {MCPGW_OK, "{\"namespace\":\"alpha\",\"tools\":[]}"};
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api,
       Call(1, "call_dynamic_tool",
            R"({"namespace":"alpha","toolName":"add","arguments":{"a":1,"b":"x\ny"}})"));
  const auto called = out.At(0);
  CHECK(called["id"].GetInt() == 1);
  CHECK(Text(called) == "result of add");
  CHECK_FALSE(IsError(called));
  CHECK(api.last_call == R"(alpha/add {"a":1,"b":"x\ny"})");

  Feed(bridge, api, Call(2, "get_dynamic_tools", R"({"namespace":"alpha"})"));
  const auto listed = out.At(1);
  CHECK(Text(listed) == "{\"namespace\":\"alpha\",\"tools\":[]}");
  CHECK(api.last_get_ns == "alpha");
  CHECK_FALSE(api.last_get_tool);

  // Arguments left out mean {} for call_dynamic_tool and "everything" for get_dynamic_tools.
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_dynamic_tools"}})");
  CHECK_FALSE(IsError(out.At(2)));
  CHECK_FALSE(api.last_get_ns);
  Feed(bridge, api, Call(4, "call_dynamic_tool", R"({"namespace":"alpha","toolName":"now"})"));
  CHECK_FALSE(IsError(out.At(3)));
  CHECK(api.last_call == "alpha/now {}");
}

TEST_CASE("a bridge given --max-bytes sends that bound with every call", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer(), nullptr, 4096);
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"alpha","toolName":"add"})"));
  CHECK(Text(out.At(0)) == "result of add");
  CHECK(api.last_max_text_bytes == 4096);
  StdioBridge unbounded(api, out.Writer(), nullptr, 0);
  Feed(unbounded, api, Call(2, "call_dynamic_tool", R"({"namespace":"alpha","toolName":"add"})"));
  CHECK(api.last_max_text_bytes == 0);
}

TEST_CASE("every gateway error becomes an isError result naming its kind", "[stdio]") {
  FakeApi api;
  api.results = {
      {"backend", {MCPGW_BACKEND, "division by zero"}},
      {"invalid", {MCPGW_INVALID_REQUEST, "unknown namespace \"invalid\"; known: alpha"}},
      {"loading", {MCPGW_NOT_READY, "server \"loading\" is loading"}},
      {"net", {MCPGW_TRANSPORT, "HTTP 502 from server"}},
      {"policy", {MCPGW_DENIED, "tool \"rm\" is denied by policy"}},
      {"down", {MCPGW_UNAVAILABLE, "cannot reach mcpgwd at /run/x.sock"}},
  };
  const std::map<std::string, std::string> expected = {
      {"backend", "backend: division by zero"},
      {"invalid", "invalid_request: unknown namespace \"invalid\"; known: alpha"},
      {"loading", "not_ready: server \"loading\" is loading"},
      {"net", "transport: HTTP 502 from server"},
      {"policy", "denied: tool \"rm\" is denied by policy"},
      {"down", "unavailable: cannot reach mcpgwd at /run/x.sock"},
  };
  Output out;
  StdioBridge bridge(api, out.Writer());
  int id = 0;
  for (const auto& [ns, text] : expected) {
    Feed(bridge, api,
         Call(id, "call_dynamic_tool", R"({"namespace":")" + ns + R"(","toolName":"t"})"));
    const auto doc = out.At(id);
    CHECK(doc["id"].GetInt() == id);
    CHECK(IsError(doc));
    CHECK(Text(doc) == text);
    ++id;
  }
}

TEST_CASE("bad tool arguments are tool errors, bad tools/call params are protocol errors",
          "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"toolName":"add"})"));
  Feed(bridge, api,
       Call(2, "call_dynamic_tool", R"({"namespace":"a","toolName":"t","arguments":[1]})"));
  Feed(bridge, api, Call(3, "get_dynamic_tools", R"({"namespace":7})"));
  Feed(bridge, api, Call(4, "no_such_tool", "{}"));
  Feed(bridge, api, Call(5, "call_dynamic_tool", "[]"));
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}})");

  for (int i = 0; i < 3; ++i) {
    const auto doc = out.At(i);
    CHECK(IsError(doc));
    CHECK(Text(doc).rfind("invalid_request: ", 0) == 0);
  }
  CHECK(Text(out.At(0)).find("namespace") != std::string::npos);
  CHECK(Text(out.At(1)).find("object") != std::string::npos);
  for (int i = 3; i < 6; ++i) {
    const auto doc = out.At(i);
    CHECK(doc["id"].GetInt() == i + 1);
    CHECK(doc["error"]["code"].GetInt() == -32602);
  }
  CHECK(std::string(out.At(3)["error"]["message"].GetString()).find("no_such_tool") !=
        std::string::npos);
  CHECK(api.last_call.empty());  // none of them reached the daemon
}

TEST_CASE("notifications/cancelled cancels the call at the daemon and nothing is answered",
          "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Call(7, "call_dynamic_tool", R"({"namespace":"slow1","toolName":"t"})"));
  REQUIRE(api.pending() == 1);
  CHECK(bridge.in_flight() == 1);
  Feed(
      bridge, api,
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}})");
  CHECK(api.cancelled.count("slow1") == 1);
  CHECK(bridge.in_flight() == 0);
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":8,"method":"ping"})");
  const auto next = out.At(0);
  CHECK(next["id"].GetInt() == 8);  // the first message is the ping's answer, not call 7's
  CHECK(api.pending() == 0);        // the daemon's cancelled callback came and went
  CHECK(out.count() == 1);
  // The id is free again at once.
  Feed(bridge, api, Call(7, "call_dynamic_tool", R"({"namespace":"fast","toolName":"t"})"));
  CHECK(out.At(1)["id"].GetInt() == 7);
  CHECK(Text(out.At(1)) == "result of t");
}

TEST_CASE("a cancel for a different id leaves the call running", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"slowA","toolName":"t"})"));
  REQUIRE(api.pending() == 1);
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"1"}})");
  api.Release("slowA");
  const auto doc = out.At(0);
  CHECK(doc["id"].GetInt() == 1);
  CHECK(Text(doc) == "done slowA");
}

TEST_CASE("concurrent calls are answered as they finish, not in order", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"slowA","toolName":"t"})"));
  Feed(bridge, api, Call(2, "call_dynamic_tool", R"({"namespace":"slowB","toolName":"t"})"));
  REQUIRE(api.pending() == 2);  // both run at once: call 1 does not hold up the reader
  Feed(bridge, api, Call(3, "call_dynamic_tool", R"({"namespace":"fast","toolName":"t"})"));
  CHECK(out.At(0)["id"].GetInt() == 3);
  api.Release("slowB");
  CHECK(out.At(1)["id"].GetInt() == 2);
  CHECK(Text(out.At(1)) == "done slowB");
  api.Release("slowA");
  CHECK(out.At(2)["id"].GetInt() == 1);
}

TEST_CASE("a duplicate id of a running call is refused", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"slowA","toolName":"t"})"));
  REQUIRE(api.pending() == 1);
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"fast","toolName":"t"})"));
  const auto doc = out.At(0);
  CHECK(doc["error"]["code"].GetInt() == -32600);
  api.Release("slowA");
  CHECK(Text(out.At(1)) == "done slowA");
}

TEST_CASE("malformed lines get JSON-RPC errors, blank lines and responses are ignored", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, "{not json");
  Feed(bridge, api, "   ");
  Feed(bridge, api, "[1,2]");
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":1,"result":{}})");  // a response: nothing to do
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":2,"method":"resources/list"})");
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
  Feed(bridge, api, R"({"jsonrpc":"1.0","id":3,"method":"ping"})");
  Feed(bridge, api, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"x\":\"\xff\"}");
  Feed(bridge, api, R"({"jsonrpc":"2.0","method":"notifications/unknown"})");
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","id":5,"method":"ping"})"
       "\r");

  const auto parse = out.At(0);
  CHECK(parse["id"].IsNull());
  CHECK(parse["error"]["code"].GetInt() == -32700);
  const auto batch = out.At(1);
  CHECK(batch["id"].IsNull());
  CHECK(batch["error"]["code"].GetInt() == -32600);
  const auto unknown = out.At(2);
  CHECK(unknown["id"].GetInt() == 2);
  CHECK(unknown["error"]["code"].GetInt() == -32601);
  const auto bad_id = out.At(3);
  CHECK(bad_id["id"].IsNull());
  CHECK(bad_id["error"]["code"].GetInt() == -32600);
  const auto bad_version = out.At(4);
  CHECK(bad_version["id"].GetInt() == 3);
  CHECK(bad_version["error"]["code"].GetInt() == -32600);
  const auto bad_utf8 = out.At(5);
  CHECK(bad_utf8["error"]["code"].GetInt() == -32700);
  const auto ping = out.At(6);
  CHECK(ping["id"].GetInt() == 5);
  CHECK(ping.HasMember("result"));
  CHECK(out.count() == 7);
}

TEST_CASE("absurdly deep nesting is refused without crashing", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Feed(bridge, api,
       Call(1, "call_dynamic_tool",
            R"({"namespace":"a","toolName":"t","arguments":{"x":)" + deep + "}}"));
  const auto doc = out.At(0);
  CHECK(doc["id"].GetInt() == 1);
  CHECK(doc["error"]["code"].GetInt() == -32600);
  CHECK(api.last_call.empty());
}

TEST_CASE("results with newlines, controls and bad UTF-8 stay one valid JSON line", "[stdio]") {
  FakeApi api;
  api.results = {{"odd", {MCPGW_OK, std::string("a\nb\r\n\x1b[31m\0z\xff", 13)}}};
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"odd","toolName":"t"})"));
  const auto doc = out.At(0);  // At() checks: single line, valid JSON
  const auto& text = doc["result"]["content"][0]["text"];
  CHECK(std::string(text.GetString(), text.GetStringLength()) ==
        std::string("a\nb\r\n\x1b[31m\0z\xef\xbf\xbd", 15));
}

TEST_CASE("tool arguments reach the daemon byte for byte", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  // Digits beyond a double, an underflow, an escape, keys out of order, odd spacing, and a
  // tool argument that is itself named "arguments".
  const std::string args = R"({ "z" : 123456789012345678901234567890, "tiny":1e-400 ,"e":"\u00e9",)"
                           R"( "arguments" : {"arguments":[1 ,2]}, "a" :[ 1.50, -0 ] })";
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","params":{ "arguments" : { "arguments" :)" + args +
           R"( , "toolName":"t","namespace":"n"}, "name":"call_dynamic_tool"},"id":5,)"
           R"("method":"tools/call"})");
  CHECK(api.last_call == "n/t " + args);
  CHECK(Text(out.At(0)) == "result of t");

  // The first of duplicate keys counts, as for every other field.
  Feed(
      bridge, api,
      Call(6, "call_dynamic_tool",
           R"({"namespace":"n","toolName":"t","arguments":{"first":1},"arguments":{"second":2}})"));
  CHECK(api.last_call == R"(n/t {"first":1})");
}

TEST_CASE("request ids are answered as the host wrote them", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"})");
  Feed(bridge, api, R"({"jsonrpc":"2.0","id": 1.0 ,"method":"ping"})");
  Feed(bridge, api, R"({"jsonrpc":"2.0","id":"a\u0062","method":"ping"})");
  CHECK(out.Raw(0) == R"({"jsonrpc":"2.0","id":12345678901234567890123,"result":{}})");
  CHECK(out.Raw(1) == R"({"jsonrpc":"2.0","id":1.0,"result":{}})");
  CHECK(out.Raw(2) == R"({"jsonrpc":"2.0","id":"ab","result":{}})");

  // A cancel names its call the same way.
  Feed(bridge, api,
       CallWithId("98765432109876543210987", "call_dynamic_tool",
                  R"({"namespace":"slow","toolName":"t"})"));
  REQUIRE(bridge.in_flight() == 1);
  Feed(bridge, api,
       R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
       R"("params":{"requestId":98765432109876543210987}})");
  CHECK(bridge.in_flight() == 0);
  CHECK(api.cancelled.count("slow") == 1);
}

TEST_CASE("an unreachable daemon is noted on stderr when a call first fails that way", "[stdio]") {
  FakeApi api;
  const std::string why =
      "mcpgwd is not running (cannot connect to /run/x.sock: No such file or directory): start "
      "it with `mcpgwd --config FILE`";
  api.results = {{"down", {MCPGW_UNAVAILABLE, why}},
                 {"lost", {MCPGW_UNAVAILABLE, "lost the connection to mcpgwd at /run/x.sock"}}};
  Output out;
  std::vector<std::string> notes;
  StdioBridge bridge(api, out.Writer(), [&](const std::string& line) { notes.push_back(line); });
  Feed(bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"down","toolName":"t"})"));
  Feed(bridge, api, Call(2, "call_dynamic_tool", R"({"namespace":"down","toolName":"t"})"));
  REQUIRE(notes.size() == 1);  // once, not for every call
  CHECK(notes[0] == "mcpgw stdio: cannot reach mcpgwd: " + why);
  CHECK(IsError(out.At(0)));
  CHECK(Text(out.At(0)) == "unavailable: " + why);

  // After a call got through, the next outage is noted again, with how to start it.
  Feed(bridge, api, Call(3, "call_dynamic_tool", R"({"namespace":"up","toolName":"t"})"));
  Feed(bridge, api, Call(4, "call_dynamic_tool", R"({"namespace":"lost","toolName":"t"})"));
  REQUIRE(notes.size() == 2);
  CHECK(notes[1].find("/run/x.sock") != std::string::npos);
  CHECK(notes[1].find("start it with `mcpgwd --config FILE`") != std::string::npos);
}

TEST_CASE("calls past the limit in flight are refused as busy", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  for (size_t i = 0; i < kMaxConcurrentCalls; ++i) {
    Feed(bridge, api,
         Call(static_cast<int>(i), "call_dynamic_tool", R"({"namespace":"slow","toolName":"t"})"));
  }
  CHECK(out.count() == 0);
  Feed(bridge, api, Call(-1, "call_dynamic_tool", R"({"namespace":"fast","toolName":"t"})"));
  CHECK(out.At(0)["error"]["code"].GetInt() == kServerBusy);
  api.Release("slow");
  CHECK(out.count() == kMaxConcurrentCalls + 1);
  CHECK(bridge.in_flight() == 0);
}

TEST_CASE("answers that arrive after the bridge is gone are dropped safely", "[stdio]") {
  FakeApi api;
  Output out;
  auto bridge = std::make_unique<StdioBridge>(api, out.Writer());
  Feed(*bridge, api, Call(1, "call_dynamic_tool", R"({"namespace":"slow","toolName":"t"})"));
  Feed(*bridge, api, Call(2, "call_dynamic_tool", R"({"namespace":"slowB","toolName":"t"})"));
  Feed(*bridge, api,
       R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}})");
  bridge.reset();  // cancels call 1; the api still holds both callbacks
  CHECK(api.cancelled.count("slow") == 1);
  api.Process();  // runs them (as libmcpgw does when its handle closes)
  CHECK(out.count() == 0);
}

}  // namespace
}  // namespace mcpgw::cli
