#include "daemon/auth/flow.h"

#include <cassert>

#include "base/clean_text.h"
#include "base/move_table.h"
#include "base/url.h"
#include "daemon/auth/pkce.h"
#include "daemon/auth/token.h"

namespace mcpgw::auth {
namespace {

bool Is2xx(int status) { return status >= 200 && status < 300; }

std::string Seconds(Duration d) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  return s >= 60 && s % 60 == 0 ? std::to_string(s / 60) + " min" : std::to_string(s) + " s";
}

std::string Describe(const base::Result<FetchResult>& r) {
  if (!r.ok()) return r.message().empty() ? "transfer failed" : r.message();
  return "HTTP " + std::to_string(r->status);
}

// Where one authorization is.
enum class Step {
  kResource,  // fetching protected resource metadata candidates
  kServer,    // fetching authorization server metadata candidates
  kRegister,  // dynamic client registration
  kConsent,   // waiting for the redirect
  kExchange,  // trading the code for tokens
  kDone,      // tokens, a failure, no OAuth, or discovery only: nothing more happens
};

// Every move of a flow. kDone is reachable from every other step (a failure,
// a timeout, no OAuth) and is left out; anything else not listed is a bug in
// this file.
constexpr base::Transition<Step> kSteps[] = {
    // Resource metadata found, or none anywhere (a 2025-03-26 server).
    {Step::kResource, Step::kServer},
    // The authorization server's metadata: register a client, or use the one
    // known, and ask for consent.
    {Step::kServer, Step::kRegister},
    {Step::kServer, Step::kConsent},
    {Step::kRegister, Step::kConsent},
    // The redirect came with a code.
    {Step::kConsent, Step::kExchange},
};

[[maybe_unused]] bool StepAllowed(Step from, Step to) {
  if (to == Step::kDone) return from != Step::kDone;
  return base::Allowed(kSteps, from, to);
}

}  // namespace

struct AuthFlow::Impl {
  FlowStart start;
  ClientLookup lookup_client;
  RedirectOpener open_redirect;
  FlowLimits limits;
  std::string redirect_uri;
  base::Url server_url;
  Step step = Step::kResource;
  std::vector<std::string> candidates;
  size_t candidate = 0;
  bool prm_from_header = false;
  std::optional<ResourceMetadata> prm;
  Discovery discovery = Discovery::kIssuer;
  std::string issuer;  // looked up (kIssuer) or the server's origin (kLegacy)
  ServerMetadata as;
  bool default_endpoints = false;  // `as` is the guessed 2025-03-26 endpoints
  std::string resource;
  ClientIdentity client;
  std::string register_method;
  std::string requested_scope;
  std::string verifier;
  std::string state;
  uint64_t fetch_id = 0;  // the live fetch, 0 when none
  uint64_t next_fetch = 1;
  std::optional<TimePoint> deadline;
  std::string waiting_for;  // what the deadline is for, for its reason
  std::vector<FlowAction> actions;

  // The one place the step changes; a move the table lacks is a bug here
  // (debug builds stop on it).
  void Enter(Step next) {
    assert(StepAllowed(step, next));
    step = next;
  }

  void End() {
    Enter(Step::kDone);
    fetch_id = 0;
    deadline.reset();
  }

  void Fail(std::string reason) {
    if (step == Step::kDone) return;
    End();
    actions.emplace_back(std::in_place_type<Failed>, Failed{std::move(reason)});
  }

  void NoOAuthHere(std::string looked_for) {
    if (step == Step::kDone) return;
    End();
    actions.emplace_back(std::in_place_type<NoOAuth>,
                         NoOAuth{"the server offers no OAuth (" + std::move(looked_for) + ")"});
  }

  // Discovery is over: stop there when only that was asked, else settle who
  // mcpgw is and ask for consent.
  void DiscoveryDone(TimePoint now) {
    if (!start.discover_only) return SettleClient(now);
    End();
    actions.emplace_back(std::in_place_type<Discovered>);
  }

  void Learn(std::string_view value) {
    if (!value.empty())
      actions.emplace_back(std::in_place_type<LearnSecret>,
                           LearnSecret{Secret(std::string(value))});
  }

  void Send(HttpCall call, std::string what, TimePoint now) {
    fetch_id = next_fetch++;
    deadline = now + limits.fetch_timeout;
    waiting_for = std::move(what);
    actions.emplace_back(std::in_place_type<Fetch>, Fetch{fetch_id, std::move(call)});
  }

  void FetchCandidate(TimePoint now) {
    HttpCall call;
    call.url = candidates[candidate];
    call.headers = {{"Accept", "application/json"}};
    Send(std::move(call),
         step == Step::kResource ? "protected resource metadata" : "authorization server metadata",
         now);
  }

  void Start(TimePoint now) {
    std::optional<base::Url> url = base::ParseUrl(start.server.url.Reveal());
    if (!url) return Fail("the server URL is not an http(s) URL");
    server_url = *url;
    resource = CanonicalResource(server_url);
    const std::string& header_url = start.challenge.resource_metadata;
    if (!header_url.empty()) {
      if (base::Status allowed = EndpointAllowed(header_url, server_url); !allowed.ok()) {
        return Fail("the server's resource_metadata URL " + allowed.message());
      }
      prm_from_header = true;
      candidates = {header_url};
    } else {
      candidates = ProtectedResourceMetadataUrls(server_url);
    }
    candidate = 0;
    FetchCandidate(now);
  }

  void OnResource(const base::Result<FetchResult>& r, TimePoint now) {
    if (r.ok() && Is2xx(r->status)) {
      base::Result<ResourceMetadata> parsed = ParseResourceMetadata(r->body);
      if (!parsed.ok()) return Fail(parsed.message());
      if (base::Status checked = CheckResource(*parsed, server_url); !checked.ok()) {
        return Fail(checked.message());
      }
      prm = *std::move(parsed);
      resource = prm->resource;
      issuer = prm->authorization_servers.front();
      if (base::Status allowed = EndpointAllowed(issuer, server_url); !allowed.ok()) {
        return Fail("protected resource metadata names authorization server " + allowed.message());
      }
      discovery = Discovery::kIssuer;
      return BeginServerDiscovery(*base::ParseUrl(issuer), now);
    }
    const bool not_there = r.ok() && r->status >= 400 && r->status < 500;
    if (!not_there || prm_from_header) {
      return Fail("cannot fetch protected resource metadata (" + Describe(r) + ")");
    }
    if (++candidate < candidates.size()) return FetchCandidate(now);
    // No resource metadata anywhere: a 2025-03-26 server, whose
    // authorization server lives at its own origin.
    discovery = Discovery::kLegacy;
    issuer = server_url.Origin();
    BeginServerDiscovery(*base::ParseUrl(issuer), now);
  }

  void BeginServerDiscovery(const base::Url& issuer_url, TimePoint now) {
    Enter(Step::kServer);
    candidates = AuthorizationServerMetadataUrls(issuer_url);
    candidate = 0;
    FetchCandidate(now);
  }

  void OnServer(const base::Result<FetchResult>& r, TimePoint now) {
    if (r.ok() && Is2xx(r->status)) {
      base::Result<ServerMetadata> parsed = ParseServerMetadata(r->body);
      if (!parsed.ok()) return Fail(parsed.message());
      if (base::Status checked = CheckServerMetadata(*parsed, discovery, issuer, server_url);
          !checked.ok()) {
        return Fail(checked.message());
      }
      as = *std::move(parsed);
      return DiscoveryDone(now);
    }
    const bool not_there = r.ok() && r->status >= 400 && r->status < 500;
    if (!not_there) return Fail("cannot fetch authorization server metadata (" + Describe(r) + ")");
    if (++candidate < candidates.size()) return FetchCandidate(now);
    if (discovery == Discovery::kLegacy) {
      // No metadata anywhere. A 2025-03-26 server's default endpoints are
      // assumed only when something says OAuth is wanted: its 401 challenged
      // for a Bearer token, or mcp.json names a client. A 401 without either
      // refuses the credentials the entry sends (an API key).
      if (!start.challenge.present && start.server.oauth.client_id.empty()) {
        return NoOAuthHere(
            "no protected resource metadata, no authorization server metadata on its origin, "
            "and its 401 asked for no Bearer token");
      }
      as = DefaultServerMetadata(server_url);
      default_endpoints = true;
      return DiscoveryDone(now);
    }
    Fail("no authorization server metadata found for " + base::CleanServerText(issuer, 200));
  }

  void SettleClient(TimePoint now) {
    // A stored registration is reused whatever port its redirect named: a
    // loopback redirect may change port (RFC 8252 §7.3).
    std::optional<ClientIdentity> stored = lookup_client ? lookup_client(as.issuer) : std::nullopt;
    IdentityPlan plan = PlanIdentity(start.server.oauth, as, stored.value_or(ClientIdentity{}));
    if (plan.kind != IdentityPlan::kImpossible) {
      int port = 0;
      if (plan.kind == IdentityPlan::kUse && !plan.identity.redirect_uri.empty()) {
        if (std::optional<base::Url> u = base::ParseUrl(plan.identity.redirect_uri);
            u && !u->port.empty()) {
          port = std::stoi(u->port);
        }
      }
      base::Result<std::string> opened =
          open_redirect ? open_redirect(port) : base::Result<std::string>(std::string());
      if (!opened.ok() || opened->empty()) {
        return Fail("cannot listen for the authorization response: " +
                    (opened.message().empty() ? std::string("no listener") : opened.message()));
      }
      redirect_uri = *std::move(opened);
    }
    switch (plan.kind) {
      case IdentityPlan::kImpossible:
        return Fail(plan.reason);
      case IdentityPlan::kUse:
        client = std::move(plan.identity);
        Learn(client.client_secret.Reveal());
        return Consent(now);
      case IdentityPlan::kRegister:
        Enter(Step::kRegister);
        register_method = plan.auth_method;
        return Send(BuildRegistration(as, redirect_uri, plan.auth_method), "client registration",
                    now);
    }
  }

  void OnRegistered(const base::Result<FetchResult>& r, TimePoint now) {
    if (!r.ok()) return Fail("client registration failed (" + Describe(r) + ")");
    // The guessed default endpoints are not there: nothing of OAuth is.
    if (default_endpoints && (r->status == 404 || r->status == 405 || r->status == 501)) {
      return NoOAuthHere(
          "no protected resource metadata, no authorization server metadata on its origin, "
          "and no registration endpoint there: " +
          Describe(r));
    }
    base::Result<ClientIdentity> registered =
        ParseRegistration(r->status, r->body, register_method, redirect_uri, as.issuer);
    if (!registered.ok()) return Fail(registered.message());
    Learn(registered->client_secret.Reveal());
    client = *registered;
    actions.emplace_back(std::in_place_type<SaveClient>, SaveClient{*std::move(registered)});
    Consent(now);
  }

  void Consent(TimePoint now) {
    Enter(Step::kConsent);
    fetch_id = 0;
    requested_scope = SelectScope(start.challenge, prm ? &*prm : nullptr, as, start.held_scope);
    verifier = NewCodeVerifier();
    state = RandomToken(24);
    Learn(verifier);
    AuthorizationRequest req;
    req.authorization_endpoint = as.authorization_endpoint;
    req.client_id = client.client_id;
    req.redirect_uri = redirect_uri;
    req.code_challenge = CodeChallengeS256(verifier);
    req.state = state;
    req.scope = requested_scope;
    req.resource = resource;
    deadline = now + limits.consent_timeout;
    waiting_for = "consent";
    actions.emplace_back(std::in_place_type<AwaitConsent>,
                         AwaitConsent{BuildAuthorizationUrl(req), state});
  }

  void OnCallback(const Params& params, TimePoint now) {
    if (step != Step::kConsent) return;
    const std::optional<std::string> code = FindParam(params, "code");
    if (code) Learn(*code);
    if (std::optional<std::string> error = FindParam(params, "error")) {
      std::string reason = "authorization denied: " + base::CleanServerText(*error, 64);
      if (auto desc = FindParam(params, "error_description"); desc && !desc->empty()) {
        reason += ": " + base::CleanServerText(*desc, 200);
      }
      return Fail(reason);
    }
    // RFC 9207: a server that names itself must be the one asked.
    const std::optional<std::string> iss = FindParam(params, "iss");
    if (iss && *iss != as.issuer) {
      return Fail("the authorization response came from issuer \"" +
                  base::CleanServerText(*iss, 200) + "\", not from " +
                  base::CleanServerText(as.issuer, 200));
    }
    if (!iss && as.authorization_response_iss_parameter_supported) {
      return Fail("the authorization response lacks the iss parameter its server promised");
    }
    if (!code || code->empty()) return Fail("the authorization response carried no code");
    Enter(Step::kExchange);
    Send(BuildCodeExchange(as.token_endpoint, client, *code, verifier, redirect_uri, resource),
         "the token endpoint", now);
  }

  void OnExchanged(const base::Result<FetchResult>& r, int64_t unix_now) {
    if (!r.ok()) return Fail("token request failed (" + Describe(r) + ")");
    base::Result<Tokens> tokens =
        ParseTokenResponse(r->status, r->content_type, r->body, unix_now, requested_scope, nullptr);
    if (!tokens.ok()) return Fail(tokens.message());
    Learn(tokens->access_token.Reveal());
    Learn(tokens->refresh_token.Reveal());
    End();
    StoredGrant grant;
    grant.tokens = *std::move(tokens);
    grant.client = client;
    grant.issuer = as.issuer;
    grant.token_endpoint = as.token_endpoint;
    grant.revocation_endpoint = as.revocation_endpoint;
    grant.resource = resource;
    actions.emplace_back(std::in_place_type<Finished>, Finished{std::move(grant)});
  }

  void OnFetched(uint64_t id, const base::Result<FetchResult>& r, TimePoint now, int64_t unix_now) {
    if (id == 0 || id != fetch_id || step == Step::kDone) return;
    fetch_id = 0;
    deadline.reset();
    switch (step) {
      case Step::kResource:
        return OnResource(r, now);
      case Step::kServer:
        return OnServer(r, now);
      case Step::kRegister:
        return OnRegistered(r, now);
      case Step::kExchange:
        return OnExchanged(r, unix_now);
      case Step::kConsent:
      case Step::kDone:
        return;
    }
  }

  void OnTimer(TimePoint now) {
    if (step == Step::kDone || !deadline || now < *deadline) return;
    if (step == Step::kConsent) {
      return Fail("no answer from the browser within " + Seconds(limits.consent_timeout) +
                  " (the authorization was not completed)");
    }
    Fail("timed out after " + Seconds(limits.fetch_timeout) + " waiting for " + waiting_for);
  }
};

std::string SelectScope(const BearerChallenge& challenge, const ResourceMetadata* prm,
                        const ServerMetadata& as, std::string_view held_scope) {
  std::string scope;
  if (!challenge.scope.empty()) {
    scope = UnionScopes("", challenge.scope);
  } else if (prm && prm->scopes_supported) {
    for (const std::string& s : *prm->scopes_supported) scope = UnionScopes(scope, s);
  }
  if (challenge.error == "insufficient_scope") scope = UnionScopes(held_scope, scope);
  if (!scope.empty() && as.SupportsScope("offline_access")) {
    scope = UnionScopes(scope, "offline_access");
  }
  return scope;
}

AuthFlow::AuthFlow(FlowStart start, ClientLookup lookup_client, RedirectOpener open_redirect,
                   FlowLimits limits)
    : impl_(std::make_unique<Impl>()) {
  impl_->start = std::move(start);
  impl_->lookup_client = std::move(lookup_client);
  impl_->open_redirect = std::move(open_redirect);
  impl_->limits = limits;
}
AuthFlow::~AuthFlow() = default;

void AuthFlow::Start(TimePoint now) { impl_->Start(now); }
void AuthFlow::OnFetched(uint64_t id, const base::Result<FetchResult>& result, TimePoint now,
                         int64_t unix_now) {
  impl_->OnFetched(id, result, now, unix_now);
}
void AuthFlow::OnCallback(const Params& params, TimePoint now) { impl_->OnCallback(params, now); }
void AuthFlow::OnTimer(TimePoint now) { impl_->OnTimer(now); }

std::vector<FlowAction> AuthFlow::TakeActions() {
  std::vector<FlowAction> out;
  out.swap(impl_->actions);
  return out;
}
std::optional<TimePoint> AuthFlow::NextWakeup() const { return impl_->deadline; }
bool AuthFlow::done() const { return impl_->step == Step::kDone; }
bool AuthFlow::awaiting_consent() const { return impl_->step == Step::kConsent; }
const std::string& AuthFlow::scope() const { return impl_->requested_scope; }

}  // namespace mcpgw::auth
