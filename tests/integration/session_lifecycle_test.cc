// The session's rules end to end (BEHAVIOR.md §3, §5), against a server whose life
// the test drives (tests/fixtures/lifecycle-server.mjs) and which counts on
// its side how often each tool ran, which sessions were made and DELETEd,
// and which bytes arrived: a call runs at most once, a restarted server's new
// tools show without a call, abandoned sessions are DELETEd, the arguments
// arrive as the host wrote them, and an answer over the frame limit fails
// alone.
#include <chrono>
#include <future>
#include <string>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "mcpgw.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

// One lifecycle-server.mjs on an ephemeral loopback port, killed at the end.
class LifecycleServer {
 public:
  LifecycleServer(const TempDir& dir, std::vector<std::string> args = {}) {
    const std::string node = FixtureNode();
    if (node.empty()) return;
    out_ = dir / "lifecycle.out";
    std::vector<std::string> argv = {
        node, std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/lifecycle-server.mjs", "--port",
        "0"};
    for (auto& a : args) argv.push_back(a);
    proc_ = std::make_unique<Process>(argv, out_, dir / "lifecycle.err");
    WaitFor([&] {
      std::string text = ReadFile(out_);
      size_t at = text.find("LISTENING ");
      if (at == std::string::npos) return !proc_->Alive();
      port_ = std::atoi(text.c_str() + at + 10);
      return true;
    });
  }
  bool ok() const { return port_ > 0; }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
  rapidjson::Document Stats() const {
    auto body = HttpGet(port_, "/__stats");
    rapidjson::Document d = ParseJson(body ? *body : "{}");
    if (!d.IsObject()) d.SetObject();
    return d;
  }
  int Runs(const std::string& tool) const {
    auto d = Stats();
    if (!d.HasMember("runs") || !d["runs"].HasMember(tool.c_str())) return 0;
    return d["runs"][tool.c_str()].GetInt();
  }
  std::vector<std::string> List(const char* key) const {
    std::vector<std::string> out;
    auto d = Stats();
    if (!d.HasMember(key)) return out;
    for (const auto& v : d[key].GetArray()) out.emplace_back(v.IsString() ? v.GetString() : "");
    return out;
  }
  bool Restart(const std::string& tools_json) {
    return HttpPost(port_, "/__restart", R"({"tools":)" + tools_json + "}");
  }
  bool FailListing(int times) {
    return HttpPost(port_, "/__fail-listing", R"({"times":)" + std::to_string(times) + "}");
  }

 private:
  std::string out_;
  std::unique_ptr<Process> proc_;
  int port_ = 0;
};

std::string OneServer(const LifecycleServer& s, const std::string& name = "life") {
  return R"({"mcpServers":{")" + name + R"(":{"url":")" + s.Url() + R"("}}})";
}

// `mcpgw tools NS --json`'s tool names, comma-joined ("" on failure).
std::string ToolNames(Daemon& d, const std::string& ns) {
  auto r = d.Cli({"tools", ns, "--json"});
  auto doc = ParseJson(r.out);
  if (!doc.IsObject() || !doc.HasMember("tools")) return "";
  std::string out;
  for (const auto& t : doc["tools"].GetArray()) {
    out += (out.empty() ? "" : ",") + std::string(t["name"].GetString());
  }
  return out;
}

}  // namespace

TEST_CASE("lifecycle: a call whose stream is cut and cannot be resumed runs once", "[lifecycle]") {
  TempDir dir;
  LifecycleServer server(dir);
  REQUIRE_UPSTREAM(server);
  Daemon d(dir, OneServer(server));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "life"));
  auto r = d.Cli({"call", "life", "prime_cut"});
  CHECK(r.code == 5);  // transport
  CHECK(r.err.find("the tool may have run, and calling it again may run it again") !=
        std::string::npos);
  // The 404 on the resumption also told the daemon the session is gone: it
  // opens another, and still does not send the call again.
  CHECK(WaitFor([&] { return server.List("sessions").size() >= 2; }));
  // A later call is the barrier: a call waiting for the new session goes out
  // before any call made after it, so once `count` has run, a second
  // prime_cut would have reached the server already.
  CHECK(d.Cli({"call", "life", "count"}).out == "ran 1\n");
  CHECK(server.Runs("prime_cut") == 1);
  // Its resumption came before its outcome, which the CLI has.
  CHECK(server.List("resumes").size() == 1);
  CHECK(Row(d, "life").status == "ready");
}

TEST_CASE("lifecycle: a refused resumption fails the call once and keeps the session",
          "[lifecycle]") {
  TempDir dir;
  LifecycleServer server(dir, {"--tools", "count,prime_refused"});
  REQUIRE_UPSTREAM(server);
  Daemon d(dir, OneServer(server));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "life"));
  auto r = d.Cli({"call", "life", "prime_refused"});
  CHECK(r.code == 5);  // transport
  CHECK(r.err.find("the tool may have run, and calling it again may run it again") !=
        std::string::npos);
  // A later call in the same session is the barrier: had prime_refused been
  // queued to go out again, it would have gone before this one. The session
  // is alive: it serves the call, not re-initialized, not DELETEd.
  CHECK(d.Cli({"call", "life", "count"}).out == "ran 1\n");
  CHECK(server.Runs("prime_refused") == 1);
  const auto stats = server.Stats();
  REQUIRE(stats["resumes"].Size() == 1);
  CHECK(stats["resumes"][0]["status"].GetInt() == 405);
  CHECK(server.List("sessions").size() == 1);
  CHECK(server.List("deleted").empty());
}

TEST_CASE("lifecycle: a restarted server's new tools show without a call", "[lifecycle]") {
  TempDir dir;
  LifecycleServer server(dir, {"--tools", "count,old"});
  REQUIRE_UPSTREAM(server);
  Daemon d(dir, OneServer(server));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "life"));
  REQUIRE(ToolNames(d, "life") == "count,old");
  REQUIRE(WaitFor([&] { return server.Stats()["gets"].GetInt() >= 1; }));
  REQUIRE(server.Restart(R"(["count","new"])"));
  // The GET stream breaks, is reopened after its first back-off step (1 s)
  // and gets 404: the session expired, a new one lists the tools.
  CHECK(WaitFor([&] { return ToolNames(d, "life") == "count,new"; }, std::chrono::seconds(10)));
  // Measured on the server: from the restart to the new session's listing
  // takes the GET stream's back-off plus a few requests.
  const auto stats = server.Stats();
  REQUIRE(stats["restarts"].Size() == 1);
  REQUIRE(stats["listedAt"].Size() == 2);
  const double took_ms = stats["listedAt"][1].GetDouble() - stats["restarts"][0].GetDouble();
  INFO("restart to new listing: " << took_ms << " ms");
  CHECK(took_ms >= 900);  // not sooner than the back-off: nothing else prompted it
  CHECK(took_ms < 2500);
  CHECK(server.Runs("count") == 0);  // no call was needed
  CHECK(d.Log().find("expired (HTTP 404 on the GET stream)") != std::string::npos);
}

TEST_CASE("lifecycle: a call in flight when the server restarts runs once, the new tools show",
          "[lifecycle]") {
  TempDir dir;
  LifecycleServer server(dir, {"--tools", "count,hold,old"});
  REQUIRE_UPSTREAM(server);
  Daemon d(dir, OneServer(server));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "life"));
  // The server takes the call, sends a priming event, and restarts before
  // answering: the stream is cut and the session it could resume in is gone.
  auto call = std::async(std::launch::async, [&] { return d.Cli({"call", "life", "hold"}); });
  REQUIRE(WaitFor([&] { return server.Runs("hold") == 1; }));
  REQUIRE(server.Restart(R"(["count","hold","new"])"));
  REQUIRE(call.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  const auto r = call.get();
  CHECK(r.code == 5);  // transport
  CHECK(r.err.find("the tool may have run, and calling it again may run it again") !=
        std::string::npos);
  CHECK(
      WaitFor([&] { return ToolNames(d, "life") == "count,hold,new"; }, std::chrono::seconds(10)));
  // A later call through the new session is the barrier: had hold waited
  // there to go out again, it would have gone first. "ran 1": no other call
  // was made either.
  CHECK(d.Cli({"call", "life", "count"}).out == "ran 1\n");
  CHECK(server.Runs("hold") == 1);
  CHECK(server.Runs("count") == 1);
  // A resumption comes before the call's outcome, which the CLI has.
  CHECK(server.Stats()["resumes"].Size() <= 1);
  // The server forgot the old session: there is nothing to DELETE.
  CHECK(server.List("deleted").empty());
  CHECK(Row(d, "life").status == "ready");
}

TEST_CASE("lifecycle: a restarted server whose listing fails is listed on the next attempt",
          "[lifecycle]") {
  TempDir dir;
  LifecycleServer server(dir, {"--tools", "count,old"});
  REQUIRE_UPSTREAM(server);
  Daemon d(dir, OneServer(server));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "life"));
  REQUIRE(ToolNames(d, "life") == "count,old");
  REQUIRE(WaitFor([&] { return server.Stats()["gets"].GetInt() >= 1; }));
  REQUIRE(server.FailListing(1));
  REQUIRE(server.Restart(R"(["count","new"])"));
  // The GET stream finds the session gone; the new session's listing fails,
  // so it is DELETEd and the next attempt, a back-off step later, lists.
  CHECK(WaitFor([&] { return ToolNames(d, "life") == "count,new"; }, std::chrono::seconds(15)));
  const auto sessions = server.List("sessions");
  REQUIRE(sessions.size() == 3);
  CHECK(server.List("deleted") == std::vector<std::string>{sessions[1]});
  CHECK(server.Runs("count") == 0);
  CHECK(Row(d, "life").status == "ready");
  CHECK(d.Cli({"call", "life", "new"}).out == "new\n");
}

TEST_CASE("lifecycle: attempts whose listing failed leave no session behind", "[lifecycle]") {
  TempDir dir;
  LifecycleServer server(dir);
  REQUIRE_UPSTREAM(server);
  REQUIRE(server.FailListing(2));
  Daemon d(dir, OneServer(server));
  REQUIRE(d.WaitListening());
  // Fails at once and after 1 s, then succeeds after 2 s more.
  REQUIRE(WaitReady(d, "life", std::chrono::seconds(15)));
  const auto sessions = server.List("sessions");
  const auto deleted = server.List("deleted");
  REQUIRE(sessions.size() == 3);
  CHECK(deleted == std::vector<std::string>{sessions[0], sessions[1]});
  auto status = ParseJson(d.Cli({"status", "--json"}).out);
  REQUIRE(status.IsObject());
  const auto& row = status["servers"][0];
  auto text = [&](const char* key) {
    return row.HasMember(key) && row[key].IsString() ? std::string(row[key].GetString())
                                                     : std::string("<none>");
  };
  CHECK(text("last_error") == "HTTP 500 from server");
  CHECK(text("protocol_version") == "2025-11-25");
  CHECK(text("url") == server.Url());
}

TEST_CASE("lifecycle: arguments reach the server byte for byte from every host", "[lifecycle]") {
  TempDir dir;
  LifecycleServer server(dir);
  REQUIRE_UPSTREAM(server);
  Daemon d(dir, OneServer(server));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "life"));
  // Numbers no double holds, escapes, raw UTF-8, odd spacing: nothing may be
  // parsed and written again on the way.
  const std::string args =
      R"({"big": 123456789012345678901234567890, "tiny": 1e-400, "neg" :-0, "exp":1E+2,)"
      R"( "f": 1.50, "e": "\u00e9", "pair": "\ud83d\ude00", "raw": "é",)"
      "\t"
      R"("nested": {"a": [1, 2.0, {}, []], "b": null, "q": "\"}{\\"} })";
  // The CLI.
  auto r = d.Cli({"call", "life", "echo_raw", args});
  REQUIRE(r.code == 0);
  // libmcpgw.
  mcpgw_client* c = mcpgw_open(d.socket().c_str());
  char* out = nullptr;
  CHECK(mcpgw_call_dynamic_tool(c, "life", "echo_raw", args.c_str(), nullptr, &out) == MCPGW_OK);
  mcpgw_free(out);
  mcpgw_close(c);
  // The stdio bridge, as an MCP host drives it.
  WriteFile(dir / "stdio.in",
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})"
            "\n"
            R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"call_dynamic_tool",)"
            R"("arguments":{"namespace":"life","toolName":"echo_raw","arguments":)" +
                args + "}}}\n");
  auto bridge = Run({"/bin/sh", "-c", "exec \"$0\" --socket \"$1\" stdio < \"$2\"", MCPGW_CLI_PATH,
                     d.socket(), dir / "stdio.in"},
                    dir);
  CHECK(bridge.code == 0);
  CHECK(bridge.out.find(R"("id":1)") != std::string::npos);
  CHECK(bridge.out.find(R"("text":"ok")") != std::string::npos);

  const auto raw = server.List("raw");
  REQUIRE(raw.size() == 3);
  for (const auto& body : raw) CHECK(body.find(R"("arguments":)" + args) != std::string::npos);
}

TEST_CASE("lifecycle: an answer over the frame limit fails alone, the handle carries on",
          "[lifecycle]") {
  TempDir dir;
  std::string tools;
  for (int i = 0; i < 25; ++i) tools += (i ? ",t" : "t") + std::to_string(i);
  LifecycleServer server(dir, {"--tools", tools, "--schema-bytes", "409600", "--pages", "4"});
  REQUIRE_UPSTREAM(server);
  Daemon d(dir, OneServer(server, "huge"));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "huge", std::chrono::seconds(60)));
  mcpgw_client* c = mcpgw_open(d.socket().c_str());
  char* out = nullptr;
  mcpgw_status st = mcpgw_get_dynamic_tools(c, "huge", nullptr, nullptr, &out);
  const std::string text = out ? out : "";
  mcpgw_free(out);
  CHECK(st == MCPGW_TRANSPORT);
  CHECK(text.find("frame limit of the local socket") != std::string::npos);
  CHECK(text.find("32 MiB") != std::string::npos);
  // The same handle still works: one tool's schema fits.
  out = nullptr;
  st = mcpgw_get_dynamic_tools(c, "huge", "t3", nullptr, &out);
  CHECK(st == MCPGW_OK);
  CHECK(std::string(out ? out : "").find("\"name\":\"t3\"") != std::string::npos);
  mcpgw_free(out);
  mcpgw_close(c);
}
