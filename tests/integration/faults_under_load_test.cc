// Faults while many calls wait (docs/ARCHITECTURE.md, the budget per origin):
// 1,000 calls go at once, through libmcpgw's pollable interface, to an
// upstream that misbehaves, with limits.max_connections_per_server at 16 so
// most of them wait in the daemon's queue. Whatever the fault, every call is
// answered by its deadline with the right error kind, the queue drains, the
// daemon's descriptors and memory come back near where they were, and a
// healthy server on another origin is served at its own pace meanwhile.
//   - a server that accepts calls and never answers them (fault-server /stall)
//   - a server that answers every call 503 with Retry-After (fault-server)
//   - a server that closes every second connection it accepts (drop-server)
#include <dirent.h>
#include <poll.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "integration/service_harness.h"
#include "mcpgw.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

constexpr int kCalls = 1000;
constexpr int kHandles = 4;
constexpr int kCallTimeoutS = 4;

// What one call ended with.
struct Outcome {
  mcpgw_status status = MCPGW_OK;
  std::string text;
  std::chrono::steady_clock::time_point end;
};

// Request ids are per handle: a call is known by its place in the Caller.
struct Slot {
  std::map<size_t, Outcome>* done;
  size_t index;
};

void OnDone(void* user_data, mcpgw_request, mcpgw_status status, const char* text, size_t len) {
  auto* slot = static_cast<Slot*>(user_data);
  (*slot->done)[slot->index] =
      Outcome{status, std::string(text, len), std::chrono::steady_clock::now()};
  delete slot;
}

// Pollable handles on the daemon's socket, and a loop that runs them.
class Caller {
 public:
  explicit Caller(const std::string& socket) {
    for (int i = 0; i < kHandles; i++) clients_.push_back(mcpgw_open(socket.c_str()));
  }
  ~Caller() {
    for (mcpgw_client* c : clients_) mcpgw_close(c);
  }
  // Starts a call on the next handle; its outcome lands in done() under
  // the index returned.
  size_t Start(const std::string& ns, const std::string& tool, const std::string& args) {
    mcpgw_client* c = clients_[next_++ % clients_.size()];
    const size_t index = started_++;
    auto* slot = new Slot{&done_, index};
    if (mcpgw_start_call_dynamic_tool(c, ns.c_str(), tool.c_str(), args.c_str(), OnDone, slot) ==
        0) {
      delete slot;
      done_[index] = Outcome{MCPGW_INVALID_REQUEST, "the handle refused the call",
                             std::chrono::steady_clock::now()};
    }
    return index;
  }
  // Runs the handles for up to `ms`, or until every call started ended.
  void Run(int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    std::vector<pollfd> fds(clients_.size());
    while (done_.size() < started_ && std::chrono::steady_clock::now() < until) {
      long timeout = 100;
      for (size_t i = 0; i < clients_.size(); i++) {
        int events = 0;
        fds[i] = pollfd{mcpgw_fd(clients_[i], &events), POLLIN, 0};
        const long t = mcpgw_timeout(clients_[i]);
        if (t >= 0 && t < timeout) timeout = t;
      }
      poll(fds.data(), fds.size(), static_cast<int>(timeout));
      for (mcpgw_client* c : clients_) mcpgw_process(c);
    }
  }
  const std::map<size_t, Outcome>& done() const { return done_; }
  size_t started() const { return started_; }

 private:
  std::vector<mcpgw_client*> clients_;
  size_t next_ = 0;
  size_t started_ = 0;
  std::map<size_t, Outcome> done_;
};

size_t OpenFds(pid_t pid) {
  size_t n = 0;
  if (DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

long RssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

// The "queued" of server `ns` in `mcpgw status --json` (-1 when absent).
int64_t Queued(Daemon& d, const std::string& ns) {
  rapidjson::Document doc = ParseJson(d.Cli({"status", "--json"}).out);
  if (!doc.IsObject() || !doc.HasMember("servers") || !doc["servers"].IsArray()) return -1;
  for (const auto& s : doc["servers"].GetArray()) {
    if (s["namespace"].GetString() == ns && s.HasMember("queued") && s["queued"].IsInt64()) {
      return s["queued"].GetInt64();
    }
  }
  return -1;
}

// drop-server.mjs with --drop-every 2, plain HTTP/1.1.
class EverySecondDropped {
 public:
  explicit EverySecondDropped(const TempDir& dir) : log_(dir / "drop.jsonl") {
    const std::string node = FixtureNode();
    if (node.empty()) return;
    const std::string out = dir / "drop.out";
    proc_ = std::make_unique<Process>(
        std::vector<std::string>{node,
                                 std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/drop-server.mjs",
                                 "--log", log_, "--drop-every", "2"},
        out, out + ".err");
    WaitFor([&] {
      const std::string text = ReadFile(out);
      const size_t at = text.find(" h1=");
      if (at == std::string::npos || text.find('\n', at) == std::string::npos) {
        return !proc_->Alive();
      }
      port_ = std::atoi(text.c_str() + at + 4);
      return true;
    });
  }
  bool ok() const { return port_ > 0; }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
  // How often the tool ran for each nonce.
  std::map<std::string, int> Runs() const {
    std::map<std::string, int> runs;
    const std::string text = ReadFile(log_);
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      rapidjson::Document d = ParseJson(text.substr(start, nl - start));
      if (d.IsObject() && d.HasMember("event") && std::string(d["event"].GetString()) == "ran") {
        runs[d["nonce"].GetString()]++;
      }
    }
    return runs;
  }

 private:
  std::string log_;
  std::unique_ptr<Process> proc_;
  int port_ = 0;
};

// The daemon with servers "bad" at `bad_url` and "good" at `good_url`.
std::unique_ptr<Daemon> StartGateway(const TempDir& dir, const std::string& bad_url,
                                     const std::string& good_url) {
  WriteFile(dir / "settings.json", R"({"limits":{"call_timeout_s":)" +
                                       std::to_string(kCallTimeoutS) +
                                       R"(,"max_connections_per_server":16}})");
  auto d = std::make_unique<Daemon>(
      dir,
      R"({"mcpServers":{"bad":{"url":")" + bad_url + R"("},"good":{"url":")" + good_url + R"("}}})",
      std::vector<std::string>{"--settings", dir / "settings.json"});
  REQUIRE(d->WaitListening());
  REQUIRE(WaitReady(*d, "bad"));
  REQUIRE(WaitReady(*d, "good"));
  return d;
}

// Fires kCalls at "bad" and, while they are out, one call at a time at
// "good"; checks what holds whatever the fault and returns bad's outcomes.
// `stuck`: the storm's calls wait for their deadline, so a call to "good"
// that queued behind them would take that long.
std::vector<Outcome> Storm(Daemon& d, const std::string& tool, const std::string& args_prefix,
                           bool stuck = false) {
  const pid_t pid = d.process().pid();
  {
    Caller warm(d.socket());
    warm.Start("good", "probe", "{}");
    warm.Run(5000);
  }
  const size_t fds_before = OpenFds(pid);
  const long rss_before = RssKb(pid);

  std::vector<Outcome> out;
  {
    Caller caller(d.socket());
    for (int i = 0; i < kCalls; i++)
      caller.Start("bad", tool, args_prefix + std::to_string(i) + "\"}");
    const auto start = std::chrono::steady_clock::now();
    // The healthy server, one call at a time while the storm is out.
    Caller good(d.socket());
    std::vector<double> good_ms;
    for (int i = 0; i < 10 && caller.done().size() < caller.started(); i++) {
      const auto t0 = std::chrono::steady_clock::now();
      good.Start("good", "probe", "{}");
      while (good.done().size() < good.started() &&
             std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
        good.Run(20);
        caller.Run(5);
      }
      good_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    caller.Run((kCallTimeoutS + 10) * 1000);

    // Every call answered, by its deadline (with slack for a loaded machine).
    REQUIRE(caller.done().size() == static_cast<size_t>(kCalls));
    for (const auto& [index, outcome] : caller.done()) {
      CHECK(outcome.end - start < std::chrono::seconds(kCallTimeoutS + 6));
      out.push_back(outcome);
    }
    for (const auto& [index, outcome] : good.done()) {
      INFO(outcome.text);
      CHECK(outcome.status == MCPGW_OK);
    }
    // The other origin's calls did not wait behind the storm: each ended
    // long before the storm's calls could.
    if (stuck) {
      for (double ms : good_ms) CHECK(ms < kCallTimeoutS * 1000 * 0.6);
    }
  }
  // The queue drained; descriptors and memory came back: what stays open is
  // at most the budget's connections, kept for the next calls.
  CHECK(WaitFor([&] { return Queued(d, "bad") == 0; }, std::chrono::seconds(5)));
  const bool fds_back =
      WaitFor([&] { return OpenFds(pid) <= fds_before + 16 + 4; }, std::chrono::seconds(10));
  INFO("descriptors " << fds_before << " before, " << OpenFds(pid) << " after");
  CHECK(fds_back);
  CHECK(RssKb(pid) < rss_before + 64 * 1024);
  CHECK(d.process().Alive());
  return out;
}

// A fault-server.mjs for the faults and another, on its own origin, whose
// /ok path is the healthy server.
struct FaultServers {
  TempDir dir;
  TempDir other;
  NodeServer bad{dir, "fault-server.mjs"};
  NodeServer good{other, "fault-server.mjs"};
  std::string BadUrl(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(bad.port()) + path;
  }
  std::string GoodUrl() const { return "http://127.0.0.1:" + std::to_string(good.port()) + "/ok"; }
};

}  // namespace

TEST_CASE("faults under load: 1,000 calls to a server that never answers end by their deadline",
          "[faults]") {
  FaultServers s;
  REQUIRE_UPSTREAM(s.bad, s.good);
  auto d = StartGateway(s.dir, s.BadUrl("/stall"), s.GoodUrl());
  const std::vector<Outcome> outcomes = Storm(*d, "probe", R"({"n":")", /*stuck=*/true);
  for (const Outcome& o : outcomes) {
    INFO(o.text);
    CHECK(o.status == MCPGW_TRANSPORT);
    CHECK(o.text.find("timed out") != std::string::npos);
  }
}

TEST_CASE("faults under load: 1,000 calls to a server answering 503 with Retry-After", "[faults]") {
  FaultServers s;
  REQUIRE_UPSTREAM(s.bad, s.good);
  auto d = StartGateway(s.dir, s.BadUrl("/status/503/on-call"), s.GoodUrl());
  // What one such call ends as, alone: every call of the storm ends so.
  Caller one(d->socket());
  one.Start("bad", "probe", "{}");
  one.Run(10000);
  REQUIRE(one.done().size() == 1);
  const Outcome alone = one.done().begin()->second;
  CHECK(alone.status != MCPGW_OK);
  CHECK(alone.text.find("503") != std::string::npos);
  const std::vector<Outcome> outcomes = Storm(*d, "probe", R"({"n":")");
  for (const Outcome& o : outcomes) {
    INFO(o.text);
    CHECK(o.status == alone.status);
    CHECK(o.text == alone.text);
  }
}

TEST_CASE("faults under load: 1,000 calls to a server that drops every second connection",
          "[faults]") {
  TempDir dir;
  EverySecondDropped bad(dir);
  TempDir other;
  NodeServer good(other, "fault-server.mjs");
  REQUIRE_UPSTREAM(bad, good);
  auto d = StartGateway(dir, bad.Url(), "http://127.0.0.1:" + std::to_string(good.port()) + "/ok");
  const std::vector<Outcome> outcomes = Storm(*d, "run", R"({"nonce":"n-)");
  // A call either ran and was answered, or failed as transport; none ran twice.
  int ok = 0;
  for (const Outcome& o : outcomes) {
    INFO(o.text);
    CHECK((o.status == MCPGW_OK || o.status == MCPGW_TRANSPORT));
    ok += o.status == MCPGW_OK;
  }
  for (const auto& [nonce, runs] : bad.Runs()) {
    INFO(nonce);
    CHECK(runs == 1);
  }
  CHECK(ok >= kCalls / 2);
}
