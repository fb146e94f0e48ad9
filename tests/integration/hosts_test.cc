// mcpgwd as a new user meets it: command-line values checked before anything
// starts, paths shown absolute, files written for other hosts (a disabled
// entry is never contacted; other hosts' ${VAR} forms are named in the log),
// a --settings policy that never silently vanishes, and `mcpgw wait
// --timeout 0` against a busy daemon.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "client/include/mcpgw.h"
#include "integration/harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

// A loopback TCP listener that counts the connections it accepts (and
// closes them at once): the proof that nothing contacted it.
class CountingListener {
 public:
  CountingListener() {
    // Non-blocking: accepted() and the thread may race for one connection.
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd_, 64);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, 20) > 0) AcceptPending();
      }
    });
  }
  ~CountingListener() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
  // Connections accepted so far, those already waiting in the backlog
  // included: a connect() that has returned is counted.
  int accepted() {
    AcceptPending();
    return accepted_;
  }

 private:
  void AcceptPending() {
    for (int c; (c = accept(fd_, nullptr, nullptr)) >= 0;) {
      ++accepted_;
      close(c);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

rapidjson::Document Json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  return d;
}

std::string StatusOf(Daemon& d, const std::string& name, const char* field) {
  auto doc = Json(d.Cli({"status", "--json"}).out);
  if (!doc.IsObject() || !doc["servers"].IsArray()) return "<no status>";
  for (const auto& s : doc["servers"].GetArray()) {
    if (name == s["namespace"].GetString()) {
      return s[field].IsString() ? s[field].GetString() : "<not a string>";
    }
  }
  return "<not listed>";
}

// How often `mcpgw wait --timeout 0` runs against the busy daemon. A sanitizer
// build starts each instrumented mcpgw in about a second and a half; there the
// runs look for memory and thread errors, and the normal build (50 runs)
// checks the promise itself.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kWaitRuns = 10;
#else
constexpr int kWaitRuns = 50;
#endif

}  // namespace

TEST_CASE("mcpgwd refuses out-of-range and unknown command-line values with exit 2",
          "[daemon][hosts]") {
  TempDir dir;
  WriteFile(dir / "mcp.json", R"({"mcpServers":{}})");
  const std::vector<std::vector<std::string>> cases = {{"--workers", "5000"},
                                                       {"--workers", "0"},
                                                       {"--workers", "-1"},
                                                       {"--log-level", "verbose"},
                                                       {"--settings", dir / "missing.json"},
                                                       {"--no-such-option"},
                                                       {"--socket", ""},
                                                       {"--config", ""}};
  for (const auto& extra : cases) {
    std::vector<std::string> argv = {MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--socket",
                                     dir / "s.sock"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = Run(argv, dir, {}, std::chrono::seconds(10));
    INFO(extra.front() << " " << (extra.size() > 1 ? extra[1] : "") << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("mcpgwd: ", 0) == 0);
    CHECK(access((dir / "s.sock").c_str(), F_OK) != 0);  // nothing was started
  }
  // The missing --settings file is named; --check refuses it the same way.
  auto check = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--settings",
                    dir / "missing.json", "--check"},
                   dir);
  CHECK(check.code == 2);
  CHECK(check.err.find(dir / "missing.json") != std::string::npos);
}

TEST_CASE("mcpgwd start-up errors start with mcpgwd:", "[daemon][hosts]") {
  TempDir dir;
  WriteFile(dir / "mcp.json", "{\"mcpServers\": ");
  auto r = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--socket", dir / "s.sock"}, dir,
               {}, std::chrono::seconds(10));
  CHECK(r.code == 1);
  CHECK(r.err.rfind("mcpgwd: " + dir / "mcp.json" + ":1:", 0) == 0);
  WriteFile(dir / "mcp.json", "{}");
  WriteFile(dir / "settings.json", R"({"workers": "many"})");
  auto bad = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--settings",
                  dir / "settings.json", "--socket", dir / "s.sock"},
                 dir, {}, std::chrono::seconds(10));
  CHECK(bad.code == 1);
  CHECK(bad.err.rfind("mcpgwd: " + dir / "settings.json" + ":1:", 0) == 0);
}

TEST_CASE("mcpgwd --check also checks the settings file", "[daemon][hosts]") {
  TempDir dir;
  WriteFile(dir / "mcp.json", R"({"mcpServers":{"a":{"url":"http://127.0.0.1:1/mcp"}}})");
  WriteFile(dir / "settings.json", R"({"policy": {"denny": []}})");
  auto r = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--settings",
                dir / "settings.json", "--check"},
               dir);
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find(dir / "settings.json" + ": unusable settings\n") != std::string::npos);
  CHECK(r.out.find("unknown key \"denny\"") != std::string::npos);
  WriteFile(dir / "settings.json", R"({"policy": {"deny": ["x"]}})");
  auto ok = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--settings",
                 dir / "settings.json", "--check"},
                dir);
  CHECK(ok.code == 0);
  CHECK(ok.out.find(dir / "settings.json" + ": settings usable\n") != std::string::npos);
}

TEST_CASE("status shows the configuration path absolute when mcpgwd got a relative one",
          "[daemon][hosts]") {
  TempDir dir;
  WriteFile(dir / "mcp.json", R"({"mcpServers":{}})");
  Process daemon({"/bin/sh", "-c",
                  "cd '" + dir.path() + "' && exec '" + MCPGW_MCPGWD_PATH +
                      "' --config ./mcp.json --socket run/mcpgw.sock"},
                 dir / "d.out", dir / "d.err");
  REQUIRE(WaitFor([&] { return access((dir / "run/mcpgw.sock").c_str(), F_OK) == 0; }));
  auto r = Run({MCPGW_CLI_PATH, "--socket", dir / "run/mcpgw.sock", "status", "--json"}, dir);
  auto doc = Json(r.out);
  REQUIRE(doc.IsObject());
  CHECK(std::string(doc["daemon"]["config"].GetString()) == dir / "mcp.json");
  daemon.Signal(SIGTERM);
  CHECK(daemon.Wait(std::chrono::seconds(5)) == 0);
}

TEST_CASE("a disabled server is an error namespace and is never contacted", "[daemon][hosts]") {
  CountingListener enabled, disabled, switched_off, added;
  TempDir dir;
  const std::string servers = R"({"mcpServers":{
      "on": {"url": ")" + enabled.Url() +
                              R"("},
      "off": {"url": ")" + disabled.Url() +
                              R"(", "disabled": true,
              "headers": {"Authorization": "Bearer secret-token"}},
      "not-enabled": {"serverUrl": ")" +
                              switched_off.Url() + R"(", "enabled": false})";
  // One worker: every server's session starts on the one loop, in the
  // order of the file, so a server after the disabled ones connects after
  // they would have.
  Daemon d(dir, servers + "}}", {"--workers", "1"});
  REQUIRE(d.WaitListening());
  // The enabled one is contacted (the listener works) and fails as it closes at once.
  REQUIRE(WaitFor([&] { return enabled.accepted() > 0; }));
  REQUIRE(WaitFor([&] { return StatusOf(d, "on", "status") == "error"; }));
  CHECK(StatusOf(d, "off", "status") == "error");
  CHECK(StatusOf(d, "off", "reason") == "disabled in the configuration");
  CHECK(StatusOf(d, "not-enabled", "reason") == "disabled in the configuration");
  auto call = d.Cli({"call", "off", "anything"});
  CHECK(call.code == 4);  // not_ready
  CHECK(call.err.find("disabled in the configuration") != std::string::npos);
  CHECK(call.err.find("retrying") == std::string::npos);
  // A reload does not contact it either. The reload also adds a server, last
  // in the file: once it has been contacted, a contact to the disabled ones,
  // started before it, has reached their listeners too.
  WriteFile(d.config(), servers + R"(, "added": {"url": ")" + added.Url() + R"("}}})");
  d.process().Signal(SIGHUP);
  REQUIRE(WaitFor([&] { return added.accepted() > 0; }));
  CHECK(d.Log().find("added: \"added\"; removed: none; changed: none") != std::string::npos);
  CHECK(disabled.accepted() == 0);
  CHECK(switched_off.accepted() == 0);
  CHECK(d.Log().find("secret-token") == std::string::npos);
}

TEST_CASE("the start-up log names other hosts' variable forms and the form that works",
          "[daemon][hosts]") {
  TempDir dir;
  Daemon d(dir, R"({"servers":{"gh":{"url":"http://127.0.0.1:1/mcp",
                   "headers":{"Authorization":"Bearer ${GITHUB_TOKEN}"}}}})");
  REQUIRE(d.WaitListening());
  REQUIRE(WaitFor([&] { return d.Log().find("GITHUB_TOKEN") != std::string::npos; }));
  const std::string log = d.Log();
  INFO(log);
  CHECK(log.find("server \"gh\": headers.Authorization: ${GITHUB_TOKEN} is not expanded; write "
                 "${env:GITHUB_TOKEN}") != std::string::npos);
  CHECK(log.find("Bearer") == std::string::npos);  // the value itself never shows
}

TEST_CASE("a --settings file that disappears keeps its policy on reload", "[daemon][hosts]") {
  TempDir dir;
  WriteFile(dir / "settings.json", R"({"policy": {"deny": ["hidden"]}})");
  Daemon d(dir, R"({"mcpServers":{"hidden":{"command":"x"},"shown":{"command":"y"}}})",
           {"--settings", dir / "settings.json"});
  REQUIRE(d.WaitListening());
  const auto listed = [&](const std::string& name) {
    return d.Cli({"tools"}).out.find("\"" + name + "\"") != std::string::npos;
  };
  REQUIRE(WaitFor([&] { return listed("shown"); }));
  CHECK_FALSE(listed("hidden"));
  std::remove((dir / "settings.json").c_str());
  d.process().Signal(SIGHUP);
  REQUIRE(
      WaitFor([&] { return d.Log().find("keeping the previous policy") != std::string::npos; }));
  CHECK(d.Log().find(dir / "settings.json" + ": no such file") != std::string::npos);
  CHECK_FALSE(listed("hidden"));
  CHECK(listed("shown"));
}

TEST_CASE("mcpgw wait --timeout 0 succeeds every time against a busy ready daemon",
          "[daemon][hosts]") {
  TempDir dir;
  // A large configuration makes every status answer big; two threads keep the daemon busy
  // (with a pause between calls, so a sanitizer build still gets through in time). The
  // servers are switched off: none is ever loading.
  std::string config = R"({"mcpServers":{)";
  for (int i = 0; i < 300; ++i) {
    config += (i ? "," : "") + std::string("\"s") + std::to_string(i) +
              R"(":{"command":"x","disabled":true})";
  }
  config += "}}";
  Daemon d(dir, config);
  REQUIRE(d.WaitListening());
  std::atomic<bool> stop{false};
  std::vector<std::thread> load;
  for (int t = 0; t < 2; ++t) {
    load.emplace_back([&] {
      mcpgw_client* c = mcpgw_open(d.socket().c_str());
      while (!stop) {
        char* out = nullptr;
        mcpgw_status_json(c, nullptr, &out);
        mcpgw_free(out);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      mcpgw_close(c);
    });
  }
  int failures = 0;
  std::string last_error;
  for (int i = 0; i < kWaitRuns; ++i) {
    auto r = d.Cli({"wait", "--timeout", "0"});
    if (r.code != 0) {
      ++failures;
      last_error = r.err;
    }
  }
  stop = true;
  for (auto& t : load) t.join();
  INFO(last_error);
  CHECK(failures == 0);
}
