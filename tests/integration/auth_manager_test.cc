// AuthManager against tests/fixtures/oauth-server.mjs (an OAuth-protected MCP
// server with its own authorization server) over real sockets: real HTTP,
// the real loopback listener, tests/interop/oauth_browser.sh as the browser
// (a process that follows the redirects), and the token store on disk. What
// the manager decides (refresh, attempts, login, logout, bad answers, the
// status it shows) is tested on a fake clock in tests/daemon/auth/; this
// checks only what needs the real world.
#include <sys/stat.h>

#include <future>
#include <map>

#include <catch2/catch.hpp>

#include "daemon/auth/manager.h"
#include "daemon/auth/store.h"
#include "daemon/runtime/worker.h"
#include "integration/service_harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

namespace mcpgw::testing {
namespace {

using auth::AuthManager;

// The OAuth fixture on an ephemeral port.
class OAuthServer {
 public:
  OAuthServer(const TempDir& dir, std::vector<std::string> flags = {}) {
    const std::string node = FixtureNode();
    REQUIRE_FALSE(node.empty());  // scripts/install-node-deps.sh
    std::vector<std::string> argv = {
        node, std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/oauth-server.mjs", "--port", "0"};
    for (auto& f : flags) argv.push_back(f);
    out_ = dir / "oauth-server.out";
    proc_ = std::make_unique<Process>(argv, out_, dir / "oauth-server.err");
    REQUIRE(WaitFor([&] {
      std::string text = ReadFile(out_);
      size_t at = text.find("LISTENING ");
      if (at == std::string::npos) return !proc_->Alive();
      port_ = std::atoi(text.c_str() + at + 10);
      return true;
    }));
    REQUIRE(port_ > 0);
  }
  std::string Base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string Url() const { return Base() + "/mcp"; }
  rapidjson::Document State() const {
    auto body = HttpGet(port_, "/__state");
    rapidjson::Document d = ParseJson(body ? *body : "{}");
    if (!d.IsObject()) d.SetObject();
    return d;
  }
  int Count(const char* name) const {
    auto d = State();
    return d.HasMember("counts") ? d["counts"][name].GetInt() : -1;
  }
  void Post(const std::string& path, const std::string& json = "{}") const {
    // A tiny POST over the same helper's socket code: reuse curl-free HTTP/1.0.
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    std::string req = "POST " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: " +
                      "application/json\r\nContent-Length: " + std::to_string(json.size()) +
                      "\r\n\r\n" + json;
    REQUIRE(send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size()));
    char buf[4096];
    while (recv(fd, buf, sizeof buf, 0) > 0) {
    }
    close(fd);
  }

 private:
  std::string out_;
  std::unique_ptr<Process> proc_;
  int port_ = 0;
};

// Records what the manager tells the session (on the worker's thread).
struct FakeLink : auth::SessionLink {
  std::vector<std::string> authorization;  // every SetAuthorization value
  int authorized = 0;
  std::vector<std::string> failures;
  std::vector<std::string> secrets;
  void SetAuthorization(uint64_t, const Secret& v) override { authorization.push_back(v.Reveal()); }
  void Authorized(uint64_t) override { ++authorized; }
  void AuthorizationFailed(uint64_t, const std::string& reason) override {
    failures.push_back(reason);
  }
  void LearnSecret(const Secret& v) override { secrets.push_back(v.Reveal()); }
  std::string Current() const { return authorization.empty() ? "" : authorization.back(); }
};

// The manager on a started Worker (the daemon's real Env: its loop, HTTP
// client, timers and files), driven from the test's thread by posting to it.
struct Rig {
  Worker worker{"auth-test"};
  FakeLink link;                         // touched on the worker only
  std::unique_ptr<AuthManager> manager;  // made and destroyed on the worker
  std::map<std::string, std::string> env;

  explicit Rig(TempDir& dir) {
    env["MCPGW_BROWSER"] = std::string(MCPGW_SOURCE_DIR) + "/tests/interop/oauth_browser.sh";
    auth::AuthManagerOptions o;
    o.token_dir = dir / "state/mcpgw/oauth";
    o.get_env = [this](std::string_view name) -> std::optional<std::string> {
      auto it = env.find(std::string(name));
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    worker.Start();
    OnLoop([&] {
      manager = std::make_unique<AuthManager>(auth::LoopAuthIo(&worker, worker.loop()), &link, o);
      return 0;
    });
  }
  ~Rig() {
    OnLoop([&] {
      manager.reset();
      return 0;
    });
    worker.Stop();
  }
  // Runs `fn` on the worker and returns what it returns.
  template <typename F>
  auto OnLoop(F fn) -> decltype(fn()) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto result = task.get_future();
    worker.Post([&task] { task(); });
    return result.get();
  }
  // Polls `pred` on the worker until it holds or `seconds` pass.
  bool RunUntil(const std::function<bool()>& pred, int seconds = 20) {
    return WaitFor([&] { return OnLoop([&] { return pred(); }); }, std::chrono::seconds(seconds));
  }
  config::RemoteServer Server(const OAuthServer& s) {
    config::RemoteServer r;
    r.url = Secret(s.Url());
    r.url_redacted = s.Url();
    return r;
  }
};

std::string Challenge(const OAuthServer& s) {
  return "Bearer error=\"invalid_token\", resource_metadata=\"" + s.Base() +
         "/.well-known/oauth-protected-resource/mcp\"";
}

mode_t Mode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 0777;
}

TEST_CASE("oauth: a 401 runs the flow over real sockets, the token is kept privately and reused",
          "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  std::string token;
  {
    Rig rig(dir);
    CHECK(rig.OnLoop([&] { return rig.manager->AddServer(1, "prot", rig.Server(as)).empty(); }));
    rig.OnLoop([&] {
      rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
      return 0;
    });
    // The browser process follows the redirect to the loopback listener.
    REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 1 || !rig.link.failures.empty(); }));
    // Catch2 checks on the test's thread only: copy out what the loop holds.
    const auto [failures, st] = rig.OnLoop([&] {
      token = rig.link.Current();
      return std::make_pair(rig.link.failures, rig.manager->Status(1));
    });
    CHECK(failures.empty());
    CHECK(st.state == "authorized");
    CHECK(st.subject == "alice");
    CHECK(token.rfind("Bearer ", 0) == 0);
    CHECK(as.Count("register") == 1);
    CHECK(as.Count("authorize") == 1);
    CHECK(as.Count("token_code") == 1);
  }
  const std::string oauth_dir = dir / "state/mcpgw/oauth";
  CHECK(Mode(oauth_dir) == 0700);
  Worker files("files");
  auth::TokenStore store(&files, oauth_dir);
  CHECK(Mode(store.GrantPath(as.Url())) == 0600);
  CHECK(Mode(store.ClientPath(as.Base())) == 0600);

  // A new manager (a restarted daemon) starts with the stored token.
  Rig again(dir);
  CHECK(again.OnLoop([&] {
    return again.manager->AddServer(7, "prot", again.Server(as)).Reveal();
  }) == token);
  CHECK(as.Count("authorize") == 1);
}

}  // namespace
}  // namespace mcpgw::testing
