// AuthManager: authorization flows (docs/BEHAVIOR.md §9) — when one may start
// by itself (not logged out, attempts left, a browser to ask), driving the
// sans-I/O AuthFlow (its requests, the consent URL, the secrets it learns),
// and the loopback callback that carries the user's answer.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "daemon/auth/manager_impl.h"

namespace mcpgw::auth {
namespace {

// Where a server goes when no browser can ask for consent: its tokens stay
// in use if it has any; else only a login helps.
AuthState WithoutBrowser(const ServerAuth& s) {
  return s.grant ? AuthState::kUnconfirmed : AuthState::kNoBrowser;
}

}  // namespace

void AuthManager::Impl::StartAuthorization(ServerAuth& s, uint64_t login) {
  // A refresh that ended in invalid_grant comes here without tokens: it may
  // not stay "refreshing" when no flow starts.
  const AuthState refused = IsRefreshing(s.state) ? AuthState::kFailed : s.state;
  bool discover_only = false;
  if (login == 0) {
    if (shutting_down) return Enter(s, refused);
    if (s.state == AuthState::kLoggedOut) {
      s.last_error = LoginRequiredReason(s.name);
      return FailSession(s, s.last_error);
    }
    if (s.attempts >= options.max_attempts) {
      Enter(s, refused);
      std::string reason = "authorization failed " + std::to_string(s.attempts) + " times";
      if (!s.last_error.empty()) reason += " (last: " + s.last_error + ")";
      reason += "; run \"mcpgw login " + s.name + "\" to try again";
      return FailSession(s, reason);
    }
    // Without a browser nobody can consent, but whether the server offers
    // OAuth at all is still found out first: one that does not (its 401
    // refuses an API key) must not be sent to `mcpgw login`. Registering and
    // listening are left for a login; no attempt is counted.
    discover_only = !ChooseBrowser(options.get_env, options.macos);
  }
  if (!discover_only) ++s.attempts;
  FlowStart start;
  start.server = s.config;
  start.challenge = s.ask.challenge;
  start.discover_only = discover_only;
  if (s.ask.StepUp() && s.grant) start.held_scope = s.grant->tokens.scope;
  s.flow_login = login;
  s.flow_counted = !discover_only;
  s.flow_serial = ++next_flow;
  s.flow = std::make_unique<AuthFlow>(
      std::move(start),
      [this](const std::string& issuer) -> std::optional<ClientIdentity> {
        base::Result<std::optional<ClientIdentity>> c = store.LoadClient(issuer);
        if (!c.ok()) spdlog::warn("OAuth registration unusable: {}", c.message());
        return std::move(c).value_or(std::nullopt);
      },
      [this](int port) -> base::Result<std::string> {
        base::Result<int> bound =
            callback->Open(port, [this](const std::string& q) { return OnCallback(q); });
        if (!bound.ok()) return std::move(bound).status();
        return RedirectUriFor(*bound);
      },
      options.limits);
  Enter(s, AuthState::kAuthorizing);
  if (discover_only) {
    spdlog::info("server \"{}\": looking for its authorization server (no browser to ask)", s.name);
  } else {
    spdlog::info("server \"{}\": authorizing (attempt {}{})", s.name, s.attempts,
                 login ? ", from mcpgw login" : "");
  }
  s.flow->Start(env->Now());
  Pump(s);
}

void AuthManager::Impl::Pump(ServerAuth& s) {
  FlowEnd end;
  while (s.flow) {
    std::vector<FlowAction> actions = s.flow->TakeActions();
    if (actions.empty()) break;
    for (FlowAction& action : actions) Dispatch(s, action, &end);
  }
  if (end.no_oauth) {
    NoOAuthOffered(s, *end.no_oauth);
  } else if (end.discovered) {
    // OAuth is offered, and only a login can ask for consent.
    EndFlow(s, "");
    s.last_error = LoginRequiredReason(s.name);
    Enter(s, WithoutBrowser(s));
    spdlog::warn(
        "server \"{}\": no browser to ask for consent (set MCPGW_BROWSER or run "
        "\"mcpgw login {}\")",
        s.name, s.name);
    FailSession(s, s.last_error);
  } else if (end.finished) {
    const uint64_t login = s.flow_login;
    EndFlow(s, "");
    spdlog::info("server \"{}\": authorized{}", s.name,
                 end.finished->tokens.expires_at
                     ? " (token valid " +
                           std::to_string(*end.finished->tokens.expires_at - UnixNow()) + " s)"
                     : "");
    AdoptGrant(s, std::move(*end.finished), AuthState::kAuthorized, /*wake=*/login != 0);
    FinishLogin(s, login, base::Status());
  } else if (end.failed) {
    FailFlow(s, AfterFailure(s), *end.failed);
  } else if (s.flow) {
    // The redirect came and the code is being exchanged (or still not).
    Enter(s, s.flow->awaiting_consent() ? AuthState::kAwaitingConsent : AuthState::kAuthorizing);
  }
  ArmTimer(s);
}

void AuthManager::Impl::Dispatch(ServerAuth& s, FlowAction& action, FlowEnd* end) {
  if (auto* fetch = std::get_if<Fetch>(&action)) {
    const uint64_t flow_id = fetch->id;
    const uint64_t server = s.id;
    const uint64_t serial = s.flow_serial;
    s.flow_fetches[flow_id] = fetcher.Start(
        fetch->call, [this, server, serial, flow_id](const base::Result<FetchResult>& r) {
          ServerAuth* t = Find(server);
          if (!t || !t->flow || t->flow_serial != serial) return;
          t->flow_fetches.erase(flow_id);
          t->flow->OnFetched(flow_id, r, env->Now(), UnixNow());
          Pump(*t);
        });
  } else if (auto* consent = std::get_if<AwaitConsent>(&action)) {
    OnConsentUrl(s, consent->url, consent->state);
  } else if (auto* secret = std::get_if<LearnSecret>(&action)) {
    Learn(secret->value);
  } else if (auto* save = std::get_if<SaveClient>(&action)) {
    if (base::Status saved = store.SaveClient(save->client); !saved.ok()) {
      spdlog::warn("server \"{}\": cannot keep its client registration: {}", s.name,
                   saved.message());
    }
  } else if (auto* done = std::get_if<Finished>(&action)) {
    end->finished = std::move(done->grant);
  } else if (auto* fail = std::get_if<Failed>(&action)) {
    end->failed = fail->reason;
  } else if (auto* none = std::get_if<NoOAuth>(&action)) {
    end->no_oauth = none->reason;
  } else if (std::holds_alternative<Discovered>(action)) {
    end->discovered = true;
  }
}

// The server's 401 is no request for a login: it refuses the credentials its
// entry sends. The session fails as any refused attempt does (it backs off
// and tries again); a `mcpgw login` is told there is nothing to log in to.
// No attempt is counted: a server without OAuth must not end up with
// "authorization failed 3 times; run mcpgw login".
void AuthManager::Impl::NoOAuthOffered(ServerAuth& s, const std::string& why) {
  const uint64_t login = s.flow_login;
  if (s.flow_counted && s.attempts > 0) --s.attempts;
  const std::string for_login = "cannot log in to \"" + s.name + "\": " + why +
                                "; check the credentials in its entry in mcp.json";
  EndFlow(s, for_login);
  const std::string refusal = RefusalWithHeaderNames(s);
  const std::string reason = refusal +
                             "; the server offers no OAuth, so mcpgw cannot log in to it: check "
                             "the credentials in its entry in mcp.json";
  s.last_error = reason;
  Enter(s, s.grant ? AuthState::kUnconfirmed : AuthState::kNone);
  spdlog::warn("server \"{}\": {}; {}", s.name, refusal, why);
  FailSession(s, reason);
  FinishLogin(s, login, LoginError(for_login));
}

std::string RefusalWithHeaderNames(const ServerAuth& s) {
  const int status = s.ask.http_status != 0 ? s.ask.http_status : 401;
  std::string out = "HTTP " + std::to_string(status) +
                    (status == 403 ? " Forbidden" : " Unauthorized") + " (sent headers: ";
  // The names only: a value may be a key.
  std::vector<std::string> names;
  for (const config::Header& h : s.config.headers) {
    if (std::find(names.begin(), names.end(), h.name) == names.end()) names.push_back(h.name);
  }
  if (names.empty()) out += "none";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + ")";
}

void AuthManager::Impl::OnConsentUrl(ServerAuth& s, const std::string& url,
                                     const std::string& state) {
  s.consent_state = state;
  Enter(s, AuthState::kAwaitingConsent);
  if (s.flow_login) {
    // `mcpgw login` shows the URL to its user instead of opening a browser.
    std::vector<std::function<void(base::Result<LoginStarted>)>> waiters;
    waiters.swap(s.url_waiters);
    const LoginStarted started{url, s.flow_login};
    for (auto& w : waiters) w(started);
    return;
  }
  std::optional<BrowserChoice> choice = ChooseBrowser(options.get_env, options.macos);
  if (!choice) return FailFlow(s, WithoutBrowser(s), LoginRequiredReason(s.name));
  spdlog::info("server \"{}\": asking for consent in the browser ({})", s.name, choice->source);
  const uint64_t id = s.id;
  const uint64_t serial = s.flow_serial;
  browser->Launch(*choice, url, [this, id, serial](const base::Status& launched) {
    if (launched.ok()) return;
    ServerAuth* t = Find(id);
    if (!t || !t->flow || t->flow_serial != serial) return;
    spdlog::warn("server \"{}\": {}", t->name, launched.message());
    FailFlow(*t, WithoutBrowser(*t), LoginRequiredReason(t->name));
    ArmTimer(*t);
  });
}

void AuthManager::Impl::FailFlow(ServerAuth& s, AuthState to, const std::string& reason,
                                 bool fail_session) {
  if (!s.flow) return;
  const uint64_t login = s.flow_login;
  EndFlow(s, reason);
  s.last_error = reason;
  Enter(s, to);
  spdlog::warn("server \"{}\": authorization failed: {}", s.name, reason);
  if (fail_session) FailSession(s, reason);
  FinishLogin(s, login, LoginError(reason));
}

void AuthManager::Impl::EndFlow(ServerAuth& s, const std::string& reason) {
  for (auto& [flow_id, fetch] : s.flow_fetches) fetcher.Abort(fetch);
  s.flow_fetches.clear();
  s.flow.reset();
  s.consent_state.clear();
  s.flow_login = 0;
  if (!s.url_waiters.empty()) {
    std::vector<std::function<void(base::Result<LoginStarted>)>> waiters;
    waiters.swap(s.url_waiters);
    const base::Status ended =
        LoginError(reason.empty() ? "the authorization ended before it needed a browser" : reason);
    for (auto& w : waiters) w(ended);
  }
  // The listener exists only while some login waits for its redirect.
  bool any = false;
  for (auto& [id, other] : servers) any |= other->flow != nullptr;
  if (!any) callback->Close();
}

CallbackEndpoint::Page AuthManager::Impl::OnCallback(const std::string& query) {
  const Params params = DecodeParams(query);
  const std::optional<std::string> state = FindParam(params, "state");
  ServerAuth* s = nullptr;
  if (state && !state->empty()) {
    for (auto& [id, candidate] : servers) {
      if (candidate->flow && candidate->consent_state == *state) s = candidate.get();
    }
  }
  if (!s) {
    spdlog::warn("authorization response ignored: its state matches no login in progress");
    return {400,
            "mcpgw: this authorization response matches no login in progress (its state is "
            "unknown or stale); nothing was changed."};
  }
  const std::string name = s->name;
  const uint64_t id = s->id;
  s->consent_state.clear();
  s->flow->OnCallback(params, env->Now());
  Pump(*s);
  ServerAuth* after = Find(id);
  if (after && (after->state == AuthState::kFailed || after->state == AuthState::kUnconfirmed)) {
    return {400, "mcpgw: the authorization for \"" + name + "\" failed: " + after->last_error};
  }
  return {200, "mcpgw received the authorization for \"" + name +
                   "\" and is finishing the login. You can close this tab."};
}

}  // namespace mcpgw::auth
