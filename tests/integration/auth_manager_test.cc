// AuthManager against tests/fixtures/oauth-server.mjs (an OAuth-protected MCP
// server with its own authorization server), with a stand-in session: real
// HTTP, the real loopback listener, tests/interop/oauth_browser.sh as the
// browser, and a real token store on disk. Covers refresh ahead of expiry,
// refresh after a 401, rotation, invalid_grant, restart, file permissions,
// and the bad inputs a user must be told about.
#include <sys/stat.h>

#include <map>

#include <uv.h>
#include <catch2/catch.hpp>

#include "daemon/auth/manager.h"
#include "daemon/auth/store.h"
#include "integration/service_harness.h"

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

// Records what the manager tells the session.
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

// A loop, an HTTP client and a manager on the test's thread.
struct Rig {
  TempDir& dir;
  uv_loop_t loop;
  std::unique_ptr<HttpClient> http;
  FakeLink link;
  std::unique_ptr<AuthManager> manager;
  std::map<std::string, std::string> env;

  Rig(TempDir& d, std::map<std::string, std::string> extra_env = {}, auth::FlowLimits limits = {})
      : dir(d), env(std::move(extra_env)) {
    uv_loop_init(&loop);
    http = std::make_unique<HttpClient>(&loop);
    if (!env.count("MCPGW_BROWSER")) {
      env["MCPGW_BROWSER"] = std::string(MCPGW_SOURCE_DIR) + "/tests/interop/oauth_browser.sh";
    }
    auth::AuthManagerOptions o;
    o.token_dir = dir / "state/mcpgw/oauth";
    o.limits = limits;
    o.get_env = [this](std::string_view name) -> std::optional<std::string> {
      auto it = env.find(std::string(name));
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    manager = std::make_unique<AuthManager>(&loop, http.get(), &link, o);
  }
  ~Rig() {
    manager.reset();
    http.reset();
    for (int i = 0; i < 100 && uv_run(&loop, UV_RUN_NOWAIT) != 0; ++i) {
    }
    uv_walk(
        &loop,
        [](uv_handle_t* h, void*) {
          if (!uv_is_closing(h)) uv_close(h, nullptr);
        },
        nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
  }
  // Runs the loop until `pred` holds or `seconds` pass.
  bool RunUntil(const std::function<bool()>& pred, int seconds = 20) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      uv_run(&loop, UV_RUN_NOWAIT);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return pred();
  }
  config::RemoteServer Server(const OAuthServer& s) {
    config::RemoteServer r;
    r.url = Secret(s.Url());
    r.url_redacted = s.Url();
    return r;
  }
};

// The stand-in browser on `url`, running while the test's loop serves the
// callback.
std::unique_ptr<Process> OpenBrowser(const TempDir& dir, const std::string& url) {
  static int n = 0;
  const std::string base = dir / ("browser" + std::to_string(n++));
  return std::make_unique<Process>(
      std::vector<std::string>{std::string(MCPGW_SOURCE_DIR) + "/tests/interop/oauth_browser.sh",
                               url},
      base + ".out", base + ".err");
}

std::string Challenge(const OAuthServer& s) {
  return "Bearer error=\"invalid_token\", resource_metadata=\"" + s.Base() +
         "/.well-known/oauth-protected-resource/mcp\"";
}

mode_t Mode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 0777;
}

TEST_CASE("oauth: a 401 runs the flow, the token is kept privately and reused after a restart",
          "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  std::string token;
  {
    Rig rig(dir);
    CHECK(rig.manager->AddServer(1, "prot", rig.Server(as)).empty());
    rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
    REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 1 || !rig.link.failures.empty(); }));
    REQUIRE(rig.link.failures.empty());
    token = rig.link.Current();
    CHECK(token.rfind("Bearer ", 0) == 0);
    CHECK(as.Count("register") == 1);
    CHECK(as.Count("authorize") == 1);
    CHECK(as.Count("token_code") == 1);
    auth::OAuthStatus st = rig.manager->Status(1);
    CHECK(st.state == "authorized");
    CHECK(st.subject == "alice");
    CHECK(st.client == "registered");
    CHECK(st.scope == "mcp:tools offline_access");
    CHECK(st.refreshable);
    // Every secret reached the scrubber before use.
    CHECK(std::find(rig.link.secrets.begin(), rig.link.secrets.end(), token.substr(7)) !=
          rig.link.secrets.end());
  }
  const std::string oauth_dir = dir / "state/mcpgw/oauth";
  CHECK(Mode(oauth_dir) == 0700);
  auth::TokenStore store(oauth_dir);
  CHECK(Mode(store.GrantPath(as.Url())) == 0600);
  CHECK(Mode(store.ClientPath(as.Base())) == 0600);

  // A new manager (a restarted daemon) starts with the stored token.
  Rig again(dir);
  CHECK(again.manager->AddServer(7, "prot", again.Server(as)).Reveal() == token);
  CHECK(as.Count("authorize") == 1);
}

TEST_CASE("oauth: tokens are refreshed ahead of expiry and rotated refresh tokens are stored",
          "[oauth]") {
  TempDir dir;
  OAuthServer as(dir, {"--ttl", "3"});
  Rig rig(dir);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 1; }));
  const std::string first = rig.link.Current();
  // Two refreshes, each ahead of the 3 s expiry, each with the latest
  // (rotated) refresh token: the fixture accepts a refresh token once.
  REQUIRE(rig.RunUntil([&] { return as.Count("token_refresh") >= 2; }, 15));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorization.size() >= 3; }, 5));
  CHECK(as.Count("invalid_grant") == 0);
  CHECK(rig.link.Current() != first);
  CHECK(as.Count("authorize") == 1);
  auth::TokenStore store(dir / "state/mcpgw/oauth");
  std::string error;
  auto stored = store.LoadGrant(as.Url(), &error);
  REQUIRE(stored);
  CHECK("Bearer " + stored->tokens.access_token.Reveal() == rig.link.Current());
  auto st = as.State();
  const auto& used = st["seen"]["refresh_tokens_used"];
  REQUIRE(used.Size() >= 2);
  CHECK(std::string(used[0].GetString()) != used[1].GetString());
}

TEST_CASE("oauth: a 401 refreshes once, then authorizes anew", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  Rig rig(dir);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 1; }));
  as.Post("/__expire_access");
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 2; }));
  CHECK(as.Count("token_refresh") == 1);
  CHECK(as.Count("authorize") == 1);
  // The refreshed token is refused too: no second refresh, a new authorization.
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 3; }));
  CHECK(as.Count("token_refresh") == 1);
  CHECK(as.Count("authorize") == 2);
}

TEST_CASE("oauth: invalid_grant forgets the tokens and authorizes anew", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  Rig rig(dir);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 1; }));
  as.Post("/__revoke_refresh");
  as.Post("/__expire_access");
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 2 || !rig.link.failures.empty(); }));
  CHECK(rig.link.failures.empty());
  CHECK(as.Count("invalid_grant") == 1);
  CHECK(as.Count("authorize") == 2);
  // The dead tokens were dropped before the new ones came.
  CHECK(std::find(rig.link.authorization.begin(), rig.link.authorization.end(), "") !=
        rig.link.authorization.end());
}

TEST_CASE("oauth: without a browser the server asks for mcpgw login", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  Rig rig(dir, {{"MCPGW_BROWSER", ""}});
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] == "authorization required: run \"mcpgw login prot\"");
  CHECK(as.Count("prm") == 0);  // nothing was fetched for nothing
  CHECK(rig.manager->Status(1).state == "login required");
}

TEST_CASE("oauth: a browser that cannot run asks for mcpgw login", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  Rig rig(dir, {{"MCPGW_BROWSER", dir / "no-such-browser"}});
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return !rig.link.failures.empty(); }));
  CHECK(rig.link.failures[0] == "authorization required: run \"mcpgw login prot\"");
}

// One bad answer per case: a clear reason, no token written.
TEST_CASE("oauth: bad answers fail with a reason and write no token", "[oauth]") {
  struct Case {
    const char* name;
    std::string control;
    std::string reason;  // a prefix of the failure
  };
  std::vector<Case> cases = {
      {"malformed resource metadata", R"({"prm":"malformed"})",
       "protected resource metadata is not valid JSON"},
      {"metadata for another resource", R"({"prm":"other-resource"})",
       "protected resource metadata is for \"https://evil.example.com/mcp\""},
      {"issuer mismatch", R"({"issuer":"https://other-issuer.example"})",
       "authorization server metadata names issuer \"https://other-issuer.example\""},
      {"token endpoint answers HTML", R"({"token":"html"})",
       "token endpoint answered text/html, not a JSON object (HTTP 200)"},
      {"token endpoint answers 500", R"({"token":"500"})", "token endpoint answered HTTP 500"},
      {"consent denied", R"({"authorize":"deny"})",
       "authorization denied: access_denied: the user said no"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      TempDir dir;
      OAuthServer as(dir);
      as.Post("/__control", c.control);
      Rig rig(dir);
      rig.manager->AddServer(1, "prot", rig.Server(as));
      rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
      REQUIRE(rig.RunUntil([&] { return !rig.link.failures.empty() || rig.link.authorized; }));
      CHECK(rig.link.authorized == 0);
      REQUIRE(rig.link.failures.size() == 1);
      CHECK(rig.link.failures[0].rfind(c.reason, 0) == 0);
      CHECK(rig.manager->Status(1).error == rig.link.failures[0]);
      auth::TokenStore store(dir / "state/mcpgw/oauth");
      std::string error;
      CHECK_FALSE(store.LoadGrant(as.Url(), &error));
    }
  }
}

TEST_CASE("oauth: a callback with a wrong state is refused and the login times out", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  as.Post("/__control", R"({"authorize":"wrong-state"})");
  auth::FlowLimits limits;
  limits.consent_timeout = std::chrono::seconds(2);
  Rig rig(dir, {}, limits);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return !rig.link.failures.empty(); }, 15));
  CHECK(rig.link.failures[0] ==
        "no answer from the browser within 2 s (the authorization was not completed)");
  CHECK(as.Count("token_code") == 0);
  auth::TokenStore store(dir / "state/mcpgw/oauth");
  std::string error;
  CHECK_FALSE(store.LoadGrant(as.Url(), &error));
}

TEST_CASE("oauth: at most three attempts until a login", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  as.Post("/__control", R"({"authorize":"deny"})");
  Rig rig(dir);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  for (int i = 1; i <= 3; ++i) {
    rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
    REQUIRE(rig.RunUntil([&] { return static_cast<int>(rig.link.failures.size()) == i; }));
  }
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.link.failures.size() == 4);
  CHECK(rig.link.failures[3].rfind("authorization failed 3 times (last: authorization denied", 0) ==
        0);
  CHECK(rig.link.failures[3].find("run \"mcpgw login prot\"") != std::string::npos);
  CHECK(as.Count("authorize") == 3);

  // mcpgw login starts over.
  as.Post("/__control", R"({"authorize":"ok"})");
  std::optional<auth::LoginStarted> started;
  rig.manager->Login("prot", [&](auth::LoginStarted s) { started = s; });
  REQUIRE(rig.RunUntil([&] { return started.has_value(); }));
  REQUIRE(started->ok);
  CHECK(started->url.rfind(as.Base() + "/authorize?", 0) == 0);
  // The user opens it (here: the stand-in browser).
  auto browser = OpenBrowser(dir, started->url);
  std::optional<std::pair<bool, std::string>> done;
  rig.manager->WaitLogin("prot", started->login,
                         [&](bool ok, std::string e) { done = std::make_pair(ok, e); });
  REQUIRE(rig.RunUntil([&] { return done.has_value(); }));
  CHECK(done->first);
  CHECK(rig.manager->Status(1).state == "authorized");
}

TEST_CASE("oauth: a second login supersedes the first", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  Rig rig(dir);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  std::optional<auth::LoginStarted> first, second;
  rig.manager->Login("prot", [&](auth::LoginStarted s) { first = s; });
  REQUIRE(rig.RunUntil([&] { return first.has_value(); }));
  REQUIRE(first->ok);
  std::optional<std::pair<bool, std::string>> first_done;
  rig.manager->WaitLogin("prot", first->login,
                         [&](bool ok, std::string e) { first_done = std::make_pair(ok, e); });
  rig.manager->Login("prot", [&](auth::LoginStarted s) { second = s; });
  REQUIRE(rig.RunUntil([&] { return second.has_value() && first_done.has_value(); }));
  CHECK_FALSE(first_done->first);
  CHECK(first_done->second == "superseded by a newer login");
  // The first URL's callback is stale now: refused, no token.
  auto stale = OpenBrowser(dir, first->url);
  REQUIRE(rig.RunUntil([&] { return !stale->Alive(); }));
  CHECK(as.Count("token_code") == 0);
  auto browser = OpenBrowser(dir, second->url);
  std::optional<std::pair<bool, std::string>> second_done;
  rig.manager->WaitLogin("prot", second->login,
                         [&](bool ok, std::string e) { second_done = std::make_pair(ok, e); });
  REQUIRE(rig.RunUntil([&] { return second_done.has_value(); }));
  CHECK(second_done->first);
  CHECK(as.Count("token_code") == 1);
}

TEST_CASE("oauth: a refresh that comes due during a login waits for it", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir, {"--ttl", "2"});
  Rig rig(dir);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 1; }));
  std::optional<auth::LoginStarted> started;
  rig.manager->Login("prot", [&](auth::LoginStarted s) { started = s; });
  REQUIRE(rig.RunUntil([&] { return started.has_value(); }));
  REQUIRE(started->ok);
  // The 2 s token's refresh comes due while the login waits for consent;
  // the loop goes on serving (it once spun on a timer re-armed for 0 ms).
  rig.RunUntil([] { return false; }, 3);
  CHECK(rig.manager->Status(1).state == "waiting for consent");
  auto browser = OpenBrowser(dir, started->url);
  std::optional<bool> ok;
  rig.manager->WaitLogin("prot", started->login, [&](bool b, std::string) { ok = b; });
  REQUIRE(rig.RunUntil([&] { return ok.has_value(); }));
  CHECK(*ok);
  // And once it is over, refreshing resumes.
  const int refreshes = as.Count("token_refresh");
  REQUIRE(rig.RunUntil([&] { return as.Count("token_refresh") > refreshes; }, 5));
}

TEST_CASE("oauth: logout forgets the tokens and revokes them", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  Rig rig(dir);
  rig.manager->AddServer(1, "prot", rig.Server(as));
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.RunUntil([&] { return rig.link.authorized == 1; }));
  std::optional<std::string> err;
  rig.manager->Logout("prot", [&](std::string e, bool) { err = e; });
  REQUIRE(err);
  CHECK(err->empty());
  CHECK(rig.link.Current().empty());
  REQUIRE(rig.RunUntil([&] { return as.Count("revoke") == 1; }));
  auth::TokenStore store(dir / "state/mcpgw/oauth");
  std::string error;
  CHECK_FALSE(store.LoadGrant(as.Url(), &error));
  // Logged out: no browser opens by itself any more.
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] == "authorization required: run \"mcpgw login prot\"");
  CHECK(as.Count("authorize") == 1);
}

TEST_CASE("oauth: a configured Authorization header turns OAuth off", "[oauth]") {
  TempDir dir;
  OAuthServer as(dir);
  Rig rig(dir);
  config::RemoteServer server = rig.Server(as);
  server.oauth_allowed = false;
  rig.manager->AddServer(1, "prot", server);
  rig.manager->AuthorizationNeeded(1, 401, Challenge(as));
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] ==
        "HTTP 401 from server (mcp.json sets its Authorization header, so mcpgw does not log "
        "in to it)");
  CHECK(as.Count("prm") == 0);
  CHECK_FALSE(rig.manager->Status(1).used);
}

}  // namespace
}  // namespace mcpgw::testing
