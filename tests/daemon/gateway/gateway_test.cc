// Gateway and ServerHost on fake Envs (tests/daemon/testing/fake_env.h): a
// main loop and a worker, a manual clock, scripted upstream answers. Reload,
// retire, cancel routing and shutdown, deterministically and in microseconds.
#include "daemon/gateway/gateway.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "base/platform.h"
#include "daemon/guard/call_log.h"
#include "daemon/guard/policy.h"
#include "daemon/guard/request_digest.h"
#include "tests/daemon/testing/fake_env.h"

namespace mcpgw::testing {
namespace {

using namespace std::chrono_literals;

struct Reply {
  bool error = false;
  proto::ErrorKind kind = proto::ErrorKind::kTransport;
  std::string text;  // result text, JSON, or error message
};

class FakeReplies : public IpcReplies {
 public:
  void ReplyText(Ticket t, std::string_view text) override {
    Add(t, {false, {}, std::string(text)});
  }
  void ReplyTextLiteral(Ticket t, std::string_view literal) override {
    rapidjson::Document doc;
    doc.Parse(literal.data(), literal.size());
    REQUIRE(doc.IsString());
    Add(t, {false, {}, doc.GetString()});
  }
  void ReplyJson(Ticket t, std::string_view json) override {
    Add(t, {false, {}, std::string(json)});
  }
  void ReplyError(Ticket t, proto::ErrorKind kind, std::string_view message) override {
    Add(t, {true, kind, std::string(message)});
  }
  std::map<Ticket, Reply> replies;
  int duplicates = 0;

 private:
  void Add(Ticket t, Reply r) {
    if (replies.count(t)) ++duplicates;
    replies[t] = std::move(r);
  }
};

config::Entry Remote(const std::string& name, const std::string& url,
                     const std::string& token = "t0ken-value") {
  config::Entry e;
  e.name = name;
  config::RemoteServer r;
  r.url = Secret(url);
  r.url_redacted = url;
  r.headers.push_back({"Authorization", Secret("Bearer " + token)});
  e.remote = std::move(r);
  return e;
}

config::Config Config(std::vector<config::Entry> entries) {
  config::Config c;
  c.entries = std::move(entries);
  return c;
}

const std::string kInit =
    R"({"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}})";

std::string Tools(const std::vector<std::string>& names) {
  std::string out = "{\"tools\":[";
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i ? "," : "") + std::string("{\"name\":\"") + names[i] + "\"}";
  }
  return out + "]}";
}

std::string Text(const std::string& text) {
  return R"({"content":[{"type":"text","text":")" + text + "\"}]}";
}

struct Harness {
  FakeWorld world;
  FakeEnv main{&world};
  FakeEnv worker{&world};
  FakeReplies replies;
  Gateway gateway;
  Ticket next_ticket = 1;

  explicit Harness(GatewayOptions options = Defaults())
      : gateway(&main, {&main, &worker}, std::move(options)) {
    gateway.SetReplies(&replies);
  }
  static GatewayOptions Defaults() {
    GatewayOptions o;
    o.config_path = "/home/u/.config/mcpgw/mcp.json";
    o.socket_path = "/run/user/1/mcpgw/mcpgw.sock";
    return o;
  }

  // Answers a new session's handshake and listing on `http`.
  void BringUp(FakeHttp& http, const std::vector<std::string>& tools,
               const std::string& sid = "sid-1") {
    world.Settle();
    http.RespondResult(http.Post("initialize"), kInit, sid);
    http.Respond(http.Post("notifications/initialized"), 202, "", "");
    http.RespondResult(http.Post("tools/list"), Tools(tools));
  }

  Ticket Request(std::string_view method, const std::string& params = "{}") {
    const Ticket t = next_ticket++;
    const std::string frame = R"({"jsonrpc":"2.0","id":1,"method":")" + std::string(method) +
                              R"(","params":)" + params + "}";
    rapidjson::Document doc;
    doc.Parse(params.c_str(), params.size());
    REQUIRE(doc.IsObject());
    gateway.OnRequest(t, Peer{42, 1000}, method, doc, frame);
    world.Settle();
    return t;
  }
  Ticket Call(const std::string& ns, const std::string& tool, const std::string& args = "{}") {
    return Request(proto::kCallDynamicTool, R"({"namespace":")" + ns + R"(","toolName":")" + tool +
                                                R"(","arguments":)" + args + "}");
  }
  std::string Listing() {
    const Ticket t = Request(proto::kGetDynamicTools);
    return replies.replies.at(t).text;
  }
  rapidjson::Document Status() {
    const Ticket t = Request(proto::kStatus);
    rapidjson::Document doc;
    doc.Parse(replies.replies.at(t).text.c_str());
    REQUIRE(doc.IsObject());
    return doc;
  }
  const rapidjson::Value& Row(rapidjson::Document& status, const std::string& ns) {
    for (const auto& row : status["servers"].GetArray()) {
      if (ns == row["namespace"].GetString()) return row;
    }
    FAIL("no status row for " << ns);
    return status;
  }
};

TEST_CASE("gateway: servers are sharded over the workers and become ready", "[gateway]") {
  Harness h;
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.world.Settle();
  CHECK(h.Listing() == R"({"servers":[{"namespace":"alpha","status":"loading","tools":[]},)"
                       R"({"namespace":"beta","status":"loading","tools":[]}]})");
  // alpha runs on the main loop itself, beta on the worker.
  REQUIRE(h.main.http().Find(HttpMethod::kPost, "initialize"));
  REQUIRE(h.worker.http().Find(HttpMethod::kPost, "initialize"));
  CHECK(h.main.http().Post("initialize").request.url == "https://a.test/mcp");
  h.BringUp(h.main.http(), {"add", "echo"});
  h.BringUp(h.worker.http(), {"x"});
  CHECK(h.Listing() ==
        R"({"servers":[{"namespace":"alpha","status":"ready","tools":["add","echo"]},)"
        R"({"namespace":"beta","status":"ready","tools":["x"]}]})");
}

TEST_CASE("gateway: says when tool lists change, and when no server is loading any more",
          "[gateway]") {
  Harness h;
  std::vector<bool> changes;
  h.gateway.SetToolsChanged([&](bool settled) { changes.push_back(settled); });
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.world.Settle();
  CHECK(changes.empty());
  h.BringUp(h.main.http(), {"add", "echo"});
  h.world.Settle();
  CHECK(changes == std::vector<bool>{false});  // beta is still loading
  h.BringUp(h.worker.http(), {"x"});
  h.world.Settle();
  CHECK(changes == std::vector<bool>{false, true});
}

TEST_CASE("gateway: a call goes to its server's host and its answer to its ticket", "[gateway]") {
  Harness h;
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  h.BringUp(h.worker.http(), {"echo"});
  const Ticket a = h.Call("alpha", "echo", R"({"n":123456789012345678901234567890})");
  const Ticket b = h.Call("beta", "echo", R"({"t":1e-400})");
  FakeTransfer& to_a = h.main.http().Post("tools/call");
  FakeTransfer& to_b = h.worker.http().Post("tools/call");
  // The arguments went upstream byte for byte.
  CHECK(to_a.request.body.find(R"("arguments":{"n":123456789012345678901234567890})") !=
        std::string::npos);
  CHECK(to_b.request.body.find(R"("arguments":{"t":1e-400})") != std::string::npos);
  h.worker.http().RespondResult(to_b, Text("from beta"));
  h.main.http().RespondResult(to_a, Text("from alpha"));
  CHECK(h.replies.replies.at(a).text == "from alpha");
  CHECK(h.replies.replies.at(b).text == "from beta");
  auto status = h.Status();
  CHECK(h.Row(status, "alpha")["calls"].GetInt() == 1);
  CHECK(h.Row(status, "beta")["in_flight"].GetInt() == 0);
}

TEST_CASE("gateway: a retired host's late state change never lands on the new server",
          "[gateway][reload]") {
  Harness h;
  h.gateway.Load(
      Config({Remote("spare", "https://s.test/mcp"), Remote("alpha", "https://a.test/mcp")}));
  h.world.Settle();
  // alpha's host (on the worker) gets ready, but the main loop has not yet
  // taken the news when the configuration changes alpha.
  FakeHttp& http = h.worker.http();
  http.RespondResult(http.Post("initialize"), kInit, "sid-1");
  http.Respond(http.Post("notifications/initialized"), 202, "", "");
  FakeTransfer& list = http.Post("tools/list");
  list.sink->OnHttpHead(list.tag, ResponseHead{200, "application/json", "", "", ""});
  list.sink->OnHttpData(list.tag, R"({"jsonrpc":"2.0","id":)" + std::to_string(list.RpcId()) +
                                      R"(,"result":)" + Tools({"old"}) + "}");
  list.done = true;
  list.sink->OnHttpDone(list.tag, TransferResult{});
  // Not settled: the "ready" message is still queued for the main loop.
  h.gateway.Reload(Config({Remote("spare", "https://s.test/mcp"),
                           Remote("alpha", "https://a.test/mcp", "other-token")}));
  h.world.Settle();
  CHECK(h.Listing().find(R"({"namespace":"alpha","status":"loading","tools":[]})") !=
        std::string::npos);
  // And a call finds a loading server: a clear answer, at once.
  const Ticket t = h.Call("alpha", "old");
  REQUIRE(h.replies.replies.count(t));
  CHECK(h.replies.replies.at(t).kind == proto::ErrorKind::kNotReady);
}

TEST_CASE("gateway: a changed server's old session is DELETEd, its call answered",
          "[gateway][reload]") {
  Harness h;
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  const Ticket t = h.Call("alpha", "echo");
  FakeTransfer& call = h.main.http().Post("tools/call");
  h.gateway.Reload(Config({Remote("alpha", "https://a2.test/mcp")}));
  h.world.Settle();
  CHECK(call.aborted);
  REQUIRE(h.replies.replies.count(t));
  CHECK(h.replies.replies.at(t).kind == proto::ErrorKind::kTransport);
  FakeTransfer* del = h.main.http().Find(HttpMethod::kDelete);
  REQUIRE(del);
  CHECK(del->request.url == "https://a.test/mcp");
  CHECK(del->Header("Mcp-Session-Id") == "sid-1");
  // The new entry's session starts at the new url (on the next worker).
  FakeTransfer* init = h.worker.http().Find(HttpMethod::kPost, "initialize");
  REQUIRE(init);
  CHECK(init->request.url == "https://a2.test/mcp");
  h.main.http().Respond(*del, 204, "", "");
  CHECK(h.replies.duplicates == 0);
}

TEST_CASE("gateway: an unchanged server keeps its session and calls across a reload",
          "[gateway][reload]") {
  Harness h;
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  const Ticket t = h.Call("alpha", "echo");
  h.gateway.Reload(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.world.Settle();
  h.main.http().RespondResult(h.main.http().Post("tools/call"), Text("kept"));
  CHECK(h.replies.replies.at(t).text == "kept");
  CHECK(h.main.http().Count(HttpMethod::kPost, "initialize") == 1);
  CHECK(h.main.http().Find(HttpMethod::kDelete) == nullptr);
}

TEST_CASE("gateway: a cancel reaches the call's host, which tells the server",
          "[gateway][cancel]") {
  Harness h;
  h.gateway.Load(
      Config({Remote("spare", "https://s.test/mcp"), Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"x"});
  h.BringUp(h.worker.http(), {"slow"});
  const Ticket t = h.Call("alpha", "slow");
  FakeTransfer& call = h.worker.http().Post("tools/call");
  h.gateway.OnCancel(t);
  h.world.Settle();
  CHECK(call.aborted);
  FakeTransfer& cancelled = h.worker.http().Post("notifications/cancelled");
  CHECK(cancelled.request.body.find("\"requestId\":" + std::to_string(call.RpcId())) !=
        std::string::npos);
  CHECK(h.replies.replies.count(t) == 0);  // a cancelled ticket gets no reply
  CHECK(h.main.http().Find(HttpMethod::kPost, "notifications/cancelled") == nullptr);
  auto status = h.Status();
  CHECK(h.Row(status, "alpha")["in_flight"].GetInt() == 0);
}

TEST_CASE("gateway: shutdown DELETEs every session, then finishes", "[gateway][shutdown]") {
  GatewayOptions options = Harness::Defaults();
  options.shutdown_grace = 3s;
  Harness h(options);
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.BringUp(h.main.http(), {"x"});
  h.BringUp(h.worker.http(), {"y"});
  const Ticket t = h.Call("beta", "y");
  bool done = false;
  h.gateway.Shutdown([&] { done = true; });
  h.world.Settle();
  REQUIRE(h.replies.replies.count(t));
  CHECK(h.replies.replies.at(t).text == "gateway shutting down");
  FakeTransfer* del_a = h.main.http().Find(HttpMethod::kDelete);
  FakeTransfer* del_b = h.worker.http().Find(HttpMethod::kDelete);
  REQUIRE(del_a);
  REQUIRE(del_b);
  h.main.http().Respond(*del_a, 204, "", "");
  CHECK_FALSE(done);
  SECTION("all answered") {
    h.worker.http().Respond(*del_b, 204, "", "");
    CHECK(done);
  }
  SECTION("a server that never answers is bounded by the grace time") {
    h.world.Advance(3s - 1ms);
    CHECK_FALSE(done);
    h.world.Advance(1ms);
    CHECK(done);
    CHECK(del_b->aborted);
  }
  // Calls after shutdown are refused at once.
  const Ticket late = h.Call("alpha", "x");
  CHECK(h.replies.replies.at(late).text == "mcpgwd is shutting down");
  h.gateway.ReleaseHosts();
  h.world.Settle();
}

TEST_CASE("gateway: status names url, protocol and HTTP versions and the last failure",
          "[gateway]") {
  Harness h;
  config::Entry refused;
  refused.name = "local";
  refused.refusal = std::string(config::kLocalRefusal);
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp"), refused}));
  auto status = h.Status();
  CHECK(h.Row(status, "alpha")["url"].GetString() == std::string("https://a.test/mcp"));
  CHECK(h.Row(status, "alpha")["protocol_version"].IsNull());
  CHECK(h.Row(status, "alpha")["http_version"].IsNull());
  CHECK(h.Row(status, "alpha")["last_error"].IsNull());
  CHECK(h.Row(status, "alpha")["last_error_unix"].IsNull());
  CHECK(h.Row(status, "local")["url"].IsNull());
  CHECK(status["daemon"]["settings"].IsNull());
  CHECK(status["daemon"]["settings_error"].IsNull());
  CHECK(status["daemon"]["config"].GetString() == std::string("/home/u/.config/mcpgw/mcp.json"));

  h.BringUp(h.main.http(), {"echo"});
  h.world.Advance(5s);
  h.Call("alpha", "echo");
  h.main.http().Fail(h.main.http().Post("tools/call"), "connection reset");
  status = h.Status();
  const auto& row = h.Row(status, "alpha");
  CHECK(row["protocol_version"].GetString() == std::string("2025-11-25"));
  CHECK(row["http_version"].GetString() == std::string("HTTP/1.1"));  // what the fake answers
  CHECK(std::string(row["last_error"].GetString()).rfind("connection reset", 0) == 0);
  CHECK(row["last_error_unix"].GetDouble() == Approx(h.world.UnixNow()));
  CHECK(row["errors"].GetInt() == 1);

  h.gateway.SettingsReloaded("settings.json:3:1: policy.allow: not a list");
  status = h.Status();
  CHECK(status["daemon"]["settings_error"].GetString() ==
        std::string("settings.json:3:1: policy.allow: not a list"));
}

TEST_CASE("gateway: a call to a host that is gone is answered, not lost", "[gateway]") {
  FakeWorld world;
  FakeEnv env(&world);
  struct Events : HostEvents {
    void OnHostState(HostId, ServerState) override {}
    void OnHostCallFinished(HostId, mcp::CallId call, mcp::CallOutcome outcome) override {
      finished.emplace_back(call, std::move(outcome));
    }
    void OnHostGone(HostId id) override { gone.push_back(id); }
    void OnHostAuthorizationNeeded(HostId, int, std::string) override {}
    std::vector<std::pair<mcp::CallId, mcp::CallOutcome>> finished;
    std::vector<HostId> gone;
  } events;
  HostTable table(&env, &env, &events);
  table.Call(7, 1, "echo", "{}");
  table.Retire(8, 1s);
  world.Settle();
  REQUIRE(events.finished.size() == 1);
  CHECK(events.finished[0].second.kind == mcp::CallErrorKind::kTransport);
  CHECK(events.gone == std::vector<HostId>{8});
}

// Captures what the daemon logs at `level` and above while it lives.
class LogCapture {
 public:
  explicit LogCapture(spdlog::level::level_enum level) : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    sink->set_pattern("%l %v");
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(level);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST_CASE("gateway: reloads, first failures and recoveries are logged at info", "[gateway][log]") {
  LogCapture log(spdlog::level::info);
  Harness h;
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  h.gateway.Reload(Config(
      {Remote("alpha", "https://a.test/mcp", "new-token"), Remote("gamma", "https://g.test/mcp")}));
  h.world.Settle();
  CHECK(log.text().find("info reload: 2 servers; added: \"gamma\"; removed: \"beta\"; "
                        "changed: \"alpha\"") != std::string::npos);
  h.BringUp(h.main.http(), {"echo"}, "sid-2");  // the changed alpha
  h.BringUp(h.worker.http(), {"echo"});         // gamma
  h.Call("alpha", "echo");
  h.main.http().Fail(h.main.http().Post("tools/call"), "connection reset");
  h.Call("alpha", "echo");
  h.main.http().Fail(h.main.http().Post("tools/call"), "connection reset");
  h.Call("alpha", "echo");
  h.main.http().RespondResult(h.main.http().Post("tools/call"), Text("back"));
  const std::string text = log.text();
  const size_t first = text.find("info server \"alpha\": a call failed: connection reset");
  CHECK(first != std::string::npos);
  CHECK(text.find("a call failed", first + 40) == std::string::npos);  // once, not per call
  CHECK(text.find("info server \"alpha\": calls succeed again") != std::string::npos);
  CHECK(text.find("new-token") == std::string::npos);
  CHECK(text.find("t0ken-value") == std::string::npos);
}

TEST_CASE("gateway: every call and session change is logged at debug", "[gateway][log]") {
  LogCapture log(spdlog::level::debug);
  Harness h;
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  h.Call("alpha", "echo", R"({"secret_arg":"do-not-log"})");
  h.main.http().RespondResult(h.main.http().Post("tools/call"), Text("ok"));
  const std::string text = log.text();
  CHECK(text.find("debug server \"alpha\": session 1 opened (protocol 2025-11-25)") !=
        std::string::npos);
  CHECK(text.find("debug call alpha/echo: ok in ") != std::string::npos);
  CHECK(text.find("bytes out") != std::string::npos);
  CHECK(text.find("do-not-log") == std::string::npos);
}

TEST_CASE("gateway: an origin known to speak 2025-11-25 is initialized without a probe",
          "[gateway][era]") {
  Harness h;
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.world.Settle();
  CHECK(h.main.http().Count(HttpMethod::kPost, "server/discover") == 1);
  h.BringUp(h.main.http(), {"echo"});
  // beta shares alpha's origin (it lands on the worker), gamma does not (main).
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://a.test/other"),
              Remote("gamma", "https://c.test/mcp")}));
  h.world.Settle();
  CHECK(h.worker.http().Count(HttpMethod::kPost, "server/discover") == 0);
  CHECK(h.worker.http().Find(HttpMethod::kPost, "initialize"));
  CHECK(h.main.http().Count(HttpMethod::kPost, "server/discover") == 2);
}

TEST_CASE("gateway: status shows the era a server was found to speak", "[gateway][era]") {
  Harness h;
  h.main.http().legacy_servers = false;
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.world.Settle();
  FakeHttp& http = h.main.http();
  http.RespondResult(http.Post("server/discover"),
                     R"({"resultType":"complete","supportedVersions":["2026-07-28"],)"
                     R"("capabilities":{"tools":{}}})");
  CHECK(http.Post("tools/list").Header("MCP-Protocol-Version") == "2026-07-28");
  http.RespondResult(http.Post("tools/list"), Tools({"echo"}));
  rapidjson::Document status = h.Status();
  const rapidjson::Value& row = h.Row(status, "alpha");
  CHECK(std::string(row["status"].GetString()) == "ready");
  CHECK(std::string(row["protocol_version"].GetString()) == "2026-07-28");
  CHECK(http.Count(HttpMethod::kPost, "initialize") == 0);
}

// A private folder for the files a test makes, removed with what it holds.
struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/mcpgw-gateway-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string path;
};

std::chrono::system_clock::time_point ModifiedAt(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(base::ModifiedTime(st).tv_sec) +
          std::chrono::nanoseconds(base::ModifiedTime(st).tv_nsec)));
}

TEST_CASE("gateway: a kept result is named and expired by the Env's wall clock",
          "[gateway][results]") {
  TempDir tmp;
  const std::string dir = tmp.path + "/results";
  Harness h;
  ResultsSettings results;
  results.max_text_bytes = 100;
  h.gateway.SetResults(results, dir);
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"dump"});
  // 2023-11-14T22:13:20.000Z, the fake wall clock's start.
  const Ticket t = h.Call("alpha", "dump");
  h.main.http().RespondResult(h.main.http().Post("tools/call"), Text(std::string(300, 'x')));
  const std::string file =
      dir + "/20231114T221320.000Z-" + RequestDigest("alpha", "dump", "{}")->substr(0, 16) + ".txt";
  CHECK(h.replies.replies.at(t).text.find("the full text is in " + file) != std::string::npos);
  REQUIRE(std::filesystem::exists(file));

  // The sweep every ten minutes judges the file's age by the same clock:
  // kept a little under a day after it was written, gone a little over.
  const auto written = ModifiedAt(file);
  h.world.SetWallNow(written + 23h);
  h.world.Advance(10min);
  CHECK(std::filesystem::exists(file));
  h.world.SetWallNow(written + 25h);
  h.world.Advance(10min);
  CHECK_FALSE(std::filesystem::exists(file));
}

TEST_CASE("gateway: the call log's time is the Env's wall clock", "[gateway][log]") {
  TempDir tmp;
  CallLog log;
  REQUIRE(log.Open(tmp.path + "/calls.jsonl", 1 << 20, 1).ok());
  Harness h;
  h.gateway.SetCallLog(&log);
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  h.world.SetWallNow(std::chrono::system_clock::time_point(1'900'000'000'123ms));
  h.Call("alpha", "echo");
  h.main.http().RespondResult(h.main.http().Post("tools/call"), Text("hi"));
  std::ifstream in(tmp.path + "/calls.jsonl");
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK(line.rfind(R"({"time":"2030-03-17T17:46:40.123Z",)", 0) == 0);
}

// A call to alpha (on the main loop) whose answer comes `took` later.
void CallTaking(Harness& h, Duration took, bool backend_error = false) {
  h.Call("alpha", "echo");
  h.world.Advance(took);
  h.main.http().RespondResult(
      h.main.http().Post("tools/call"),
      backend_error ? R"({"isError":true,"content":[{"type":"text","text":"no"}]})" : Text("ok"));
}

// A bucket's width: a percentile from the histogram is within it.
const double kBucketWidth = std::exp2(1.0 / 3);

TEST_CASE("gateway: status's minute holds the calls of the last 60 s, by the Env's clock",
          "[gateway][minute]") {
  Harness h;
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  auto status = h.Status();
  {
    const auto& minute = h.Row(status, "alpha")["minute"];
    CHECK(minute["calls"].GetUint64() == 0);
    CHECK(minute["p50_ms"].IsNull());
    CHECK(minute["p99_ms"].IsNull());
    CHECK(minute["errors"].IsObject());
    CHECK(minute["errors"].MemberCount() == 0);
  }
  for (int i = 0; i < 3; ++i) CallTaking(h, 5ms);
  h.world.Advance(40s);
  CallTaking(h, 20ms);
  CallTaking(h, 20ms);
  status = h.Status();
  CHECK(h.Row(status, "alpha")["minute"]["calls"].GetUint64() == 5);

  // The first three are 70 s old now, the last two 30 s.
  h.world.Advance(30s);
  status = h.Status();
  const auto& row = h.Row(status, "alpha");
  CHECK(row["calls"].GetUint64() == 5);  // since the start, as before
  CHECK(row["minute"]["calls"].GetUint64() == 2);
  const double p50 = row["minute"]["p50_ms"].GetDouble();
  CHECK(p50 > 20 / kBucketWidth);
  CHECK(p50 < 20 * kBucketWidth);
  CHECK(row["latency_p50_ms"].GetDouble() == Approx(5));  // the median of every call kept
  CHECK(status["daemon"]["calls"].GetUint64() == 5);

  h.world.Advance(31s);
  status = h.Status();
  CHECK(h.Row(status, "alpha")["minute"]["calls"].GetUint64() == 0);
  CHECK(h.Row(status, "alpha")["minute"]["p50_ms"].IsNull());
  CHECK(h.Row(status, "alpha")["minute"]["p99_ms"].IsNull());
}

TEST_CASE("gateway: the minute's p50 and p99 from known latencies", "[gateway][minute]") {
  Harness h;
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  for (int i = 0; i < 98; ++i) CallTaking(h, 10ms);
  CallTaking(h, 1000ms);
  CallTaking(h, 1000ms);
  auto status = h.Status();
  const auto& minute = h.Row(status, "alpha")["minute"];
  CHECK(minute["calls"].GetUint64() == 100);
  const double p50 = minute["p50_ms"].GetDouble(), p99 = minute["p99_ms"].GetDouble();
  CHECK(p50 > 10 / kBucketWidth);
  CHECK(p50 < 10 * kBucketWidth);
  CHECK(p99 > 1000 / kBucketWidth);
  CHECK(p99 < 1000 * kBucketWidth);
}

TEST_CASE("gateway: the minute's errors by kind, refusals and cancels included",
          "[gateway][minute]") {
  Harness h;
  PolicySettings policy;
  policy.deny = {"alpha/secret"};
  h.gateway.SetPolicy(std::make_shared<const Policy>(policy));
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.BringUp(h.main.http(), {"echo", "secret"});  // beta, on the worker, stays loading
  CallTaking(h, 1ms);
  CallTaking(h, 1ms, /*backend_error=*/true);
  h.Call("alpha", "echo");
  h.main.http().Fail(h.main.http().Post("tools/call"), "connection reset");
  h.Call("alpha", "secret");   // denied
  h.Call("alpha", "nothing");  // invalid_request: no such tool
  h.Call("beta", "x");         // not_ready
  h.Call("nowhere", "x");      // no server's
  const Ticket t = h.Call("alpha", "echo");
  h.gateway.OnCancel(t);
  h.world.Settle();

  auto status = h.Status();
  const auto& alpha = h.Row(status, "alpha")["minute"];
  CHECK(alpha["calls"].GetUint64() == 3);  // ok, backend and transport reached it
  const auto& errors = alpha["errors"];
  std::map<std::string, uint64_t> by_kind;
  for (const auto& m : errors.GetObject()) by_kind[m.name.GetString()] = m.value.GetUint64();
  CHECK(by_kind == std::map<std::string, uint64_t>{{"backend", 1},
                                                   {"transport", 1},
                                                   {"denied", 1},
                                                   {"invalid_request", 1},
                                                   {"cancelled", 1}});
  const auto& beta = h.Row(status, "beta")["minute"];
  CHECK(beta["calls"].GetUint64() == 0);
  CHECK(beta["p50_ms"].IsNull());
  CHECK(beta["errors"].MemberCount() == 1);
  CHECK(beta["errors"]["not_ready"].GetUint64() == 1);
  CHECK(status["daemon"]["calls"].GetUint64() == 3);
}

TEST_CASE("gateway: status's daemon figures for mcpgw top", "[gateway][minute]") {
  Harness h;
  h.gateway.Load(
      Config({Remote("alpha", "https://a.test/mcp"), Remote("beta", "https://b.test/mcp")}));
  h.BringUp(h.main.http(), {"echo"});
  h.BringUp(h.worker.http(), {"echo"});
  auto status = h.Status();
  const auto& daemon = status["daemon"];
  REQUIRE(daemon["rss_bytes"].IsUint64());
  CHECK(daemon["rss_bytes"].GetUint64() > 1'000'000);  // this test's own process
  REQUIRE(daemon["cpu_s"].IsNumber());
  CHECK(daemon["cpu_s"].GetDouble() > 0);
  CHECK(daemon["calls"].GetUint64() == 0);
  CHECK(daemon["in_flight"].GetUint64() == 0);
  CHECK(daemon["queued"].GetUint64() == 0);
  CHECK(daemon["call_log"].IsNull());  // none set

  h.Call("alpha", "echo");
  h.Call("alpha", "echo");
  h.Call("beta", "echo");
  status = h.Status();
  CHECK(status["daemon"]["in_flight"].GetUint64() == 3);
  h.main.http().RespondResult(h.main.http().Post("tools/call"), Text("one"));
  status = h.Status();
  CHECK(status["daemon"]["in_flight"].GetUint64() == 2);
  CHECK(status["daemon"]["calls"].GetUint64() == 1);
}

TEST_CASE("gateway: status names the call log's path", "[gateway][minute][log]") {
  TempDir tmp;
  CallLog log;
  REQUIRE(log.Open(tmp.path + "/calls.jsonl", 1 << 20, 1).ok());
  Harness h;
  h.gateway.SetCallLog(&log);
  h.gateway.Load(Config({Remote("alpha", "https://a.test/mcp")}));
  auto status = h.Status();
  REQUIRE(status["daemon"]["call_log"].IsString());
  CHECK(status["daemon"]["call_log"].GetString() == tmp.path + "/calls.jsonl");
}

}  // namespace
}  // namespace mcpgw::testing
