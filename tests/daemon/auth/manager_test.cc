// The AuthManager on a fake clock (docs/AUTH.md): a 401 runs the flow through
// the browser, the tokens are kept privately and reused after a restart, the
// status a user sees at each step, the attempts bound, the browser rules,
// login and logout, refused redirects and bad answers. Refreshing and
// shutdown are in manager_refresh_test.cc.
#include "tests/daemon/auth/manager_rig.h"

namespace mcpgw::testing {
namespace {

using auth::LoginRequiredReason;

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST_CASE("manager: a 401 runs the flow in the browser, keeps the token privately, reuses it",
          "[auth][manager]") {
  ManagerRig rig;
  CHECK(rig.Add().empty());
  CHECK_FALSE(rig.Status().used);
  rig.Ask();
  REQUIRE(rig.link.failures.empty());
  CHECK(rig.link.authorized == 1);
  const std::string token = rig.link.Current();
  CHECK(StartsWith(token, "Bearer SENTINEL_AT_"));
  REQUIRE(rig.browser->opened.size() == 1);
  CHECK(StartsWith(rig.browser->opened[0], "https://auth.example/authorize?"));
  REQUIRE(rig.browser->pages.size() == 1);
  CHECK(rig.browser->pages[0].status == 200);
  CHECK(rig.as.Count("register") == 1);
  CHECK(rig.as.Count("token_code") == 1);
  const auth::OAuthStatus st = rig.Status();
  CHECK(st.state == "authorized");
  CHECK(st.subject == "alice");
  CHECK(st.client == "registered");
  CHECK(st.issuer == "https://auth.example");
  CHECK(st.scope == "mcp:tools offline_access");
  CHECK(st.refreshable);
  CHECK(st.expires_unix == static_cast<int64_t>(rig.world.UnixNow()) + 3600);
  CHECK(st.error.empty());
  // The token reached the scrubber before the session got it.
  CHECK(std::find(rig.link.secrets.begin(), rig.link.secrets.end(), token.substr(7)) !=
        rig.link.secrets.end());
  // Listening only while a login waits for its redirect.
  CHECK_FALSE(rig.callback->open());
  // 0600 files in 0700 directories, parents included.
  CHECK(rig.env.dirs.at(kTokenDir) == 0700);
  CHECK(rig.env.dirs.at("/home/u/.local/state/mcpgw") == 0700);
  CHECK(rig.env.modes.at(rig.GrantPath()) == 0600);
  CHECK(rig.env.files.size() == 2);  // the grant and the registration
  for (const auto& [path, mode] : rig.env.modes) CHECK(mode == 0600);

  // A restarted daemon starts with the stored token: no new login.
  rig.Start();
  CHECK(rig.Add() == token);
  CHECK(rig.State() == "authorized");
  CHECK(rig.as.Count("authorize") == 1);
}

TEST_CASE("manager: the status text follows the authorization step by step", "[auth][manager]") {
  ManagerRig rig;
  rig.Add();
  rig.browser->mode = FakeBrowser::Mode::kIgnore;  // the user opens it later
  rig.Ask();
  CHECK(rig.State() == "waiting for consent");
  CHECK(rig.callback->open());
  // The redirect comes; the code is being exchanged.
  rig.as.token = "hang";
  rig.browser->Follow(rig.browser->opened.at(0));
  CHECK(rig.State() == "authorizing");
  rig.as.token = "ok";
  rig.world.Settle();
  CHECK(rig.State() == "authorized");
  CHECK(rig.link.authorized == 1);
  // A refresh in flight.
  rig.as.token = "hang";
  rig.world.Advance(std::chrono::seconds(3540));
  CHECK(rig.State() == "refreshing");
  rig.as.token = "ok";
  rig.world.Settle();
  CHECK(rig.State() == "authorized");
  // Logged out, then a login that is refused by the user.
  std::optional<std::string> logout;
  rig.manager->Logout("prot", [&](const base::Status& e) { logout = e.message(); });
  CHECK(logout == "");
  CHECK(rig.State() == "login required");
  rig.as.authorize = "deny";
  const base::Result<auth::LoginStarted> started = rig.Login();
  REQUIRE(started.ok());
  CHECK(rig.State() == "waiting for consent");
  rig.Consent(started->url);
  CHECK(rig.State() == "failed");
  CHECK(rig.Status().error == "authorization denied: access_denied: the user said no");
}

TEST_CASE("manager: at most three attempts until a login, a config change or a success",
          "[auth][manager]") {
  ManagerRig rig;
  rig.Add();
  rig.as.authorize = "deny";
  for (int i = 1; i <= 3; ++i) {
    rig.Ask();
    REQUIRE(rig.link.failures.size() == static_cast<size_t>(i));
    CHECK(rig.link.failures.back() == "authorization denied: access_denied: the user said no");
  }
  rig.Ask();
  REQUIRE(rig.link.failures.size() == 4);
  CHECK(rig.link.failures[3] ==
        "authorization failed 3 times (last: authorization denied: access_denied: the user said "
        "no); run \"mcpgw login prot\" to try again");
  CHECK(rig.browser->opened.size() == 3);  // no fourth tab
  CHECK(rig.State() == "failed");
  CHECK(rig.Status().attempts == 3);
  rig.as.authorize = "ok";

  SECTION("mcpgw login starts over") {
    const base::Result<auth::LoginStarted> started = rig.Login();
    REQUIRE(started.ok());
    CHECK(rig.browser->opened.size() == 3);  // the user opens the URL, not the daemon
    auto waiting = rig.WaitLogin(started->login);
    rig.Consent(started->url);
    REQUIRE(waiting->outcome);
    CHECK(waiting->outcome->first);
    CHECK(rig.State() == "authorized");
    CHECK(rig.Status().attempts == 1);
    // The session that gave up tries again.
    CHECK(rig.link.authorized == 1);
  }
  SECTION("a changed entry in mcp.json starts over") {
    rig.manager->RemoveServer(1);
    rig.Add();
    rig.Ask();
    CHECK(rig.browser->opened.size() == 4);
    CHECK(rig.State() == "authorized");
  }
  SECTION("a request that goes through starts over") {
    rig.manager->Succeeded(1);
    rig.Ask();
    CHECK(rig.browser->opened.size() == 4);
    CHECK(rig.State() == "authorized");
  }
}

TEST_CASE("manager: without a browser the server asks for mcpgw login", "[auth][manager]") {
  ManagerRig rig;
  rig.environment.clear();  // no MCPGW_BROWSER, BROWSER or graphical session
  rig.Add();
  rig.Ask();
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] == "authorization required: run \"mcpgw login prot\"");
  // Discovery told that the server does offer OAuth; nothing was registered
  // and nobody listened for a redirect that cannot come.
  CHECK(rig.as.Count("metadata") == 1);
  CHECK(rig.as.Count("register") == 0);
  CHECK(rig.callback->opened == 0);
  CHECK(rig.State() == "login required");
  CHECK(rig.Status().attempts == 0);
  rig.Ask();
  CHECK(rig.State() == "login required");
  CHECK(rig.Status().attempts == 0);  // no browser counts no attempt
  // mcpgw login needs no browser: it prints the URL.
  const base::Result<auth::LoginStarted> started = rig.Login();
  REQUIRE(started.ok());
  rig.Consent(started->url);
  CHECK(rig.State() == "authorized");
}

// A server that answers 401 to a wrong API key and offers no OAuth.
config::RemoteServer KeyedServer() {
  config::RemoteServer r;
  r.url = Secret(FakeAuthServer::kMcpUrl);
  r.url_redacted = FakeAuthServer::kMcpUrl;
  r.headers = {{"X-Api-Key", Secret("SENTINEL_KEY_1")}, {"X-Tenant", Secret("acme")}};
  return r;
}

TEST_CASE("manager: a 401 from a server without OAuth is an error, never a login",
          "[auth][manager]") {
  ManagerRig rig;
  rig.as.prm = "none";
  rig.manager->AddServer(1, "prot", KeyedServer());
  const std::string expected =
      "HTTP 401 Unauthorized (sent headers: X-Api-Key, X-Tenant); the server offers no OAuth, "
      "so mcpgw cannot log in to it: check the credentials in its entry in mcp.json";

  SECTION("with a browser: none is opened, and every 401 is the same error") {
    for (int i = 1; i <= 5; ++i) {
      rig.Ask(401, "");  // no WWW-Authenticate, as an API-key server answers
      REQUIRE(rig.link.failures.size() == static_cast<size_t>(i));
      CHECK(rig.link.failures.back() == expected);
    }
    CHECK(rig.browser->opened.empty());
    CHECK(rig.as.Count("register") == 0);
    CHECK(rig.callback->opened == 0);
    // OAuth is not in use: no OAUTH block, no attempts that would end in
    // "authorization failed 3 times; run mcpgw login".
    CHECK_FALSE(rig.Status().used);
    CHECK(rig.Status().attempts == 0);
  }
  SECTION("without a browser: the same error, not \"run mcpgw login\"") {
    rig.environment.clear();
    rig.Ask(401, "");
    REQUIRE(rig.link.failures.size() == 1);
    CHECK(rig.link.failures[0] == expected);
    CHECK_FALSE(rig.Status().used);
  }
  SECTION("mcpgw login says there is nothing to log in to") {
    rig.Ask(401, "");
    const base::Result<auth::LoginStarted> started = rig.Login();
    CHECK_FALSE(started.ok());
    CHECK(started.message() ==
          "cannot log in to \"prot\": the server offers no OAuth (no protected resource "
          "metadata, no authorization server metadata on its origin, and its 401 asked for no "
          "Bearer token); check the credentials in its entry in mcp.json");
    CHECK(rig.browser->opened.empty());
    CHECK_FALSE(rig.Status().used);
  }
  SECTION("no header value reaches a reason") {
    rig.Ask(401, "");
    for (const std::string& f : rig.link.failures) CHECK(f.find("SENTINEL_") == std::string::npos);
  }
}

TEST_CASE("manager: a browser that cannot run asks for mcpgw login, the next 401 tries again",
          "[auth][manager]") {
  ManagerRig rig;
  rig.Add();
  rig.browser->mode = FakeBrowser::Mode::kFail;
  rig.Ask();
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] == LoginRequiredReason("prot"));
  CHECK(rig.State() == "login required");
  CHECK(rig.browser->programs.at(0) == "/usr/bin/test-browser");
  CHECK_FALSE(rig.callback->open());
  rig.browser->mode = FakeBrowser::Mode::kFollow;
  rig.Ask();
  CHECK(rig.State() == "authorized");
  CHECK(rig.link.authorized == 1);
}

TEST_CASE("manager: logout forgets and revokes the tokens, only a login authorizes again",
          "[auth][manager]") {
  ManagerRig rig;
  rig.Authorize();
  const std::string refresh = rig.Stored()->tokens.refresh_token.Reveal();
  std::optional<std::string> err;
  rig.manager->Logout("prot", [&](const base::Status& e) {
    CHECK(e.ok());
    err = e.message();
  });
  rig.world.Settle();
  CHECK(err == "");
  CHECK(rig.link.Current().empty());
  CHECK(rig.as.Count("revoke") == 1);
  CHECK_FALSE(rig.env.files.count(rig.GrantPath()));
  // No browser opens by itself any more.
  rig.Ask();
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] == LoginRequiredReason("prot"));
  CHECK(rig.browser->opened.size() == 1);
  CHECK(rig.State() == "login required");
  // A login authorizes again, with new tokens.
  rig.Consent(rig.Login()->url);
  CHECK(rig.State() == "authorized");
  CHECK(rig.as.Count("register") == 1);  // the registration is reused
  CHECK(rig.Stored()->tokens.refresh_token.Reveal() != refresh);
}

TEST_CASE("manager: a newer login supersedes the first, whose redirect is refused",
          "[auth][manager]") {
  ManagerRig rig;
  rig.Add();
  const base::Result<auth::LoginStarted> first = rig.Login();
  REQUIRE(first.ok());
  auto first_wait = rig.WaitLogin(first->login);
  const base::Result<auth::LoginStarted> second = rig.Login();
  REQUIRE(second.ok());
  REQUIRE(first_wait->outcome);
  CHECK(first_wait->outcome->second == "superseded by a newer login");
  // The first URL's redirect carries a stale state: refused, nothing changes.
  rig.Consent(first->url);
  REQUIRE(rig.browser->pages.size() == 1);
  CHECK(rig.browser->pages[0].status == 400);
  CHECK(rig.as.Count("token_code") == 0);
  CHECK(rig.State() == "waiting for consent");
  auto second_wait = rig.WaitLogin(second->login);
  rig.Consent(second->url);
  REQUIRE(second_wait->outcome);
  CHECK(second_wait->outcome->first);
  CHECK(rig.as.Count("token_code") == 1);
  // Asking about a login that ended answers at once.
  CHECK(rig.WaitLogin(second->login)->outcome == std::make_pair(true, std::string()));
}

TEST_CASE("manager: a redirect with a wrong state changes nothing, consent times out in 5 min",
          "[auth][manager]") {
  ManagerRig rig;
  rig.Add();
  rig.as.authorize = "wrong-state";
  rig.Ask();
  REQUIRE(rig.browser->pages.size() == 1);
  CHECK(rig.browser->pages[0].status == 400);
  CHECK(StartsWith(rig.browser->pages[0].message,
                   "mcpgw: this authorization response matches no login in progress"));
  CHECK(rig.State() == "waiting for consent");
  rig.world.Advance(std::chrono::seconds(299));
  CHECK(rig.link.failures.empty());
  rig.world.Advance(std::chrono::seconds(1));
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] ==
        "no answer from the browser within 5 min (the authorization was not completed)");
  CHECK(rig.State() == "failed");
  CHECK_FALSE(rig.callback->open());
  CHECK(rig.as.Count("token_code") == 0);
  CHECK_FALSE(rig.Stored());
}

TEST_CASE("manager: bad answers fail with their reason and write no token", "[auth][manager]") {
  struct Case {
    const char* name;
    std::function<void(FakeAuthServer&)> misbehave;
    std::string reason;  // a prefix of the failure
  };
  const std::vector<Case> cases = {
      {"malformed resource metadata", [](FakeAuthServer& as) { as.prm = "malformed"; },
       "protected resource metadata is not valid JSON"},
      {"metadata for another resource", [](FakeAuthServer& as) { as.prm = "other-resource"; },
       "protected resource metadata is for \"https://evil.example.com/mcp\""},
      {"issuer mismatch",
       [](FakeAuthServer& as) { as.issuer_named = "https://other-issuer.example"; },
       "authorization server metadata names issuer \"https://other-issuer.example\""},
      {"token endpoint answers HTML", [](FakeAuthServer& as) { as.token = "html"; },
       "token endpoint answered text/html, not a JSON object (HTTP 200)"},
      {"token endpoint answers 500", [](FakeAuthServer& as) { as.token = "500"; },
       "token endpoint answered HTTP 500"},
      {"consent denied", [](FakeAuthServer& as) { as.authorize = "deny"; },
       "authorization denied: access_denied: the user said no"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      ManagerRig rig;
      c.misbehave(rig.as);
      rig.Add();
      rig.Ask();
      CHECK(rig.link.authorized == 0);
      REQUIRE(rig.link.failures.size() == 1);
      CHECK(StartsWith(rig.link.failures[0], c.reason));
      CHECK(rig.Status().error == rig.link.failures[0]);
      CHECK(rig.State() == "failed");
      CHECK_FALSE(rig.Stored());
    }
  }
}

TEST_CASE("manager: a step-up asks for more scopes and keeps the token meanwhile",
          "[auth][manager]") {
  ManagerRig rig;
  rig.Authorize();
  const std::string token = rig.link.Current();
  rig.browser->mode = FakeBrowser::Mode::kIgnore;
  rig.Ask(403, "Bearer error=\"insufficient_scope\", scope=\"mcp:admin\", resource_metadata=\"" +
                   std::string(FakeAuthServer::kPrmUrl) + "\"");
  CHECK(rig.State() == "waiting for consent");
  CHECK(rig.link.Current() == token);  // still sent while the user decides
  CHECK(rig.as.Count("token_refresh") == 0);
  rig.Consent(rig.browser->opened.at(1));
  REQUIRE(rig.as.scopes_asked.size() == 2);
  CHECK(rig.as.scopes_asked[1] == "mcp:tools offline_access mcp:admin");
  CHECK(rig.link.authorized == 2);
}

TEST_CASE("manager: a damaged token file is ignored and the server authorizes again",
          "[auth][manager]") {
  ManagerRig rig;
  rig.env.dirs[kTokenDir] = 0700;
  rig.env.files[rig.GrantPath()] = "{not json";
  CHECK(rig.Add().empty());
  rig.Ask();
  CHECK(rig.State() == "authorized");
  CHECK(rig.Stored());
}

TEST_CASE("manager: a configured Authorization header turns OAuth off", "[auth][manager]") {
  ManagerRig rig;
  config::RemoteServer server = rig.Server();
  server.oauth_allowed = false;
  rig.manager->AddServer(1, "prot", server);
  rig.Ask();
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] ==
        "HTTP 401 from server (mcp.json sets its Authorization header, so mcpgw does not log "
        "in to it)");
  CHECK(rig.as.Count("prm") == 0);
  CHECK_FALSE(rig.Status().used);
  CHECK_FALSE(rig.Login().ok());
}

}  // namespace
}  // namespace mcpgw::testing
