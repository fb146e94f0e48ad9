// Tools that require tasks (BEHAVIOR.md §12) through every way a host
// reaches them — the mcpgw command, libmcpgw and `mcpgw stdio` — against a
// real mcpgwd and the official TypeScript SDK's task support upstream
// (tests/fixtures/task-server.mjs, and server-everything's
// simulate-research-query), compared with what the SDK's own task client
// makes of the same result (tests/fixtures/task-client.mjs). The fixture
// counts on its side every tasks/get, tasks/result and tasks/cancel.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "integration/stdio_process.h"
#include "mcpgw.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

constexpr int kExitBackend = 1;
constexpr int kExitTransport = 5;
constexpr int kExitInterrupted = 130;

std::string Fixture(const std::string& name) {
  return std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/" + name;
}

// A fixture server (task-server.mjs or everything-server.mjs) on an
// ephemeral loopback port.
class Server {
 public:
  Server(const TempDir& dir, const std::string& name, const std::string& script,
         std::vector<std::string> args = {}) {
    const std::string node = FixtureNode();
    if (node.empty()) return;
    out_ = dir / (name + ".out");
    std::vector<std::string> argv = {node, Fixture(script), "--port", "0"};
    for (auto& a : args) argv.push_back(a);
    proc_ = std::make_unique<Process>(argv, out_, dir / (name + ".err"));
    WaitFor([&] {
      const std::string text = ReadFile(out_);
      const size_t at = text.find("LISTENING ");
      if (at == std::string::npos || text.find('\n', at) == std::string::npos) {
        return !proc_->Alive();
      }
      port_ = std::atoi(text.c_str() + at + 10);
      return true;
    });
  }
  bool ok() const { return port_ > 0; }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

  // What the fixture received (GET /__log); an empty object on failure.
  rapidjson::Document Log() const {
    auto body = HttpGet(port_, "/__log");
    rapidjson::Document d = ParseJson(body ? *body : "{}");
    if (!d.IsObject()) d.SetObject();
    return d;
  }
  // The fixture's count of `what` ("polls", "results", "cancels", "created")
  // for `tool`.
  int Count(const std::string& what, const std::string& tool) const {
    const rapidjson::Document d = Log();
    if (!d.HasMember(what.c_str()) || !d[what.c_str()].HasMember(tool.c_str())) return 0;
    return d[what.c_str()][tool.c_str()].GetInt();
  }
  // The tools/call requests of `tool`: whether each carried `task`, and its ttl.
  std::vector<std::pair<bool, int64_t>> Calls(const std::string& tool) const {
    std::vector<std::pair<bool, int64_t>> out;
    const rapidjson::Document d = Log();
    if (!d.HasMember("requests")) return out;
    for (const auto& r : d["requests"].GetArray()) {
      if (r["method"] != "tools/call" || !r.HasMember("tool") || !r["tool"].IsString() ||
          tool != r["tool"].GetString()) {
        continue;
      }
      out.emplace_back(r["task"].GetBool(), r["ttl"].IsInt64() ? r["ttl"].GetInt64() : -1);
    }
    return out;
  }
  // The statuses the tasks/cancel answers of `tool` gave ("error N" for an error).
  std::vector<std::string> CancelAnswers(const std::string& tool) const {
    std::vector<std::string> out;
    const rapidjson::Document d = Log();
    if (!d.HasMember("cancelAnswers")) return out;
    for (const auto& a : d["cancelAnswers"].GetArray()) {
      if (!a["tool"].IsString() || tool != a["tool"].GetString()) continue;
      out.push_back(a["status"].IsString() ? a["status"].GetString()
                                           : "error " + std::to_string(a["error"].GetInt()));
    }
    return out;
  }
  // The methods received, in order (DELETE for an HTTP DELETE).
  std::vector<std::string> Methods() const {
    std::vector<std::string> out;
    const rapidjson::Document d = Log();
    if (!d.HasMember("requests")) return out;
    for (const auto& r : d["requests"].GetArray()) out.emplace_back(r["method"].GetString());
    return out;
  }

 private:
  std::string out_;
  std::unique_ptr<Process> proc_;
  int port_ = 0;
};

std::string Config(const std::string& name, const Server& server) {
  return R"({"mcpServers":{")" + name + R"(":{"url":")" + server.Url() + R"("}}})";
}

// What the SDK's own task client makes of a call of `tool`.
struct SdkAnswer {
  std::string kind;  // ok, backend, error
  std::string text;
  std::vector<std::string> statuses;
};
SdkAnswer AskSdk(const TempDir& dir, const Server& server, const std::string& tool,
                 const std::string& arguments = "{}") {
  const CommandResult r = Run({FixtureNode(), Fixture("task-client.mjs"), "--url", server.Url(),
                               "--tool", tool, "--arguments", arguments},
                              dir, {}, std::chrono::seconds(60));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const rapidjson::Document d = ParseJson(r.out);
  REQUIRE(d.IsObject());
  SdkAnswer a{d["kind"].GetString(), d["text"].GetString(), {}};
  for (const auto& s : d["statuses"].GetArray()) a.statuses.emplace_back(s.GetString());
  return a;
}

std::string CallLine(int id, const std::string& ns, const std::string& tool,
                     const std::string& arguments) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"call_dynamic_tool","arguments":{"namespace":")" +
         ns + R"(","toolName":")" + tool + R"(","arguments":)" + arguments + "}}}";
}

// The text of a tools/call answer from the bridge, and whether it is an error.
std::pair<std::string, bool> ToolText(const std::string& line) {
  const rapidjson::Document doc = ParseJson(line);
  REQUIRE(doc.IsObject());
  REQUIRE(doc.HasMember("result"));
  return {doc["result"]["content"][0]["text"].GetString(), doc["result"]["isError"].GetBool()};
}

// libmcpgw's answer to one call: status and text.
std::pair<mcpgw_status, std::string> LibCall(mcpgw_client* client, const std::string& ns,
                                             const std::string& tool, const std::string& arguments,
                                             mcpgw_cancel* cancel = nullptr) {
  char* out = nullptr;
  const mcpgw_status st =
      mcpgw_call_dynamic_tool(client, ns.c_str(), tool.c_str(), arguments.c_str(), cancel, &out);
  std::string text = out ? out : "";
  mcpgw_free(out);
  return {st, text};
}

using Client = std::unique_ptr<mcpgw_client, decltype(&mcpgw_close)>;

TEST_CASE("tasks: a required tool through the CLI, libmcpgw and mcpgw stdio, as the SDK reads it",
          "[daemon][tasks]") {
  TempDir dir;
  Server tasks(dir, "tasks", "task-server.mjs");
  REQUIRE_UPSTREAM(tasks);
  Daemon d(dir, Config("tasks", tasks));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "tasks"));

  const std::string args = R"({"polls":3,"poll_ms":500})";
  const SdkAnswer sdk = AskSdk(dir, tasks, "report", args);
  REQUIRE(sdk.kind == "ok");
  CHECK(sdk.statuses.back() == "completed");
  const std::string expected =
      "report ready after 3 polls\n\nsecond block: the figures\n\n[image omitted: "
      "image/png]\n\n[resource: file:///reports/1.pdf]\n\nembedded text";
  CHECK(sdk.text == expected);

  const auto start = std::chrono::steady_clock::now();
  const CommandResult cli = d.Cli({"call", "tasks", "report", args});
  const auto took = std::chrono::steady_clock::now() - start;
  INFO(cli.err);
  CHECK(cli.code == 0);
  CHECK(cli.out == sdk.text + "\n");
  // Three polls 0.5 s apart, then the result.
  CHECK(took >= std::chrono::milliseconds(1400));
  CHECK(took < std::chrono::seconds(10));
  WARN("a task call of 3 polls at 500 ms took "
       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");

  Client client(mcpgw_open(d.socket().c_str()), &mcpgw_close);
  const auto [lib_status, lib_text] = LibCall(client.get(), "tasks", "report", args);
  CHECK(lib_status == MCPGW_OK);
  CHECK(lib_text == sdk.text);

  StdioProcess bridge(d.socket());
  bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  REQUIRE(!bridge.ReadLine().empty());
  bridge.Write(CallLine(1, "tasks", "report", args));
  const auto [bridge_text, bridge_error] = ToolText(bridge.ReadLine());
  CHECK_FALSE(bridge_error);
  CHECK(bridge_text == sdk.text);

  // The gateway's three calls: each a tools/call with task (its ttl what
  // was left of the 5-minute deadline), three tasks/get and one tasks/result.
  const auto calls = tasks.Calls("report");
  REQUIRE(calls.size() == 4);  // the SDK client's first
  for (size_t i = 1; i < calls.size(); ++i) {
    CHECK(calls[i].first);
    CHECK(calls[i].second > 295000);
    CHECK(calls[i].second <= 300000);
  }
  CHECK(tasks.Count("polls", "report") == 4 * 3);
  CHECK(tasks.Count("results", "report") == 4);
  CHECK(tasks.Count("cancels", "report") == 0);
  // The task's id never reaches the daemon's log.
  CHECK(d.Log().find("taskId") == std::string::npos);
}

TEST_CASE("tasks: how each end of a task reaches the caller", "[daemon][tasks]") {
  TempDir dir;
  Server tasks(dir, "tasks", "task-server.mjs");
  REQUIRE_UPSTREAM(tasks);
  Daemon d(dir, Config("tasks", tasks));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "tasks"));

  struct Row {
    const char* tool;
    int code;
    std::string out;  // exact stdout, or the start of stderr's message
  };
  const Row rows[] = {
      {"fail_task", kExitBackend, "mcpgw: backend: disk quota exceeded on the build host"},
      {"fail_silent", kExitBackend, "mcpgw: backend: the upstream API refused the job"},
      {"ask_task", kExitBackend, "mcpgw: backend: the server needs input for this task"},
      {"server_cancels", kExitTransport,
       "mcpgw: transport: the server cancelled the task: an operator stopped it"},
      {"forget_task", kExitTransport, "mcpgw: transport: tasks/get failed: error -32602: "},
      {"flaky", 0, "done despite a flaky network\n"},
      {"instant", 0, "done at once, no task needed\n"},
      {"maybe_task", 0, "optional tool ran\n"},
  };
  for (const Row& row : rows) {
    INFO(row.tool);
    const CommandResult r = d.Cli({"call", "tasks", row.tool, "{}"});
    INFO(r.err);
    CHECK(r.code == row.code);
    if (row.code == 0) {
      CHECK(r.out == row.out);
    } else {
      CHECK(r.err.rfind(row.out, 0) == 0);
    }
  }
  // input_required: the task was cancelled, and the server says so.
  CHECK(tasks.Count("cancels", "ask_task") == 1);
  CHECK(tasks.CancelAnswers("ask_task") == std::vector<std::string>{"cancelled"});
  // The failed task's statusMessage was enough: its result was not fetched;
  // the one without was.
  CHECK(tasks.Count("results", "fail_task") == 0);
  CHECK(tasks.Count("results", "fail_silent") == 1);
  // flaky: a 503 and a dropped answer, each asked again at the next interval.
  CHECK(tasks.Count("polls", "flaky") == 3);
  for (const char* tool : {"fail_task", "server_cancels", "forget_task", "flaky", "fail_silent"}) {
    INFO(tool);
    CHECK(tasks.Count("cancels", tool) == 0);
  }
  // The optional tool was called without a task, byte for byte as before.
  CHECK(tasks.Calls("maybe_task") == std::vector<std::pair<bool, int64_t>>{{false, -1}});

  const CommandResult plain = d.Cli({"call", "tasks", "plain", R"({"text":"hi"})"});
  CHECK(plain.code == 0);
  CHECK(plain.out == "plain: hi\n");
  CHECK(tasks.Calls("plain") == std::vector<std::pair<bool, int64_t>>{{false, -1}});

  // The listing shows no trace of tasks.
  const CommandResult listing = d.Cli({"tools", "tasks"});
  CHECK(listing.code == 0);
  CHECK(listing.out.find("execution") == std::string::npos);
  CHECK(listing.out.find("taskSupport") == std::string::npos);
}

TEST_CASE("tasks: the task-creating tools/call runs at most once", "[daemon][tasks]") {
  TempDir dir;
  Server tasks(dir, "tasks", "task-server.mjs");
  REQUIRE_UPSTREAM(tasks);
  Daemon d(dir, Config("tasks", tasks));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "tasks"));
  // A kept-alive connection is warm: libcurl would send the call again on a
  // fresh one when it dies before the answer, unless told not to.
  REQUIRE(d.Cli({"call", "tasks", "plain", R"({"text":"warm"})"}).code == 0);
  const CommandResult r = d.Cli({"call", "tasks", "dropped", "{}"});
  CHECK(r.code == kExitTransport);
  CHECK(r.err.find("the tool may have run, and calling it again may run it again") !=
        std::string::npos);
  CHECK(tasks.Count("created", "dropped") == 1);
  CHECK(tasks.Calls("dropped").size() == 1);
}

TEST_CASE("tasks: dropping the call cancels its task, from every client", "[daemon][tasks]") {
  TempDir dir;
  Server tasks(dir, "tasks", "task-server.mjs");
  REQUIRE_UPSTREAM(tasks);
  Daemon d(dir, Config("tasks", tasks));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "tasks"));

  // Ctrl-C in mcpgw call.
  {
    Process cli({MCPGW_CLI_PATH, "--socket", d.socket(), "call", "tasks", "long_task", "{}"},
                dir / "cli.out", dir / "cli.err");
    REQUIRE(WaitFor([&] { return tasks.Count("polls", "long_task") >= 2; }));
    cli.Signal(SIGINT);
    CHECK(cli.Wait() == kExitInterrupted);
    REQUIRE(WaitFor([&] { return tasks.Count("cancels", "long_task") == 1; }));
    CHECK(tasks.CancelAnswers("long_task") == std::vector<std::string>{"cancelled"});
  }
  // A cancel token in libmcpgw.
  {
    Client client(mcpgw_open(d.socket().c_str()), &mcpgw_close);
    mcpgw_cancel* cancel = mcpgw_cancel_new();
    const int before = tasks.Count("polls", "long_task");
    std::thread trigger([&] {
      WaitFor([&] { return tasks.Count("polls", "long_task") >= before + 2; });
      mcpgw_cancel_trigger(cancel);
    });
    const auto [st, text] = LibCall(client.get(), "tasks", "long_task", "{}", cancel);
    trigger.join();
    mcpgw_cancel_free(cancel);
    CHECK(st == MCPGW_CANCELLED);
    REQUIRE(WaitFor([&] { return tasks.Count("cancels", "long_task") == 2; }));
  }
  // notifications/cancelled to mcpgw stdio.
  {
    StdioProcess bridge(d.socket());
    bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
    REQUIRE(!bridge.ReadLine().empty());
    const int before = tasks.Count("polls", "long_task");
    bridge.Write(CallLine(7, "tasks", "long_task", "{}"));
    REQUIRE(WaitFor([&] { return tasks.Count("polls", "long_task") >= before + 2; }));
    bridge.Write(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})");
    REQUIRE(WaitFor([&] { return tasks.Count("cancels", "long_task") == 3; }));
  }
  CHECK(tasks.CancelAnswers("long_task") ==
        std::vector<std::string>{"cancelled", "cancelled", "cancelled"});
  // Polling stopped with each call. The proof is a task polled at the same
  // 500 ms interval on the same session after the last cancel: by its second
  // poll, a long_task poll still scheduled would have arrived at least once.
  const int polls = tasks.Count("polls", "long_task");
  const CommandResult report = d.Cli({"call", "tasks", "report", R"({"polls":2})"});
  CHECK(report.code == 0);
  CHECK(tasks.Count("polls", "report") == 2);
  CHECK(tasks.Count("polls", "long_task") == polls);
}

TEST_CASE("tasks: the call deadline cancels the task", "[daemon][tasks]") {
  TempDir dir;
  Server tasks(dir, "tasks", "task-server.mjs");
  REQUIRE_UPSTREAM(tasks);
  WriteFile(dir / "settings.json", R"({"limits":{"call_timeout_s":3}})");
  Daemon d(dir, Config("tasks", tasks), {"--settings", dir / "settings.json"});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "tasks"));
  const CommandResult r = d.Cli({"call", "tasks", "long_task", "{}"});
  CHECK(r.code == kExitTransport);
  CHECK(r.err == "mcpgw: transport: timed out after 3 s\n");
  REQUIRE(WaitFor([&] { return tasks.Count("cancels", "long_task") == 1; }));
  CHECK(tasks.CancelAnswers("long_task") == std::vector<std::string>{"cancelled"});
  // Its ttl was the deadline.
  const auto calls = tasks.Calls("long_task");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].second > 2900);
  CHECK(calls[0].second <= 3000);
  // About six polls at 500 ms in 3 s.
  CHECK(tasks.Count("polls", "long_task") >= 4);
  CHECK(tasks.Count("polls", "long_task") <= 6);
}

TEST_CASE("tasks: shutdown cancels running tasks, then deletes the session", "[daemon][tasks]") {
  TempDir dir;
  Server tasks(dir, "tasks", "task-server.mjs");
  REQUIRE_UPSTREAM(tasks);
  Daemon d(dir, Config("tasks", tasks));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "tasks"));
  Process cli({MCPGW_CLI_PATH, "--socket", d.socket(), "call", "tasks", "long_task", "{}"},
              dir / "cli.out", dir / "cli.err");
  REQUIRE(WaitFor([&] { return tasks.Count("polls", "long_task") >= 1; }));
  d.process().Signal(SIGTERM);
  CHECK(d.process().Wait() == 0);
  CHECK(cli.Wait() == kExitTransport);
  CHECK(cli.Err() == "mcpgw: transport: gateway shutting down\n");
  CHECK(tasks.Count("cancels", "long_task") == 1);
  CHECK(tasks.CancelAnswers("long_task") == std::vector<std::string>{"cancelled"});
  // The DELETE came after the tasks/cancel was answered.
  const std::vector<std::string> methods = tasks.Methods();
  const auto cancel = std::find(methods.begin(), methods.end(), "tasks/cancel");
  const auto del = std::find(methods.begin(), methods.end(), "DELETE");
  REQUIRE(cancel != methods.end());
  REQUIRE(del != methods.end());
  CHECK(cancel < del);
}

TEST_CASE("tasks: a server that does not declare task-augmented tools/call", "[daemon][tasks]") {
  TempDir dir;
  Server tasks(dir, "tasks", "task-server.mjs", {"--undeclared"});
  REQUIRE_UPSTREAM(tasks);
  Daemon d(dir, Config("tasks", tasks));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "tasks"));
  // The tool requires a task: it is called as one anyway (without, the
  // server would refuse it), and what the server says of that is its answer.
  const CommandResult r = d.Cli({"call", "tasks", "report", R"({"polls":1})"});
  CHECK(r.code == kExitBackend);
  CHECK(r.err ==
        "mcpgw: backend: error -32603: Server does not support task creation (required "
        "for tools/call)\n");
  const auto calls = tasks.Calls("report");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].first);
  CHECK(d.Log().find("does not declare tasks.requests.tools.call") != std::string::npos);
}

TEST_CASE("tasks: server-everything's simulate-research-query, as the SDK reads it",
          "[daemon][tasks]") {
  TempDir dir;
  Server everything(dir, "everything", "everything-server.mjs");
  REQUIRE_UPSTREAM(everything);
  Daemon d(dir, Config("everything", everything));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "everything"));
  const std::string args = R"({"topic":"task-augmented tool calls"})";
  const SdkAnswer sdk = AskSdk(dir, everything, "simulate-research-query", args);
  REQUIRE(sdk.kind == "ok");
  CHECK(sdk.text.find("# Research Report: task-augmented tool calls") != std::string::npos);

  const auto start = std::chrono::steady_clock::now();
  const CommandResult cli = d.Cli({"call", "everything", "simulate-research-query", args});
  const auto took = std::chrono::steady_clock::now() - start;
  INFO(cli.err);
  CHECK(cli.code == 0);
  CHECK(cli.out == sdk.text + "\n");
  WARN("simulate-research-query (4 stages of 1 s, pollInterval 1 s) took "
       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");

  Client client(mcpgw_open(d.socket().c_str()), &mcpgw_close);
  const auto [st, text] = LibCall(client.get(), "everything", "simulate-research-query", args);
  CHECK(st == MCPGW_OK);
  CHECK(text == sdk.text);
}

}  // namespace
