// `mcpgw stdio`: the MCP server side of the bridge, driven line by line against a fake daemon
// whose calls can block until released or cancelled.
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "client/cli/stdio_bridge.h"

namespace mcpgw::cli {
namespace {

using namespace std::chrono_literals;

// Scripted daemon. Calls to namespace "slow*" block until Release(ns) or their token fires.
class FakeApi : public DaemonApi {
 public:
  ApiResult GetDynamicTools(const std::optional<std::string>& ns,
                            const std::optional<std::string>& tool, CancelToken*) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_get_ns = ns;
    last_get_tool = tool;
    return get_result;
  }
  ApiResult CallDynamicTool(const std::string& ns, const std::string& tool,
                            const std::string& arguments_json, CancelToken* cancel) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_call = ns + "/" + tool + " " + arguments_json;
      ++started_;
      cv_.notify_all();
    }
    if (ns.rfind("slow", 0) == 0) {
      // The token runs its callbacks under its own lock: never call into it holding mu_.
      bool triggered = false;
      const int id = cancel->Subscribe([&] {
        std::lock_guard<std::mutex> l(mu_);
        triggered = true;
        cv_.notify_all();
      });
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return released_.count(ns) > 0 || triggered; });
      lock.unlock();
      cancel->Unsubscribe(id);
      lock.lock();
      if (triggered) {
        cancelled_.insert(ns);
        cv_.notify_all();
        return {MCPGW_CANCELLED, "cancelled"};
      }
      return {MCPGW_OK, "done " + ns};
    }
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = results.find(ns);
    return it != results.end() ? it->second : ApiResult{MCPGW_OK, "result of " + tool};
  }
  ApiResult Status(CancelToken*) override { return {}; }

  void Release(const std::string& ns) {
    std::lock_guard<std::mutex> lock(mu_);
    released_.insert(ns);
    cv_.notify_all();
  }
  bool WaitStarted(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return started_ >= n; });
  }
  bool WaitCancelled(const std::string& ns) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return cancelled_.count(ns) > 0; });
  }

  ApiResult get_result{MCPGW_OK, "{\"servers\":[]}"};
  std::map<std::string, ApiResult> results;
  std::optional<std::string> last_get_ns, last_get_tool;
  std::string last_call;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int started_ = 0;
  std::set<std::string> released_;
  std::set<std::string> cancelled_;
};

// Collects what the bridge writes; every message must be a single line.
class Output {
 public:
  StdioBridge::Writer Writer() {
    return [this](const std::string& message) {
      std::lock_guard<std::mutex> lock(mu_);
      messages_.push_back(message);
      cv_.notify_all();
    };
  }
  // The n-th message (0-based), waiting for it to arrive.
  rapidjson::Document At(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    REQUIRE(cv_.wait_for(lock, 5s, [&] { return messages_.size() > n; }));
    const std::string& text = messages_[n];
    CHECK(text.find('\n') == std::string::npos);
    rapidjson::Document doc;
    doc.Parse(text.c_str());
    REQUIRE_FALSE(doc.HasParseError());
    return doc;
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mu_);
    return messages_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> messages_;
};

std::string Call(int id, const std::string& tool, const std::string& arguments) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" + arguments +
         "}}";
}

std::string Text(const rapidjson::Document& doc) {
  return doc["result"]["content"][0]["text"].GetString();
}

bool IsError(const rapidjson::Document& doc) { return doc["result"]["isError"].GetBool(); }

TEST_CASE("initialize negotiates the protocol version and describes the server", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  bridge.HandleLine(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
      R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  bridge.HandleLine(
      R"({"jsonrpc":"2.0","id":"two","method":"initialize","params":{"protocolVersion":"2024-11-05"}})");
  bridge.HandleLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":3,"method":"ping"})");

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

TEST_CASE("tools/list offers exactly the two gateway tools", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})");
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

TEST_CASE("tools/call is bridged to the daemon", "[stdio]") {
  FakeApi api;
  api.get_result = {MCPGW_OK, "{\"namespace\":\"alpha\",\"tools\":[]}"};
  Output out;
  StdioBridge bridge(api, out.Writer());
  bridge.HandleLine(
      Call(1, "call_dynamic_tool",
           R"({"namespace":"alpha","toolName":"add","arguments":{"a":1,"b":"x\ny"}})"));
  const auto called = out.At(0);
  CHECK(called["id"].GetInt() == 1);
  CHECK(Text(called) == "result of add");
  CHECK_FALSE(IsError(called));
  CHECK(api.last_call == R"(alpha/add {"a":1,"b":"x\ny"})");

  bridge.HandleLine(Call(2, "get_dynamic_tools", R"({"namespace":"alpha"})"));
  const auto listed = out.At(1);
  CHECK(Text(listed) == "{\"namespace\":\"alpha\",\"tools\":[]}");
  CHECK(api.last_get_ns == "alpha");
  CHECK_FALSE(api.last_get_tool);

  // Arguments left out mean {} for call_dynamic_tool and "everything" for get_dynamic_tools.
  bridge.HandleLine(
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_dynamic_tools"}})");
  CHECK_FALSE(IsError(out.At(2)));
  CHECK_FALSE(api.last_get_ns);
  bridge.HandleLine(Call(4, "call_dynamic_tool", R"({"namespace":"alpha","toolName":"now"})"));
  CHECK_FALSE(IsError(out.At(3)));
  CHECK(api.last_call == "alpha/now {}");
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
    bridge.HandleLine(
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
  bridge.HandleLine(Call(1, "call_dynamic_tool", R"({"toolName":"add"})"));
  bridge.HandleLine(
      Call(2, "call_dynamic_tool", R"({"namespace":"a","toolName":"t","arguments":[1]})"));
  bridge.HandleLine(Call(3, "get_dynamic_tools", R"({"namespace":7})"));
  bridge.HandleLine(Call(4, "no_such_tool", "{}"));
  bridge.HandleLine(Call(5, "call_dynamic_tool", "[]"));
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}})");

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
  bridge.HandleLine(Call(7, "call_dynamic_tool", R"({"namespace":"slow1","toolName":"t"})"));
  REQUIRE(api.WaitStarted(1));
  CHECK(bridge.in_flight() == 1);
  bridge.HandleLine(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}})");
  CHECK(api.WaitCancelled("slow1"));
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":8,"method":"ping"})");
  const auto next = out.At(0);
  CHECK(next["id"].GetInt() == 8);  // the first message is the ping's answer, not call 7's
  for (int i = 0; i < 100 && bridge.in_flight() > 0; ++i) std::this_thread::sleep_for(10ms);
  CHECK(bridge.in_flight() == 0);
  CHECK(out.count() == 1);
}

TEST_CASE("a cancel for a different id leaves the call running", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  bridge.HandleLine(Call(1, "call_dynamic_tool", R"({"namespace":"slowA","toolName":"t"})"));
  REQUIRE(api.WaitStarted(1));
  bridge.HandleLine(
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
  bridge.HandleLine(Call(1, "call_dynamic_tool", R"({"namespace":"slowA","toolName":"t"})"));
  bridge.HandleLine(Call(2, "call_dynamic_tool", R"({"namespace":"slowB","toolName":"t"})"));
  REQUIRE(api.WaitStarted(2));  // both run at once: the reader was not blocked by call 1
  bridge.HandleLine(Call(3, "call_dynamic_tool", R"({"namespace":"fast","toolName":"t"})"));
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
  bridge.HandleLine(Call(1, "call_dynamic_tool", R"({"namespace":"slowA","toolName":"t"})"));
  REQUIRE(api.WaitStarted(1));
  bridge.HandleLine(Call(1, "call_dynamic_tool", R"({"namespace":"fast","toolName":"t"})"));
  const auto doc = out.At(0);
  CHECK(doc["error"]["code"].GetInt() == -32600);
  api.Release("slowA");
  CHECK(Text(out.At(1)) == "done slowA");
}

TEST_CASE("malformed lines get JSON-RPC errors, blank lines and responses are ignored", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  bridge.HandleLine("{not json");
  bridge.HandleLine("   ");
  bridge.HandleLine("[1,2]");
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":1,"result":{}})");  // a response: nothing to do
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":2,"method":"resources/list"})");
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
  bridge.HandleLine(R"({"jsonrpc":"1.0","id":3,"method":"ping"})");
  bridge.HandleLine("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"x\":\"\xff\"}");
  bridge.HandleLine(R"({"jsonrpc":"2.0","method":"notifications/unknown"})");
  bridge.HandleLine(R"({"jsonrpc":"2.0","id":5,"method":"ping"})"
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
  bridge.HandleLine(Call(1, "call_dynamic_tool",
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
  bridge.HandleLine(Call(1, "call_dynamic_tool", R"({"namespace":"odd","toolName":"t"})"));
  const auto doc = out.At(0);  // At() checks: single line, valid JSON
  const auto& text = doc["result"]["content"][0]["text"];
  CHECK(std::string(text.GetString(), text.GetStringLength()) ==
        std::string("a\nb\r\n\x1b[31m\0z\xef\xbf\xbd", 15));
}

TEST_CASE("stdin EOF cancels what is in flight, answers none of it and returns", "[stdio]") {
  FakeApi api;
  Output out;
  StdioBridge bridge(api, out.Writer());
  std::istringstream in(Call(1, "call_dynamic_tool", R"({"namespace":"slowA","toolName":"t"})") +
                        "\n" + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n" +
                        Call(3, "call_dynamic_tool", R"({"namespace":"slowB","toolName":"t"})"));
  CHECK(bridge.Run(in));  // the last line has no newline and is still handled
  CHECK(api.WaitCancelled("slowA"));
  CHECK(api.WaitCancelled("slowB"));
  CHECK(bridge.in_flight() == 0);
  CHECK(out.count() == 1);
  CHECK(out.At(0)["id"].GetInt() == 2);
}

}  // namespace
}  // namespace mcpgw::cli
