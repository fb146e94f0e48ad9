// AuthManager: servers, the session's requests, the one function that moves a
// server's state, status, and shutdown (docs/BEHAVIOR.md §9). Flows live in
// manager_flow.cc, refreshing in manager_refresh.cc, login and logout in
// manager_login.cc.
#include <algorithm>
#include <cassert>
#include <cmath>

#include <spdlog/spdlog.h>

#include "daemon/auth/manager_impl.h"

namespace mcpgw::auth {

AuthIo LoopAuthIo(Env* env, uv_loop_t* loop) {
  AuthIo io;
  io.env = env;
  io.callback = std::make_unique<CallbackListener>(loop);
  io.browser = std::make_unique<ProgramLauncher>(loop);
  return io;
}

AuthManager::Impl::Impl(AuthIo io, SessionLink* k, AuthManagerOptions o)
    : env(io.env),
      link(k),
      options(std::move(o)),
      store(env, options.token_dir),
      fetcher(&env->http()),
      callback(std::move(io.callback)),
      browser(std::move(io.browser)) {}

AuthManager::Impl::~Impl() {
  *alive = false;
  // Who waits for a login hears why it ends; sessions are not told anything.
  for (auto& [id, s] : servers) {
    const uint64_t login = s->flow_login;
    EndFlow(*s, "the daemon is stopping");
    FinishLogin(*s, login, LoginError("the daemon is stopping"));
    if (s->refresh_fetch) fetcher.Abort(s->refresh_fetch);
  }
  servers.clear();
  callback->Close();
}

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

int64_t AuthManager::Impl::UnixNow() const {
  return static_cast<int64_t>(std::floor(env->UnixNow()));
}

void AuthManager::Impl::Enter(ServerAuth& s, AuthState to) {
  const TokensHeld held = TokensIn(to);
  const bool tokens_ok =
      held == TokensHeld::kMaybe || (held == TokensHeld::kAlways) == s.grant.has_value();
  const bool ok = MoveAllowed(s.state, to) && tokens_ok;
  assert(ok);
  if (!ok) {
    spdlog::warn("server \"{}\": internal: no move from {} to {}{}", s.name, StateName(s.state),
                 StateName(to), tokens_ok ? "" : " with these tokens");
  }
  if (s.state != to) {
    spdlog::debug("server \"{}\": OAuth {} -> {}", s.name, StateName(s.state), StateName(to));
  }
  s.state = to;
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
  Learn(server.oauth.client_secret);
  if (server.oauth_allowed) {
    base::Result<std::optional<StoredGrant>> stored = store.LoadGrant(s->url);
    if (!stored.ok()) {
      spdlog::warn("server \"{}\": stored tokens unusable: {}", name, stored.message());
    }
    s->grant = std::move(stored).value_or(std::nullopt);
    if (s->grant) {
      Learn(s->grant->tokens.access_token);
      Learn(s->grant->tokens.refresh_token);
      Learn(s->grant->client.client_secret);
      spdlog::info("server \"{}\": using stored OAuth tokens", name);
      Enter(*s, AuthState::kAuthorized);
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
  // At shutdown a refresh in flight is finished first (Shutdown).
  if (shutting_down && IsRefreshing(s->state)) return;
  const std::string reason = "the server left the configuration";
  const uint64_t login = s->flow_login;
  EndFlow(*s, reason);
  FinishLogin(*s, login, LoginError(reason));
  if (s->refresh_fetch) fetcher.Abort(s->refresh_fetch);
  servers.erase(id);
}

// --- the session's requests ---

void AuthManager::Impl::AuthorizationNeeded(uint64_t id, int http_status,
                                            const std::string& www_authenticate) {
  ServerAuth* s = Find(id);
  if (!s || shutting_down) return;
  const std::string status = "HTTP " + std::to_string(http_status) + " from server";
  if (!s->config.oauth_allowed) {
    link->AuthorizationFailed(
        id, status + " (mcp.json sets its Authorization header, so mcpgw does not log in to it)");
    return;
  }
  s->ask = Ask{http_status, ParseBearerChallenge(www_authenticate)};
  s->session_waiting = true;
  const bool step_up = s->ask.StepUp();
  spdlog::info("server \"{}\": authorization needed ({}{})", s->name, status,
               step_up ? ", insufficient scope" : "");
  // One refresh or flow per server at a time: it answers this request too.
  if (IsRefreshing(s->state) || IsAuthorizing(s->state)) return;
  if (s->state == AuthState::kAuthorized && !step_up && s->grant &&
      !s->grant->tokens.refresh_token.empty()) {
    return StartRefresh(*s, /*after_401=*/true);
  }
  StartAuthorization(*s, /*login=*/0);
}

void AuthManager::Impl::Succeeded(uint64_t id) {
  ServerAuth* s = Find(id);
  if (!s) return;
  s->attempts = 0;
  // The tokens in use work: a later 401 deserves a refresh again.
  if (s->state == AuthState::kUnconfirmed) Enter(*s, AuthState::kAuthorized);
}

void AuthManager::Impl::FailSession(ServerAuth& s, const std::string& reason) {
  if (!s.session_waiting) return;
  s.session_waiting = false;
  if (!shutting_down) link->AuthorizationFailed(s.id, reason);
}

void AuthManager::Impl::AdoptGrant(ServerAuth& s, StoredGrant grant, AuthState to, bool wake) {
  Learn(grant.tokens.access_token);
  Learn(grant.tokens.refresh_token);
  Learn(grant.client.client_secret);
  s.grant = std::move(grant);
  Enter(s, to);
  // Stored before anything else: a rotated refresh token is the only one
  // that works from now on.
  if (base::Status saved = store.SaveGrant(s.url, *s.grant); !saved.ok()) {
    spdlog::error("server \"{}\": cannot keep its tokens: {}", s.name, saved.message());
  }
  s.last_error.clear();
  if (!shutting_down) {
    link->SetAuthorization(s.id, Bearer(s));
    // A session that waits re-sends what was refused; after `mcpgw login` one
    // that gave up (backing off) tries again now.
    if (s.session_waiting || wake) link->Authorized(s.id);
  }
  s.session_waiting = false;
  ScheduleRefresh(s);
}

OAuthStatus AuthManager::Impl::Status(uint64_t id) const {
  OAuthStatus out;
  auto it = servers.find(id);
  if (it == servers.end()) return out;
  const ServerAuth& s = *it->second;
  out.used = s.config.oauth_allowed && s.state != AuthState::kNone;
  if (!out.used) return out;
  out.state = std::string(StatusText(s.state));
  out.attempts = s.attempts;
  out.error = s.last_error;
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

// --- shutdown ---

void AuthManager::Impl::Shutdown(Duration grace, std::function<void()> done) {
  shutting_down = true;
  shutdown_done = std::move(done);
  std::vector<uint64_t> ids;
  for (auto& [id, s] : servers) ids.push_back(id);
  for (uint64_t id : ids) {
    ServerAuth& s = *servers[id];
    const uint64_t login = s.flow_login;
    EndFlow(s, "the daemon is stopping");
    FinishLogin(s, login, LoginError("the daemon is stopping"));
    if (!IsRefreshing(s.state)) {
      servers.erase(id);
      continue;
    }
    // Not cut at the grace: the request is out, and the authorization server
    // may have rotated the refresh token the store holds already, so only
    // its answer holds one that works. The refresh's own deadline bounds it.
    const auto left =
        s.refresh_deadline
            ? std::chrono::duration_cast<std::chrono::seconds>(*s.refresh_deadline - env->Now())
            : std::chrono::seconds(0);
    spdlog::info(
        "server \"{}\": finishing its token refresh before stopping (past the {} ms grace if "
        "need be, at most {} s)",
        s.name, std::chrono::duration_cast<std::chrono::milliseconds>(grace).count(),
        std::max<int64_t>(left.count(), 1));
    ArmTimer(s);
  }
  callback->Close();
  MaybeFinishShutdown();
}

bool AuthManager::Impl::DrainIfDone(ServerAuth& s) {
  if (!shutting_down || IsRefreshing(s.state)) return false;
  servers.erase(s.id);
  MaybeFinishShutdown();
  return true;
}

void AuthManager::Impl::MaybeFinishShutdown() {
  if (!shutdown_done) return;
  for (auto& [id, s] : servers) {
    if (IsRefreshing(s->state)) return;
  }
  env->Post([alive = alive, done = std::move(shutdown_done)] {
    if (*alive) done();
  });
  shutdown_done = nullptr;
}

// --- the facade ---

AuthManager::AuthManager(AuthIo io, SessionLink* link, AuthManagerOptions options)
    : impl_(std::make_unique<Impl>(std::move(io), link, std::move(options))) {}
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
void AuthManager::Login(const std::string& name,
                        std::function<void(base::Result<LoginStarted>)> done) {
  impl_->Login(name, std::move(done));
}
void AuthManager::WaitLogin(const std::string& name, uint64_t login,
                            std::function<void(base::Status)> done) {
  impl_->WaitLogin(name, login, std::move(done));
}
void AuthManager::Logout(const std::string& name, std::function<void(base::Status)> done) {
  impl_->Logout(name, std::move(done));
}
OAuthStatus AuthManager::Status(uint64_t id) const { return impl_->Status(id); }
void AuthManager::Shutdown(Duration grace, std::function<void()> done) {
  impl_->Shutdown(grace, std::move(done));
}

}  // namespace mcpgw::auth
