// A tools/call reaches its server at most once (docs/ARCHITECTURE.md), seen
// from the server's side: the real mcpgwd and `mcpgw call` against
// tests/fixtures/drop-server.mjs, which counts every execution of its tool
// per nonce and drops a kept-alive connection at each point of an exchange
// (before reading the request, after reading it, after running the tool,
// mid-answer, mid-SSE-stream), by a plain close or a TCP reset, over
// HTTP/1.1 keep-alive and HTTP/2 over TLS, and restarts between calls. Each
// dropping call goes out on a warm connection a normal call used first; with
// the fixture answering as the SDKs do (SSE), that warm connection is one an
// SSE answer left in the pool, which is also what keeps sequential calls on
// one connection, plain or over TLS.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

constexpr const char* kLost = "the connection was lost after the request was sent";
constexpr int kExitTransport = 5;

// One line of the fixture's log.
struct Event {
  std::string event;
  std::string conn;
  std::string nonce;
  std::string point;
  std::string how;
};

std::string Field(const rapidjson::Value& v, const char* name) {
  return v.HasMember(name) && v[name].IsString() ? v[name].GetString() : "";
}

// drop-server.mjs, restartable on the same ports; its log file outlives it.
class DropServer {
 public:
  // `h2_streams` > 0: the HTTP/2 port's SETTINGS_MAX_CONCURRENT_STREAMS.
  DropServer(const TempDir& dir, bool tls, bool sse = false, int h2_streams = 0)
      : dir_(dir), log_(dir / "drop.jsonl"), sse_(sse), h2_streams_(h2_streams) {
    if (tls) {
      certs_ = dir / "certs";
      const std::string script = std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/make-certs.sh";
      if (Run({"/bin/bash", script, certs_}, dir).code != 0) return;
    }
    Start();
  }
  bool ok() const { return control_ > 0 && h1_ > 0 && (certs_.empty() || h2_ > 0); }
  std::string H1Url() const { return "http://127.0.0.1:" + std::to_string(h1_) + "/mcp"; }
  std::string H2Url() const { return "https://localhost:" + std::to_string(h2_) + "/mcp"; }
  std::string H1sUrl() const { return "https://localhost:" + std::to_string(h1s_) + "/mcp"; }
  std::string CaFile() const { return certs_ + "/ca.pem"; }

  // The next `times` requests that reach `point` are dropped there.
  bool Arm(const std::string& point, const std::string& how, int times = 1) {
    return HttpPost(control_, "/arm",
                    R"({"point":")" + point + R"(","how":")" + how + R"(","times":)" +
                        std::to_string(times) + "}");
  }
  // Drops every connection `how` and exits, then starts again on the same ports.
  bool Restart(const std::string& how) {
    HttpPost(control_, "/exit", R"({"how":")" + how + "\"}");
    if (proc_->Wait(std::chrono::seconds(10)) < 0) return false;
    Start();
    return ok();
  }

  std::vector<Event> Events() const {
    std::vector<Event> out;
    const std::string text = ReadFile(log_);
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      rapidjson::Document d = ParseJson(text.substr(start, nl - start));
      if (!d.IsObject()) continue;
      out.push_back({Field(d, "event"), Field(d, "conn"), Field(d, "nonce"), Field(d, "point"),
                     Field(d, "how")});
    }
    return out;
  }
  // Connections accepted so far, over restarts.
  int Accepts() const {
    int n = 0;
    for (const Event& e : Events()) n += e.event == "accept";
    return n;
  }
  int Runs(const std::string& nonce) const {
    int n = 0;
    for (const Event& e : Events()) n += e.event == "ran" && e.nonce == nonce;
    return n;
  }
  // The connection of the first event `event` of `nonce` ("" if none).
  std::string ConnOf(const std::string& event, const std::string& nonce) const {
    for (const Event& e : Events()) {
      if (e.event == event && e.nonce == nonce) return e.conn;
    }
    return "";
  }
  // The connection the drop at `point` by `how` happened on ("" if none).
  std::string DropConn(const std::string& point, const std::string& how) const {
    for (const Event& e : Events()) {
      if (e.event == "dropped" && e.point == point && e.how == how) return e.conn;
    }
    return "";
  }

 private:
  void Start() {
    control_ = h1_ = h2_ = h1s_ = 0;
    const std::string node = FixtureNode();
    if (node.empty()) return;
    std::vector<std::string> argv = {
        node,         std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/drop-server.mjs",
        "--log",      log_,
        "--h1-port",  std::to_string(h1_port_),
        "--h2-port",  std::to_string(h2_port_),
        "--h1s-port", std::to_string(h1s_port_),
    };
    if (sse_) argv.push_back("--sse");
    if (h2_streams_ > 0) {
      argv.push_back("--h2-streams");
      argv.push_back(std::to_string(h2_streams_));
    }
    if (!certs_.empty()) {
      argv.push_back("--tls-dir");
      argv.push_back(certs_);
    }
    const std::string out = dir_ / ("drop" + std::to_string(starts_++) + ".out");
    proc_ = std::make_unique<Process>(argv, out, out + ".err");
    WaitFor([&] {
      const std::string text = ReadFile(out);
      const size_t at = text.find("LISTENING ");
      if (at == std::string::npos || text.find('\n', at) == std::string::npos) {
        return !proc_->Alive();
      }
      std::sscanf(text.c_str() + at, "LISTENING control=%d h1=%d h2=%d h1s=%d", &control_, &h1_,
                  &h2_, &h1s_);
      return true;
    });
    h1_port_ = h1_;
    h2_port_ = h2_;
    h1s_port_ = h1s_;
  }

  const TempDir& dir_;
  std::string log_;
  std::string certs_;
  std::unique_ptr<Process> proc_;
  int starts_ = 0;
  bool sse_ = false;
  int h2_streams_ = 0;
  int control_ = 0, h1_ = 0, h2_ = 0, h1s_ = 0;
  int h1_port_ = 0, h2_port_ = 0, h1s_port_ = 0;
};

// mcpgwd with one server "drop", a call log, a short call deadline (every
// wait bounded) and, for TLS, the fixture's CA.
class Gateway {
 public:
  // `limits`: the settings' "limits" object.
  Gateway(const TempDir& dir, const std::string& url, const std::string& ca_file,
          const std::string& limits = R"({"call_timeout_s":15})")
      : calls_(dir / "calls.jsonl") {
    std::string settings = R"({"call_log":{"path":")" + calls_ + R"("},"limits":)" + limits;
    if (!ca_file.empty()) settings += R"(,"tls":{"ca_file":")" + ca_file + "\"}";
    WriteFile(dir / "settings.json", settings + "}");
    daemon_ =
        std::make_unique<Daemon>(dir, R"({"mcpServers":{"drop":{"url":")" + url + "\"}}}",
                                 std::vector<std::string>{"--settings", dir / "settings.json"});
  }
  Daemon& daemon() { return *daemon_; }
  CommandResult Call(const std::string& nonce) {
    return daemon_->Cli({"call", "drop", "run", R"({"nonce":")" + nonce + "\"}"});
  }
  // `n` calls at once, each answered after `ms`: HTTP/1.1 opens a connection
  // for each, and keeps them all. True when every one succeeded.
  bool CallTogether(int n, int ms, const TempDir& dir) {
    std::vector<std::unique_ptr<Process>> running = StartTogether(n, ms, dir);
    bool ok = true;
    for (auto& p : running) ok = p->Wait(std::chrono::seconds(20)) == 0 && ok;
    return ok;
  }
  // The `mcpgw call`s of CallTogether, started (nonces together-0 ...).
  std::vector<std::unique_ptr<Process>> StartTogether(int n, int ms, const TempDir& dir) {
    std::vector<std::unique_ptr<Process>> running;
    for (int i = 0; i < n; i++) {
      const std::string out = dir / ("together" + std::to_string(i));
      running.push_back(std::make_unique<Process>(
          std::vector<std::string>{MCPGW_CLI_PATH, "--socket", daemon_->socket(), "call", "drop",
                                   "run",
                                   R"({"nonce":"together-)" + std::to_string(i) + R"(","ms":)" +
                                       std::to_string(ms) + "}"},
          out + ".out", out + ".err"));
    }
    return running;
  }
  // The server's "queued" in `mcpgw status --json` (-1 when absent).
  int64_t Queued() {
    rapidjson::Document doc = ParseJson(daemon_->Cli({"status", "--json"}).out);
    if (!doc.IsObject() || !doc.HasMember("servers") || !doc["servers"].IsArray()) return -1;
    for (const auto& s : doc["servers"].GetArray()) {
      if (s.HasMember("queued") && s["queued"].IsInt64()) return s["queued"].GetInt64();
    }
    return -1;
  }
  // The outcomes of the call log, in order.
  std::vector<std::string> Outcomes() const {
    std::vector<std::string> out;
    const std::string text = ReadFile(calls_);
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      rapidjson::Document d = ParseJson(text.substr(start, nl - start));
      out.push_back(d.IsObject() ? Field(d, "outcome") : "<not JSON>");
    }
    return out;
  }
  // Waits for the call log to hold `n` lines; the last outcome ("" if not).
  std::string OutcomeOfCall(size_t n) const {
    WaitFor([&] { return Outcomes().size() >= n; }, std::chrono::seconds(5));
    const std::vector<std::string> all = Outcomes();
    return all.size() == n ? all.back() : "";
  }

 private:
  std::string calls_;
  std::unique_ptr<Daemon> daemon_;
};

// What one call that may have run must end as: `transport` with the
// transport's text, recorded as such in the call log.
void CheckLost(const CommandResult& r, Gateway& gw, size_t calls) {
  INFO("exit " << r.code << ", stdout \"" << r.out << "\", stderr \"" << r.err << "\"");
  CHECK(r.code == kExitTransport);
  CHECK(r.err.find(kLost) != std::string::npos);
  CHECK(gw.OutcomeOfCall(calls) == "transport");
}

// Every drop point, both ways, each on a connection a normal call warmed.
void DropEverywhere(DropServer& server, Gateway& gw) {
  size_t calls = 0;
  for (const char* point : {"before-read", "after-read", "after-run", "mid-answer", "mid-sse"}) {
    for (const char* how : {"fin", "reset"}) {
      const std::string tag = std::string(point) + "-" + how;
      INFO("drop " << tag);
      const std::string warm = "warm-" + tag, nonce = "drop-" + tag;
      const CommandResult first = gw.Call(warm);
      REQUIRE(first.out == "ran " + warm + "\n");
      CHECK(gw.OutcomeOfCall(++calls) == "ok");
      REQUIRE(server.Arm(point, how));
      const CommandResult r = gw.Call(nonce);
      ++calls;
      // The drop happened, on the very connection the warm call used.
      const std::string dropped_on = server.DropConn(point, how);
      CHECK_FALSE(dropped_on.empty());
      CHECK(dropped_on == server.ConnOf("ran", warm));
      const int runs = server.Runs(nonce);
      if (std::string(point) == "before-read") {
        // Provably not run: a re-send may succeed, and then ran once.
        INFO("exit " << r.code << ", stderr \"" << r.err << "\"");
        CHECK(runs == (r.code == 0 ? 1 : 0));
        if (r.code == 0) {
          CHECK(gw.OutcomeOfCall(calls) == "ok");
        } else {
          CheckLost(r, gw, calls);
        }
        continue;
      }
      CHECK(runs == (std::string(point) == "after-read" ? 0 : 1));
      CheckLost(r, gw, calls);
    }
  }
  CHECK(gw.daemon().process().Alive());
}

// A restart between two calls leaves the pooled connection stale: the next
// call runs exactly once, or fails cleanly without running.
void RestartBetweenCalls(DropServer& server, Gateway& gw) {
  size_t calls = 0;
  for (const char* how : {"fin", "reset"}) {
    INFO("restart, connections dropped by " << how);
    const std::string warm = std::string("before-restart-") + how;
    REQUIRE(gw.Call(warm).out == "ran " + warm + "\n");
    CHECK(gw.OutcomeOfCall(++calls) == "ok");
    REQUIRE(server.Restart(how));
    const std::string nonce = std::string("after-restart-") + how;
    const CommandResult r = gw.Call(nonce);
    ++calls;
    INFO("exit " << r.code << ", stderr \"" << r.err << "\"");
    const int runs = server.Runs(nonce);
    CHECK(runs <= 1);
    if (r.code == 0) {
      CHECK(runs == 1);
      CHECK(r.out == "ran " + nonce + "\n");
      CHECK(gw.OutcomeOfCall(calls) == "ok");
    } else {
      CHECK(r.code == kExitTransport);
      CHECK(gw.OutcomeOfCall(calls) == "transport");
    }
    // And the server is served again.
    const std::string after = std::string("again-") + how;
    CHECK(gw.Call(after).out == "ran " + after + "\n");
    CHECK(server.Runs(after) == 1);
    calls++;
  }
}

}  // namespace

TEST_CASE("at most once: HTTP/1.1 keep-alive connections dropped at every point",
          "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/false);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H1Url(), "");
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  DropEverywhere(server, gw);
}

TEST_CASE("at most once: every kept HTTP/1.1 connection drops the call in turn", "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/false);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H1Url(), "");
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  // Six kept connections: a re-send would find another one to go out on.
  REQUIRE(gw.CallTogether(6, 300, dir));
  REQUIRE(server.Arm("after-run", "reset", 10));
  const CommandResult r = gw.Call("pool");
  CHECK(server.Runs("pool") == 1);
  CheckLost(r, gw, 7);
}

TEST_CASE("at most once: HTTP/2 connections dropped at every point", "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/true);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H2Url(), server.CaFile());
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  DropEverywhere(server, gw);
}

TEST_CASE("at most once: an HTTP/2 stream the server refuses runs at most once", "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/true);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H2Url(), server.CaFile());
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  REQUIRE(gw.Call("warm").out == "ran warm\n");
  REQUIRE(server.Arm("refuse", "fin"));
  const CommandResult r = gw.Call("refused");
  CHECK(server.DropConn("refuse", "fin") == server.ConnOf("ran", "warm"));
  // REFUSED_STREAM says the server did not process the request, but libcurl
  // does not tell its re-send for that from one after a dead connection:
  // the transport refuses both, so the call fails without having run.
  const int runs = server.Runs("refused");
  if (r.code == 0) {
    CHECK(runs == 1);
  } else {
    CHECK(runs == 0);
    CheckLost(r, gw, 2);
  }
}

TEST_CASE("at most once: HTTP/1.1 server restarted between calls", "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/false);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H1Url(), "");
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  RestartBetweenCalls(server, gw);
}

TEST_CASE("at most once: HTTP/2 server restarted between calls", "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/true);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H2Url(), server.CaFile());
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  RestartBetweenCalls(server, gw);
}

TEST_CASE("at most once: connections SSE answers left in the pool, dropped at every point",
          "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/false, /*sse=*/true);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H1Url(), "");
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  DropEverywhere(server, gw);
}

TEST_CASE("SSE answers keep their HTTP/1.1 connection for the next call, plain and over TLS",
          "[at_most_once]") {
  const bool tls = GENERATE(false, true);
  CAPTURE(tls);
  TempDir dir;
  DropServer server(dir, /*tls=*/true, /*sse=*/true);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, tls ? server.H1sUrl() : server.H1Url(), server.CaFile());
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  const int before = server.Accepts();
  constexpr int kCalls = 40;
  for (int i = 0; i < kCalls; i++) {
    const std::string nonce = "seq-" + std::to_string(i);
    REQUIRE(gw.Call(nonce).out == "ran " + nonce + "\n");
  }
  // Cut after every answer, each call would have opened a connection (and,
  // over TLS, paid a handshake) of its own.
  CHECK(server.Accepts() - before <= 2);
}

TEST_CASE("calls past the connection budget wait in the daemon, in order, within their deadline",
          "[at_most_once]") {
  TempDir dir;
  DropServer server(dir, /*tls=*/false, /*sse=*/true);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H1Url(), "", R"({"call_timeout_s":4,"max_connections_per_server":2})");
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  const int before = server.Accepts();

  SECTION("six calls of 600 ms: two at a time, all answered, the rest shown as queued") {
    auto running = gw.StartTogether(6, 600, dir);
    int64_t most_queued = 0;
    WaitFor(
        [&] {
          most_queued = std::max(most_queued, gw.Queued());
          return most_queued >= 2;
        },
        std::chrono::seconds(3));
    CHECK(most_queued >= 2);
    for (auto& p : running) CHECK(p->Wait(std::chrono::seconds(20)) == 0);
    for (int i = 0; i < 6; i++) CHECK(server.Runs("together-" + std::to_string(i)) == 1);
    CHECK(server.Accepts() - before <= 2);
    CHECK(gw.Queued() == 0);
  }
  SECTION("a call whose caller goes away while it is queued never reaches the server") {
    // Two calls of 2 s hold both places; the third waits behind them.
    auto running = gw.StartTogether(2, 2000, dir);
    REQUIRE(WaitFor([&] { return server.Runs("together-1") == 1; }, std::chrono::seconds(5)));
    Process caller({MCPGW_CLI_PATH, "--socket", gw.daemon().socket(), "call", "drop", "run",
                    R"({"nonce":"queued"})"},
                   dir / "queued.out", dir / "queued.err");
    REQUIRE(WaitFor([&] { return gw.Queued() == 1; }, std::chrono::seconds(5)));
    caller.Signal(SIGKILL);
    caller.Wait();
    CHECK(WaitFor([&] { return gw.Queued() == 0; }, std::chrono::seconds(5)));
    for (auto& p : running) CHECK(p->Wait(std::chrono::seconds(20)) == 0);
    // The places came free; the cancelled call had none to take.
    REQUIRE(gw.Call("after").out == "ran after\n");
    CHECK(server.Runs("queued") == 0);
  }
}

TEST_CASE("HTTP/2: calls share a connection as streams and another opens only when one is full",
          "[at_most_once]") {
  // 0: the server allows any number of streams; 2: two per connection.
  const int streams = GENERATE(0, 2);
  CAPTURE(streams);
  TempDir dir;
  DropServer server(dir, /*tls=*/true, /*sse=*/false, streams);
  REQUIRE_UPSTREAM(server);
  Gateway gw(dir, server.H2Url(), server.CaFile());
  REQUIRE(gw.daemon().WaitListening());
  REQUIRE(WaitReady(gw.daemon(), "drop"));
  const int before = server.Accepts();
  auto running = gw.StartTogether(6, 800, dir);
  int answered = 0;
  for (size_t i = 0; i < running.size(); i++) {
    const std::string out = dir / ("together" + std::to_string(i));
    const int code = running[i]->Wait(std::chrono::seconds(20));
    const std::string text = ReadFile(out + ".out") + ReadFile(out + ".err");
    INFO("call " << i << ": " << text);
    const int runs = server.Runs("together-" + std::to_string(i));
    if (streams == 0 || code == 0) {
      CHECK(code == 0);
      CHECK(runs == 1);
      answered += code == 0;
    } else {
      // A new connection's streams may go out before its SETTINGS frame says
      // two: the server refuses the extra ones (REFUSED_STREAM, not run), and
      // libcurl's re-send of them looks like one after a dead connection, which
      // the at-most-once guard refuses. Such a call fails without having run.
      CHECK(runs == 0);
      CHECK(text.find("transport") != std::string::npos);
    }
  }
  const int opened = server.Accepts() - before;
  if (streams == 0) {
    // Six calls at once ride the connection the session already has.
    CHECK(opened == 0);
  } else {
    // Two streams a connection: the six need at least two more connections, and get no
    // more than one each; most calls are answered.
    CHECK(opened >= 2);
    CHECK(opened <= 6);
    CHECK(answered >= 2);
  }
}
