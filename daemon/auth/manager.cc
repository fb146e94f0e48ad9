// AuthManager: per-server state, flows and their I/O, login and logout.
// Token refresh lives in manager_refresh.cc.
#include "daemon/auth/manager_impl.h"

#include <spdlog/spdlog.h>

#include "base/url.h"
#include "daemon/auth/browser.h"

namespace mcpgw::auth {

int64_t UnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

AuthManager::Impl::Impl(uv_loop_t* l, HttpClient* http, SessionLink* k, AuthManagerOptions o)
    : loop(l),
      link(k),
      options(std::move(o)),
      store(options.token_dir),
      fetcher(http),
      listener(l, [this](const std::string& query) { return OnCallback(query); }),
      browser(l) {}

AuthManager::Impl::~Impl() { Shutdown(); }

ServerAuth* AuthManager::Impl::Find(uint64_t id) {
  auto it = servers.find(id);
  return it == servers.end() ? nullptr : it->second.get();
}

ServerAuth* AuthManager::Impl::FindByName(const std::string& name) {
  for (auto& [id, s] : servers) {
    if (s->name == name) return s.get();
  }
  return nullptr;
}

Secret AuthManager::Impl::Bearer(const ServerAuth& s) const {
  if (!s.grant) return Secret();
  return Secret("Bearer " + s.grant->tokens.access_token.Reveal());
}

void AuthManager::Impl::Learn(const Secret& value) {
  if (!value.empty()) link->LearnSecret(value);
}

// --- servers ---

Secret AuthManager::Impl::AddServer(uint64_t id, const std::string& name,
                                    const config::RemoteServer& server) {
  RemoveServer(id);
  auto s = std::make_unique<ServerAuth>();
  s->id = id;
  s->name = name;
  s->config = server;
  s->url = server.url.Reveal();
  s->timer = new uv_timer_t;
  uv_timer_init(loop, s->timer);
  s->timer->data = this;
  Learn(server.oauth.client_secret);
  if (server.oauth_allowed) {
    std::string error;
    s->grant = store.LoadGrant(s->url, &error);
    if (!error.empty()) spdlog::warn("server \"{}\": stored tokens unusable: {}", name, error);
    if (s->grant) {
      Learn(s->grant->tokens.access_token);
      Learn(s->grant->tokens.refresh_token);
      Learn(s->grant->client.client_secret);
      spdlog::info("server \"{}\": using stored OAuth tokens", name);
    }
  }
  ServerAuth& ref = *s;
  servers[id] = std::move(s);
  ScheduleRefresh(ref);
  return Bearer(ref);
}

void AuthManager::Impl::RemoveServer(uint64_t id) {
  ServerAuth* s = Find(id);
  if (!s) return;
  EndFlow(*s, "the server left the configuration");
  if (s->refresh_fetch) fetcher.Abort(s->refresh_fetch);
  uv_timer_stop(s->timer);
  uv_close(reinterpret_cast<uv_handle_t*>(s->timer),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  servers.erase(id);
}

void AuthManager::Impl::Shutdown() {
  std::vector<uint64_t> ids;
  for (auto& [id, s] : servers) ids.push_back(id);
  for (uint64_t id : ids) RemoveServer(id);
  listener.Close();
}

// --- the session's requests ---

void AuthManager::Impl::AuthorizationNeeded(uint64_t id, int http_status,
                                            const std::string& www_authenticate) {
  ServerAuth* s = Find(id);
  if (!s) return;
  const std::string status = "HTTP " + std::to_string(http_status) + " from server";
  if (!s->config.oauth_allowed) {
    link->AuthorizationFailed(
        id, status + " (mcp.json sets its Authorization header, so mcpgw does not log in to it)");
    return;
  }
  s->used = true;
  s->session_waiting = true;
  s->challenge = ParseBearerChallenge(www_authenticate);
  const bool step_up = http_status == 403 && s->challenge.error == "insufficient_scope";
  s->step_up = step_up;
  spdlog::info("server \"{}\": authorization needed ({}{})", s->name, status,
               step_up ? ", insufficient scope" : "");
  if (s->flow || s->refresh_fetch) return;  // answered when that ends
  if (!step_up && s->grant && !s->grant->tokens.refresh_token.empty() &&
      !s->token_from_401_refresh) {
    return StartRefresh(*s, /*after_401=*/true);
  }
  StartAuthorization(*s, /*login=*/0);
}

void AuthManager::Impl::Succeeded(uint64_t id) {
  ServerAuth* s = Find(id);
  if (!s) return;
  s->attempts = 0;
  // The token in use works: a later 401 deserves a refresh again.
  s->token_from_401_refresh = false;
}

void AuthManager::Impl::FailSession(ServerAuth& s, const std::string& reason) {
  if (!s.session_waiting) return;
  s.session_waiting = false;
  link->AuthorizationFailed(s.id, reason);
}

void AuthManager::Impl::AdoptGrant(ServerAuth& s, StoredGrant grant, bool wake_session) {
  Learn(grant.tokens.access_token);
  Learn(grant.tokens.refresh_token);
  Learn(grant.client.client_secret);
  s.grant = std::move(grant);
  if (std::string err = store.SaveGrant(s.url, *s.grant); !err.empty()) {
    spdlog::error("server \"{}\": cannot keep its tokens: {}", s.name, err);
  }
  s.last_error.clear();
  s.needs_login = false;
  link->SetAuthorization(s.id, Bearer(s));
  // A session that waits re-sends what was refused; after `mcpgw login` one
  // that gave up (backing off) tries again now.
  if (s.session_waiting || wake_session) {
    s.session_waiting = false;
    link->Authorized(s.id);
  }
  ScheduleRefresh(s);
}

// --- flows ---

void AuthManager::Impl::StartAuthorization(ServerAuth& s, uint64_t login) {
  if (login == 0) {
    if (s.needs_login) {
      s.last_error = LoginRequiredReason(s.name);
      return FailSession(s, s.last_error);
    }
    if (s.attempts >= options.max_attempts) {
      std::string reason = "authorization failed " + std::to_string(s.attempts) + " times";
      if (!s.last_error.empty()) reason += " (last: " + s.last_error + ")";
      reason += "; run \"mcpgw login " + s.name + "\" to try again";
      return FailSession(s, reason);
    }
    if (!ChooseBrowser(options.get_env, options.macos)) {
      s.last_error = LoginRequiredReason(s.name);
      spdlog::warn(
          "server \"{}\": no browser to ask for consent (set MCPGW_BROWSER or run "
          "\"mcpgw login {}\")",
          s.name, s.name);
      return FailSession(s, s.last_error);
    }
  }
  ++s.attempts;
  FlowStart start;
  start.server = s.config;
  start.challenge = s.challenge;
  if (s.step_up && s.grant) start.held_scope = s.grant->tokens.scope;
  s.flow_login = login;
  s.flow = std::make_unique<AuthFlow>(
      std::move(start),
      [this](const std::string& issuer) -> std::optional<ClientIdentity> {
        std::string error;
        std::optional<ClientIdentity> c = store.LoadClient(issuer, &error);
        if (!error.empty()) spdlog::warn("OAuth registration unusable: {}", error);
        return c;
      },
      [this](int port, std::string* error) -> std::string {
        const int bound = listener.Open(port, error);
        return bound ? RedirectUriFor(bound) : std::string();
      },
      options.limits);
  spdlog::info("server \"{}\": authorizing (attempt {}{})", s.name, s.attempts,
               login ? ", from mcpgw login" : "");
  s.flow->Start(Clock::now());
  Pump(s);
}

void AuthManager::Impl::Pump(ServerAuth& s) {
  std::optional<StoredGrant> finished;
  std::optional<std::string> failed;
  while (s.flow) {
    std::vector<FlowAction> actions = s.flow->TakeActions();
    if (actions.empty()) break;
    for (FlowAction& action : actions) {
      if (auto* fetch = std::get_if<Fetch>(&action)) {
        const uint64_t flow_id = fetch->id;
        const uint64_t server = s.id;
        AuthFlow* flow = s.flow.get();
        s.flow_fetches[flow_id] =
            fetcher.Start(fetch->call, [this, server, flow, flow_id](const FetchResult& r) {
              ServerAuth* t = Find(server);
              if (!t || t->flow.get() != flow) return;
              t->flow_fetches.erase(flow_id);
              t->flow->OnFetched(flow_id, r, Clock::now(), UnixNow());
              Pump(*t);
            });
      } else if (auto* consent = std::get_if<AwaitConsent>(&action)) {
        OnConsentUrl(s, consent->url, consent->state);
      } else if (auto* secret = std::get_if<LearnSecret>(&action)) {
        Learn(secret->value);
      } else if (auto* save = std::get_if<SaveClient>(&action)) {
        if (std::string err = store.SaveClient(save->client); !err.empty()) {
          spdlog::warn("server \"{}\": cannot keep its client registration: {}", s.name, err);
        }
      } else if (auto* done = std::get_if<Finished>(&action)) {
        finished = std::move(done->grant);
      } else if (auto* fail = std::get_if<Failed>(&action)) {
        failed = fail->reason;
      }
    }
  }
  if (finished) {
    const uint64_t login = s.flow_login;
    EndFlow(s, "");
    spdlog::info(
        "server \"{}\": authorized{}", s.name,
        finished->tokens.expires_at
            ? " (token valid " + std::to_string(*finished->tokens.expires_at - UnixNow()) + " s)"
            : "");
    s.token_from_401_refresh = false;
    AdoptGrant(s, std::move(*finished), /*wake_session=*/login != 0);
    FinishLogin(s, login, true, "");
  } else if (failed) {
    const uint64_t login = s.flow_login;
    EndFlow(s, *failed);
    spdlog::warn("server \"{}\": authorization failed: {}", s.name, *failed);
    s.last_error = *failed;
    FailSession(s, *failed);
    FinishLogin(s, login, false, *failed);
  }
  ArmTimer(s);
}

void AuthManager::Impl::OnConsentUrl(ServerAuth& s, const std::string& url,
                                     const std::string& state) {
  s.consent_state = state;
  if (s.flow_login) {
    std::vector<std::function<void(LoginStarted)>> waiters;
    waiters.swap(s.url_waiters);
    LoginStarted started;
    started.ok = true;
    started.url = url;
    started.login = s.flow_login;
    for (auto& w : waiters) w(started);
    return;
  }
  std::optional<BrowserChoice> choice = ChooseBrowser(options.get_env, options.macos);
  if (!choice) return AbortFlow(s, LoginRequiredReason(s.name));
  spdlog::info("server \"{}\": asking for consent in the browser ({})", s.name, choice->source);
  AuthFlow* flow = s.flow.get();
  const uint64_t id = s.id;
  browser.Launch(*choice, url, [this, id, flow](bool ok, const std::string& error) {
    if (ok) return;
    ServerAuth* t = Find(id);
    if (!t || t->flow.get() != flow) return;
    spdlog::warn("server \"{}\": {}", t->name, error);
    AbortFlow(*t, LoginRequiredReason(t->name));
  });
}

void AuthManager::Impl::AbortFlow(ServerAuth& s, const std::string& reason, bool fail_session) {
  if (!s.flow) return;
  const uint64_t login = s.flow_login;
  EndFlow(s, reason);
  s.last_error = reason;
  spdlog::warn("server \"{}\": authorization stopped: {}", s.name, reason);
  if (fail_session) FailSession(s, reason);
  FinishLogin(s, login, false, reason);
  ArmTimer(s);
}

void AuthManager::Impl::EndFlow(ServerAuth& s, const std::string& reason) {
  for (auto& [flow_id, fetch] : s.flow_fetches) fetcher.Abort(fetch);
  s.flow_fetches.clear();
  s.flow.reset();
  s.consent_state.clear();
  s.flow_login = 0;
  if (!s.url_waiters.empty()) {
    std::vector<std::function<void(LoginStarted)>> waiters;
    waiters.swap(s.url_waiters);
    LoginStarted started;
    started.error = reason.empty() ? "the authorization ended before it needed a browser" : reason;
    for (auto& w : waiters) w(started);
  }
  bool any = false;
  for (auto& [id, other] : servers) any |= other->flow != nullptr;
  if (!any) listener.Close();
}

CallbackListener::Page AuthManager::Impl::OnCallback(const std::string& query) {
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
  s->flow->OnCallback(params, Clock::now());
  Pump(*s);
  ServerAuth* after = Find(id);
  if (after && !after->flow && !after->last_error.empty() && !after->grant) {
    return {400, "mcpgw: the authorization for \"" + name + "\" failed: " + after->last_error};
  }
  return {200, "mcpgw received the authorization for \"" + name +
                   "\" and is finishing the login. You can close this tab."};
}

// --- timers ---

void AuthManager::Impl::ArmTimer(ServerAuth& s) {
  std::optional<TimePoint> wake;
  auto earliest = [&](std::optional<TimePoint> t) {
    if (t && (!wake || *t < *wake)) wake = t;
  };
  if (s.flow) earliest(s.flow->NextWakeup());
  // A refresh due while a flow or another refresh runs waits for it to end
  // (which re-arms): arming for it now would fire at once, again and again.
  if (!s.flow && !s.refresh_fetch) earliest(s.refresh_at);
  earliest(s.refresh_deadline);
  if (!wake) {
    uv_timer_stop(s.timer);
    return;
  }
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*wake - Clock::now()).count();
  s.timer->data = this;
  uv_timer_start(
      s.timer,
      [](uv_timer_t* t) {
        auto* self = static_cast<Impl*>(t->data);
        for (auto& [id, server] : self->servers) {
          if (server->timer == t) return self->OnTimer(*server);
        }
      },
      // At least 1 ms: a timer re-armed for 0 from its own callback would run
      // again within the same loop iteration.
      ms > 1 ? static_cast<uint64_t>(ms) : 1, 0);
}

void AuthManager::Impl::OnTimer(ServerAuth& s) {
  const TimePoint now = Clock::now();
  if (s.flow) {
    s.flow->OnTimer(now);
    Pump(s);
  }
  CheckRefreshTimers(s, now);
  ArmTimer(s);
}

// --- login and logout ---

void AuthManager::Impl::Login(const std::string& name, std::function<void(LoginStarted)> done) {
  ServerAuth* s = FindByName(name);
  LoginStarted refused;
  if (!s) {
    refused.unknown_server = true;
    refused.error = "unknown namespace \"" + name + "\"";
    return done(refused);
  }
  if (!s->config.oauth_allowed) {
    refused.error = "mcp.json sets an Authorization header for \"" + name +
                    "\"; mcpgw does not log in to it (remove the header to use OAuth)";
    return done(refused);
  }
  if (s->flow) AbortFlow(*s, "superseded by a newer login", /*fail_session=*/false);
  if (s->refresh_fetch) {
    fetcher.Abort(s->refresh_fetch);
    s->refresh_fetch = 0;
    s->refresh_deadline.reset();
  }
  s->used = true;
  s->attempts = 0;
  s->needs_login = false;
  const uint64_t login = ++next_login;
  s->url_waiters.push_back(std::move(done));
  // A session still waiting keeps waiting: this flow answers it.
  StartAuthorization(*s, login);
}

void AuthManager::Impl::FinishLogin(ServerAuth& s, uint64_t login, bool ok,
                                    const std::string& error) {
  if (login == 0) return;
  s.logins[login] = {ok, error};
  while (s.logins.size() > 8) s.logins.erase(s.logins.begin());
  std::vector<std::function<void(bool, std::string)>> ready;
  for (auto it = s.login_waiters.begin(); it != s.login_waiters.end();) {
    if (it->first == login) {
      ready.push_back(std::move(it->second));
      it = s.login_waiters.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& w : ready) w(ok, error);
}

void AuthManager::Impl::WaitLogin(const std::string& name, uint64_t login,
                                  std::function<void(bool, std::string)> done) {
  ServerAuth* s = FindByName(name);
  if (!s) return done(false, "unknown namespace \"" + name + "\"");
  auto it = s->logins.find(login);
  if (it != s->logins.end()) return done(it->second.first, it->second.second);
  if (s->flow && s->flow_login == login) {
    s->login_waiters.emplace_back(login, std::move(done));
    return;
  }
  done(false, "no such login in progress for \"" + name + "\"");
}

void AuthManager::Impl::Logout(const std::string& name,
                               std::function<void(std::string, bool)> done) {
  ServerAuth* s = FindByName(name);
  if (!s) return done("unknown namespace \"" + name + "\"", false);
  AbortFlow(*s, "cancelled by mcpgw logout");
  if (s->refresh_fetch) {
    fetcher.Abort(s->refresh_fetch);
    s->refresh_fetch = 0;
    s->refresh_deadline.reset();
  }
  if (s->grant) Revoke(*s, *s->grant);
  s->grant.reset();
  s->needs_login = true;
  s->attempts = 0;
  s->last_error.clear();
  s->token_from_401_refresh = false;
  link->SetAuthorization(s->id, Secret());
  ScheduleRefresh(*s);
  std::string err = store.DeleteGrant(s->url);
  spdlog::info("server \"{}\": logged out", s->name);
  done(err, true);
}

void AuthManager::Impl::Revoke(ServerAuth& s, const StoredGrant& grant) {
  if (grant.revocation_endpoint.empty()) return;
  std::string why;
  std::optional<base::Url> server_url = base::ParseUrl(s.url);
  if (!server_url || !EndpointAllowed(grant.revocation_endpoint, *server_url, &why)) return;
  const bool refresh = !grant.tokens.refresh_token.empty();
  HttpCall call;
  call.method = "POST";
  call.url = grant.revocation_endpoint;
  call.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  std::string form =
      EncodeParams({{"token", refresh ? grant.tokens.refresh_token.Reveal()
                                      : grant.tokens.access_token.Reveal()},
                    {"token_type_hint", refresh ? "refresh_token" : "access_token"}});
  AuthenticateClient(grant.client, &call, &form);
  call.body = std::move(form);
  const std::string name = s.name;
  fetcher.Start(call, [name](const FetchResult& r) {
    if (r.ok && r.status >= 200 && r.status < 300) {
      spdlog::info("server \"{}\": token revoked", name);
    } else {
      spdlog::warn("server \"{}\": token revocation failed ({})", name,
                   r.ok ? "HTTP " + std::to_string(r.status) : r.error);
    }
  });
}

OAuthStatus AuthManager::Impl::Status(uint64_t id) const {
  OAuthStatus out;
  auto it = servers.find(id);
  if (it == servers.end()) return out;
  const ServerAuth& s = *it->second;
  out.used = s.config.oauth_allowed && (s.used || s.grant.has_value() || s.needs_login);
  if (!out.used) return out;
  out.attempts = s.attempts;
  out.error = s.last_error;
  if (s.flow) {
    out.state = s.flow->awaiting_consent() ? "waiting for consent" : "authorizing";
  } else if (s.refresh_fetch) {
    out.state = "refreshing";
  } else if (s.grant) {
    out.state = "authorized";
  } else if (s.needs_login || s.last_error == LoginRequiredReason(s.name)) {
    out.state = "login required";
  } else {
    out.state = s.last_error.empty() ? "not authorized" : "failed";
  }
  if (s.grant) {
    out.issuer = s.grant->issuer;
    out.client = std::string(ClientSourceName(s.grant->client.source));
    out.subject = s.grant->tokens.subject;
    out.scope = s.grant->tokens.scope;
    out.expires_unix = s.grant->tokens.expires_at;
    out.refreshable = !s.grant->tokens.refresh_token.empty();
  }
  return out;
}

// --- the facade ---

AuthManager::AuthManager(uv_loop_t* loop, HttpClient* http, SessionLink* link,
                         AuthManagerOptions options)
    : impl_(std::make_unique<Impl>(loop, http, link, std::move(options))) {}
AuthManager::~AuthManager() = default;

Secret AuthManager::AddServer(uint64_t id, const std::string& name,
                              const config::RemoteServer& server) {
  return impl_->AddServer(id, name, server);
}
void AuthManager::RemoveServer(uint64_t id) { impl_->RemoveServer(id); }
void AuthManager::AuthorizationNeeded(uint64_t id, int http_status,
                                      const std::string& www_authenticate) {
  impl_->AuthorizationNeeded(id, http_status, www_authenticate);
}
void AuthManager::Succeeded(uint64_t id) { impl_->Succeeded(id); }
void AuthManager::Login(const std::string& name, std::function<void(LoginStarted)> done) {
  impl_->Login(name, std::move(done));
}
void AuthManager::WaitLogin(const std::string& name, uint64_t login,
                            std::function<void(bool, std::string)> done) {
  impl_->WaitLogin(name, login, std::move(done));
}
void AuthManager::Logout(const std::string& name, std::function<void(std::string, bool)> done) {
  impl_->Logout(name, std::move(done));
}
OAuthStatus AuthManager::Status(uint64_t id) const { return impl_->Status(id); }
void AuthManager::Shutdown() { impl_->Shutdown(); }

}  // namespace mcpgw::auth
