// AuthFlow against a scripted network: discovery orders, identity choices,
// scopes, the consent step and every refusal a user should be told about.
#include <catch2/catch.hpp>

#include <map>

#include "base/base64.h"
#include "daemon/auth/flow.h"
#include "daemon/auth/pkce.h"

namespace mcpgw::auth {
namespace {

using std::chrono::seconds;

FetchResult Json(std::string body, int status = 200) {
  FetchResult r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  return r;
}
FetchResult Status(int status, std::string type = "text/html",
                   std::string body = "<html>no</html>") {
  FetchResult r;
  r.status = status;
  r.content_type = std::move(type);
  r.body = std::move(body);
  return r;
}

const std::string kServer = "http://localhost:3000/mcp";
const std::string kAs = "http://localhost:4000";

std::string Prm(std::string resource = kServer, std::string as = kAs, std::string extra = "") {
  return "{\"resource\":\"" + resource + "\",\"authorization_servers\":[\"" + as + "\"]" + extra +
         "}";
}
std::string AsMeta(std::string issuer = kAs, std::string extra = "") {
  return "{\"issuer\":\"" + issuer + "\",\"authorization_endpoint\":\"" + issuer +
         "/authorize\",\"token_endpoint\":\"" + issuer + "/token\",\"registration_endpoint\":\"" +
         issuer +
         "/register\",\"code_challenge_methods_supported\":[\"S256\"],"
         "\"token_endpoint_auth_methods_supported\":[\"none\"]" +
         extra + "}";
}
const std::string kTokens =
    R"({"access_token":"AT-1","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-1"})";

// Answers every fetch from `routes` (404 for anything else) and plays the
// user's browser: consent gives `code` with the matching state.
struct Harness {
  std::map<std::string, FetchResult> routes;
  std::vector<HttpCall> calls;
  std::vector<std::string> learnt;
  std::vector<ClientIdentity> saved;
  std::optional<ClientIdentity> stored;
  std::string consent_url;
  std::optional<StoredGrant> grant;
  std::optional<std::string> failure;
  std::optional<std::string> no_oauth;
  bool discovered = false;
  bool discover_only = false;
  int preferred_port = -1;
  bool auto_consent = true;
  Params extra_callback;
  TimePoint now{};

  std::unique_ptr<AuthFlow> Make(BearerChallenge challenge = {}, config::OAuthClient oauth = {},
                                 std::string held = "") {
    FlowStart start;
    start.server.url = Secret(kServer);
    start.server.oauth = std::move(oauth);
    start.challenge = std::move(challenge);
    start.held_scope = std::move(held);
    start.discover_only = discover_only;
    return std::make_unique<AuthFlow>(
        std::move(start), [this](const std::string&) { return stored; },
        [this](int port) -> base::Result<std::string> {
          preferred_port = port;
          return std::string("http://127.0.0.1:5555/callback");
        });
  }

  void Pump(AuthFlow& flow) {
    for (int guard = 0; guard < 50; ++guard) {
      std::vector<FlowAction> actions = flow.TakeActions();
      if (actions.empty()) return;
      for (FlowAction& a : actions) {
        if (auto* f = std::get_if<Fetch>(&a)) {
          calls.push_back(f->call);
          auto it = routes.find(f->call.url);
          flow.OnFetched(f->id, it == routes.end() ? Status(404) : it->second, now, 1000);
        } else if (auto* c = std::get_if<AwaitConsent>(&a)) {
          consent_url = c->url;
          if (auto_consent) {
            Params p = {{"code", "CODE-1"}, {"state", c->state}};
            for (auto& e : extra_callback) p.push_back(e);
            flow.OnCallback(p, now);
          }
        } else if (auto* s = std::get_if<LearnSecret>(&a)) {
          learnt.push_back(s->value.Reveal());
        } else if (auto* sc = std::get_if<SaveClient>(&a)) {
          saved.push_back(sc->client);
        } else if (auto* fin = std::get_if<Finished>(&a)) {
          grant = fin->grant;
        } else if (auto* fail = std::get_if<Failed>(&a)) {
          failure = fail->reason;
        } else if (auto* none = std::get_if<NoOAuth>(&a)) {
          no_oauth = none->reason;
        } else if (std::holds_alternative<Discovered>(a)) {
          discovered = true;
        }
      }
    }
    FAIL("the flow did not settle");
  }

  void Run(AuthFlow& flow) {
    flow.Start(now);
    Pump(flow);
  }

  std::vector<std::string> Urls() const {
    std::vector<std::string> out;
    for (const HttpCall& c : calls) out.push_back(c.url);
    return out;
  }
  Params ConsentParams() const {
    return DecodeParams(consent_url.substr(consent_url.find('?') + 1));
  }
  const HttpCall* Call(std::string_view url) const {
    for (const HttpCall& c : calls) {
      if (c.url == url) return &c;
    }
    return nullptr;
  }
};

void Standard(Harness& h) {
  h.routes["http://localhost:3000/.well-known/oauth-protected-resource/mcp"] = Json(Prm());
  h.routes[kAs + "/.well-known/oauth-authorization-server"] = Json(AsMeta());
  h.routes[kAs + "/register"] = Json(R"({"client_id":"dyn-1","client_secret":"dyn-secret"})", 201);
  h.routes[kAs + "/token"] = Json(kTokens);
}

TEST_CASE("the whole flow: discovery, registration, consent, tokens", "[auth][flow]") {
  Harness h;
  Standard(h);
  auto flow = h.Make();
  h.Run(*flow);
  REQUIRE_FALSE(h.failure);
  REQUIRE(h.grant);
  CHECK(h.grant->tokens.access_token.Reveal() == "AT-1");
  CHECK(h.grant->tokens.refresh_token.Reveal() == "RT-1");
  CHECK(h.grant->tokens.expires_at == 4600);
  CHECK(h.grant->client.client_id == "dyn-1");
  CHECK(h.grant->issuer == kAs);
  CHECK(h.grant->token_endpoint == kAs + "/token");
  CHECK(h.grant->resource == kServer);
  CHECK(h.Urls() ==
        std::vector<std::string>{"http://localhost:3000/.well-known/oauth-protected-resource/mcp",
                                 kAs + "/.well-known/oauth-authorization-server", kAs + "/register",
                                 kAs + "/token"});
  REQUIRE(h.saved.size() == 1);
  CHECK(h.saved[0].issuer == kAs);
  CHECK(h.saved[0].redirect_uri == "http://127.0.0.1:5555/callback");

  const Params p = h.ConsentParams();
  CHECK(FindParam(p, "client_id") == "dyn-1");
  CHECK(FindParam(p, "code_challenge_method") == "S256");
  CHECK(FindParam(p, "redirect_uri") == "http://127.0.0.1:5555/callback");
  CHECK(FindParam(p, "resource") == kServer);
  CHECK_FALSE(FindParam(p, "scope"));
  const HttpCall* token = h.Call(kAs + "/token");
  REQUIRE(token);
  const Params form = DecodeParams(token->body);
  const std::string verifier = *FindParam(form, "code_verifier");
  CHECK(CodeChallengeS256(verifier) == FindParam(p, "code_challenge"));
  CHECK(FindParam(form, "resource") == FindParam(p, "resource"));
  CHECK(FindParam(form, "code") == "CODE-1");
  // Every secret was announced: client secret, verifier, code, tokens.
  for (const char* s : {"dyn-secret", "CODE-1", "AT-1", "RT-1"}) {
    CHECK(std::find(h.learnt.begin(), h.learnt.end(), s) != h.learnt.end());
  }
  CHECK(std::find(h.learnt.begin(), h.learnt.end(), verifier) != h.learnt.end());
}

TEST_CASE("resource_metadata from the challenge is fetched first and only", "[auth][flow]") {
  Harness h;
  Standard(h);
  h.routes["http://localhost:3000/custom/prm.json"] = Json(Prm());
  BearerChallenge c;
  c.present = true;
  c.resource_metadata = "http://localhost:3000/custom/prm.json";
  auto flow = h.Make(c);
  h.Run(*flow);
  REQUIRE(h.grant);
  CHECK(h.Urls().front() == "http://localhost:3000/custom/prm.json");

  Harness broken;
  Standard(broken);
  auto flow2 = broken.Make(c);
  broken.Run(*flow2);
  REQUIRE(broken.failure);
  CHECK(*broken.failure == "cannot fetch protected resource metadata (HTTP 404)");
}

TEST_CASE("the root resource metadata is tried after the path-based one", "[auth][flow]") {
  Harness h;
  Standard(h);
  h.routes.erase("http://localhost:3000/.well-known/oauth-protected-resource/mcp");
  h.routes["http://localhost:3000/.well-known/oauth-protected-resource"] =
      Json(Prm("http://localhost:3000", kAs + "/tenant1"));
  h.routes[kAs + "/tenant1/.well-known/openid-configuration"] = Json(AsMeta(kAs + "/tenant1"));
  h.routes[kAs + "/tenant1/register"] = Json(R"({"client_id":"t1"})", 201);
  h.routes[kAs + "/tenant1/token"] = Json(kTokens);
  auto flow = h.Make();
  h.Run(*flow);
  REQUIRE(h.grant);
  CHECK(h.Urls() ==
        std::vector<std::string>{"http://localhost:3000/.well-known/oauth-protected-resource/mcp",
                                 "http://localhost:3000/.well-known/oauth-protected-resource",
                                 kAs + "/.well-known/oauth-authorization-server/tenant1",
                                 kAs + "/.well-known/openid-configuration/tenant1",
                                 kAs + "/tenant1/.well-known/openid-configuration",
                                 kAs + "/tenant1/register", kAs + "/tenant1/token"});
  CHECK(h.grant->resource == "http://localhost:3000");
}

TEST_CASE("a server without resource metadata is treated as 2025-03-26", "[auth][flow]") {
  Harness h;
  h.routes["http://localhost:3000/.well-known/oauth-authorization-server"] =
      Json(AsMeta("http://localhost:3000/oauth"));
  h.routes["http://localhost:3000/oauth/register"] = Json(R"({"client_id":"old"})", 201);
  h.routes["http://localhost:3000/oauth/token"] = Json(kTokens);
  auto flow = h.Make();
  h.Run(*flow);
  REQUIRE(h.grant);
  CHECK(h.grant->resource == kServer);

  // No metadata at all, and a 401 that challenged for a Bearer token: the
  // default endpoints.
  Harness bare;
  bare.routes["http://localhost:3000/register"] = Json(R"({"client_id":"old"})", 201);
  bare.routes["http://localhost:3000/token"] = Json(kTokens);
  BearerChallenge bearer;
  bearer.present = true;
  auto flow2 = bare.Make(bearer);
  bare.Run(*flow2);
  REQUIRE(bare.grant);
  CHECK(bare.consent_url.rfind("http://localhost:3000/authorize?", 0) == 0);
}

TEST_CASE("a server with no OAuth anywhere is told apart from one to log in to", "[auth][flow]") {
  const std::vector<std::string> looked_up = {
      "http://localhost:3000/.well-known/oauth-protected-resource/mcp",
      "http://localhost:3000/.well-known/oauth-protected-resource",
      "http://localhost:3000/.well-known/oauth-authorization-server",
      "http://localhost:3000/.well-known/openid-configuration"};
  SECTION("a 401 without a Bearer challenge (an API key refused): nothing more is tried") {
    Harness h;
    auto flow = h.Make();
    h.Run(*flow);
    REQUIRE(h.no_oauth);
    CHECK(*h.no_oauth ==
          "the server offers no OAuth (no protected resource metadata, no authorization server "
          "metadata on its origin, and its 401 asked for no Bearer token)");
    CHECK_FALSE(h.failure);
    CHECK(h.Urls() == looked_up);  // no registration, no listener, no consent URL
    CHECK(h.preferred_port == -1);
    CHECK(h.consent_url.empty());
    CHECK(flow->done());
  }
  SECTION("a Bearer challenge, but the default endpoints are not there either") {
    Harness h;
    BearerChallenge bearer;
    bearer.present = true;
    auto flow = h.Make(bearer);
    h.Run(*flow);
    REQUIRE(h.no_oauth);
    CHECK(*h.no_oauth ==
          "the server offers no OAuth (no protected resource metadata, no authorization server "
          "metadata on its origin, and no registration endpoint there: HTTP 404)");
    CHECK(h.Urls().back() == "http://localhost:3000/register");
    CHECK(h.consent_url.empty());
  }
  SECTION("a configured client says OAuth is wanted: the default endpoints") {
    Harness h;
    h.routes["http://localhost:3000/token"] = Json(kTokens);
    config::OAuthClient oauth;
    oauth.client_id = "mine";
    auto flow = h.Make({}, oauth);
    h.Run(*flow);
    CHECK_FALSE(h.no_oauth);
    REQUIRE(h.grant);
  }
  SECTION("metadata at its origin is OAuth, whatever the challenge") {
    Harness h;
    h.routes["http://localhost:3000/.well-known/oauth-authorization-server"] =
        Json(AsMeta("http://localhost:3000"));
    h.routes["http://localhost:3000/register"] = Json(R"({"client_id":"old"})", 201);
    h.routes["http://localhost:3000/token"] = Json(kTokens);
    auto flow = h.Make();
    h.Run(*flow);
    CHECK_FALSE(h.no_oauth);
    CHECK(h.grant);
  }
}

TEST_CASE("discovery only: stops once the authorization server is known", "[auth][flow]") {
  Harness h;
  Standard(h);
  h.discover_only = true;
  auto flow = h.Make();
  h.Run(*flow);
  CHECK(h.discovered);
  CHECK(flow->done());
  CHECK_FALSE(h.failure);
  CHECK_FALSE(h.Call(kAs + "/register"));
  CHECK(h.preferred_port == -1);  // no listener opened
  CHECK(h.consent_url.empty());

  Harness none;  // and a server without OAuth is still told apart
  none.discover_only = true;
  auto flow2 = none.Make();
  none.Run(*flow2);
  CHECK_FALSE(none.discovered);
  CHECK(none.no_oauth);
}

TEST_CASE("scopes: challenge, else scopes_supported, else none, plus offline_access",
          "[auth][flow]") {
  ServerMetadata as;
  ResourceMetadata prm;
  prm.scopes_supported = std::vector<std::string>{"mcp:basic", "mcp:read"};
  BearerChallenge c;
  CHECK(SelectScope(c, &prm, as, "") == "mcp:basic mcp:read");
  CHECK(SelectScope(c, nullptr, as, "") == "");
  c.scope = "files:read";
  CHECK(SelectScope(c, &prm, as, "") == "files:read");
  c.error = "insufficient_scope";
  c.scope = "mcp:basic mcp:write";
  CHECK(SelectScope(c, &prm, as, "mcp:basic other") == "mcp:basic other mcp:write");
  as.scopes_supported = std::vector<std::string>{"offline_access"};
  CHECK(SelectScope({}, &prm, as, "") == "mcp:basic mcp:read offline_access");
  CHECK(SelectScope({}, nullptr, as, "") == "");
}

TEST_CASE("the consent URL asks for consent exactly when it asks for offline_access",
          "[auth][flow]") {
  const std::string prm_url = "http://localhost:3000/.well-known/oauth-protected-resource/mcp";
  const std::string as_url = kAs + "/.well-known/oauth-authorization-server";
  Harness offline;
  Standard(offline);
  offline.routes[prm_url] = Json(Prm(kServer, kAs, R"(,"scopes_supported":["mcp:tools"])"));
  offline.routes[as_url] =
      Json(AsMeta(kAs, R"(,"scopes_supported":["mcp:tools","offline_access"])"));
  auto flow = offline.Make();
  offline.Run(*flow);
  REQUIRE(offline.grant);
  CHECK(FindParam(offline.ConsentParams(), "scope") == "mcp:tools offline_access");
  CHECK(FindParam(offline.ConsentParams(), "prompt") == "consent");

  Harness online;  // the server does not list offline_access: no prompt
  Standard(online);
  online.routes[prm_url] = Json(Prm(kServer, kAs, R"(,"scopes_supported":["mcp:tools"])"));
  auto flow2 = online.Make();
  online.Run(*flow2);
  REQUIRE(online.grant);
  CHECK(FindParam(online.ConsentParams(), "scope") == "mcp:tools");
  CHECK_FALSE(FindParam(online.ConsentParams(), "prompt"));
}

TEST_CASE("a configured client and a metadata document skip registration", "[auth][flow]") {
  Harness h;
  Standard(h);
  config::OAuthClient oauth;
  oauth.client_id = "pre";
  oauth.client_secret = Secret("pre-secret");
  h.routes[kAs + "/.well-known/oauth-authorization-server"] =
      Json(AsMeta(kAs, R"(,"token_endpoint_auth_methods_supported":["client_secret_basic"])"));
  auto flow = h.Make({}, oauth);
  h.Run(*flow);
  REQUIRE(h.grant);
  CHECK_FALSE(h.Call(kAs + "/register"));
  CHECK(h.grant->client.source == ClientSource::kConfigured);
  const HttpCall* token = h.Call(kAs + "/token");
  REQUIRE(token);
  bool basic = false;
  for (const auto& [n, v] : token->headers)
    basic |= n == "Authorization" && v == "Basic " + base::Base64("pre:pre-secret");
  CHECK(basic);
  CHECK(std::find(h.learnt.begin(), h.learnt.end(), "pre-secret") != h.learnt.end());

  Harness m;
  Standard(m);
  m.routes[kAs + "/.well-known/oauth-authorization-server"] =
      Json(AsMeta(kAs, R"(,"client_id_metadata_document_supported":true)"));
  config::OAuthClient cimd;
  cimd.client_metadata_url = "https://app.example/client.json";
  auto flow2 = m.Make({}, cimd);
  m.Run(*flow2);
  REQUIRE(m.grant);
  CHECK_FALSE(m.Call(kAs + "/register"));
  CHECK(FindParam(m.ConsentParams(), "client_id") == "https://app.example/client.json");
}

TEST_CASE("a stored registration is reused on the port it registered", "[auth][flow]") {
  Harness h;
  Standard(h);
  ClientIdentity stored;
  stored.client_id = "kept";
  stored.auth_method = "none";
  stored.redirect_uri = "http://127.0.0.1:4321/callback";
  stored.issuer = kAs;
  h.stored = stored;
  auto flow = h.Make();
  h.Run(*flow);
  REQUIRE(h.grant);
  CHECK_FALSE(h.Call(kAs + "/register"));
  CHECK(h.preferred_port == 4321);
  CHECK(h.grant->client.client_id == "kept");
}

TEST_CASE("each bad answer fails the flow with its own reason and no tokens", "[auth][flow]") {
  struct Case {
    const char* name;
    std::function<void(Harness&)> setup;
    std::string reason;
  };
  const std::string prm_url = "http://localhost:3000/.well-known/oauth-protected-resource/mcp";
  const std::string as_url = kAs + "/.well-known/oauth-authorization-server";
  std::vector<Case> cases = {
      {"malformed resource metadata", [&](Harness& h) { h.routes[prm_url] = Json("{oops"); },
       "protected resource metadata is not valid JSON"},
      {"metadata for another resource",
       [&](Harness& h) { h.routes[prm_url] = Json(Prm("https://evil.example.com/mcp")); },
       "protected resource metadata is for \"https://evil.example.com/mcp\", not for " + kServer},
      {"issuer mismatch",
       [&](Harness& h) { h.routes[as_url] = Json(AsMeta("http://localhost:4001")); },
       "authorization server metadata names issuer \"http://localhost:4001\", not the "
       "\"http://localhost:4000\" it was fetched for"},
      {"no PKCE",
       [&](Harness& h) {
         std::string m = AsMeta();
         m.replace(m.find("\"S256\""), 6, "\"plain\"");
         h.routes[as_url] = Json(m);
       },
       "the authorization server does not support PKCE with S256 "
       "(code_challenge_methods_supported)"},
      {"token endpoint answers HTML", [&](Harness& h) { h.routes[kAs + "/token"] = Status(200); },
       "token endpoint answered text/html, not a JSON object (HTTP 200)"},
      {"token endpoint answers 500", [&](Harness& h) { h.routes[kAs + "/token"] = Status(500); },
       "token endpoint answered HTTP 500"},
      {"resource metadata 500", [&](Harness& h) { h.routes[prm_url] = Status(500); },
       "cannot fetch protected resource metadata (HTTP 500)"},
      {"no authorization server metadata", [&](Harness& h) { h.routes.erase(as_url); },
       "no authorization server metadata found for http://localhost:4000"},
      {"registration refused",
       [&](Harness& h) {
         h.routes[kAs + "/register"] = Json(R"({"error":"invalid_client_metadata"})", 400);
       },
       "client registration refused (HTTP 400): invalid_client_metadata"},
      {"consent denied",
       [&](Harness& h) {
         h.extra_callback = {{"error", "access_denied"}};
       },
       "authorization denied: access_denied"},
      {"wrong issuer in the response",
       [&](Harness& h) {
         h.extra_callback = {{"iss", "https://attacker.example"}};
       },
       "the authorization response came from issuer \"https://attacker.example\", not from "
       "http://localhost:4000"},
      {"iss promised but missing",
       [&](Harness& h) {
         h.routes[as_url] =
             Json(AsMeta(kAs, R"(,"authorization_response_iss_parameter_supported":true)"));
       },
       "the authorization response lacks the iss parameter its server promised"},
  };
  for (Case& c : cases) {
    SECTION(c.name) {
      Harness h;
      Standard(h);
      c.setup(h);
      auto flow = h.Make();
      h.Run(*flow);
      CHECK_FALSE(h.grant);
      REQUIRE(h.failure);
      CHECK(*h.failure == c.reason);
      CHECK(flow->done());
    }
  }
}

TEST_CASE("the right iss in the response is accepted", "[auth][flow]") {
  Harness h;
  Standard(h);
  h.extra_callback = {{"iss", kAs}};
  auto flow = h.Make();
  h.Run(*flow);
  CHECK(h.grant);
}

TEST_CASE("no answer from the browser times out with a reason", "[auth][flow]") {
  Harness h;
  Standard(h);
  h.auto_consent = false;
  auto flow = h.Make();
  h.Run(*flow);
  REQUIRE(flow->awaiting_consent());
  REQUIRE(flow->NextWakeup());
  CHECK(*flow->NextWakeup() == h.now + std::chrono::minutes(5));
  flow->OnTimer(h.now + std::chrono::minutes(4));
  h.Pump(*flow);
  CHECK_FALSE(h.failure);
  flow->OnTimer(h.now + std::chrono::minutes(5));
  h.Pump(*flow);
  REQUIRE(h.failure);
  CHECK(*h.failure ==
        "no answer from the browser within 5 min (the authorization was not completed)");
  CHECK_FALSE(h.grant);
}

TEST_CASE("a stalled discovery request times out", "[auth][flow]") {
  Harness h;
  auto flow = h.Make();
  flow->Start(h.now);
  std::vector<FlowAction> actions = flow->TakeActions();
  REQUIRE(actions.size() == 1);
  REQUIRE(std::holds_alternative<Fetch>(actions[0]));
  flow->OnTimer(h.now + seconds(30));
  h.Pump(*flow);
  REQUIRE(h.failure);
  CHECK(*h.failure == "timed out after 30 s waiting for protected resource metadata");
  // The late answer changes nothing.
  flow->OnFetched(std::get<Fetch>(actions[0]).id, Json(Prm()), h.now, 0);
  CHECK(flow->TakeActions().empty());
}

}  // namespace
}  // namespace mcpgw::auth
