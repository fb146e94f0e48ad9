// AuthManager: `mcpgw login` (a flow whose URL goes to the user instead of a
// browser, starting the attempt count over), waiting for its end, and `mcpgw
// logout` (tokens forgotten and revoked, no authorization by itself until
// the next login). docs/BEHAVIOR.md §9.
#include <spdlog/spdlog.h>

#include "daemon/auth/manager_impl.h"

namespace mcpgw::auth {

namespace {

base::Status UnknownNamespace(const std::string& name) {
  return base::Status(base::ErrorKind::kInvalidRequest, "unknown namespace \"" + name + "\"");
}

}  // namespace

void AuthManager::Impl::Login(const std::string& name,
                              std::function<void(base::Result<LoginStarted>)> done) {
  ServerAuth* s = FindByName(name);
  if (!s) return done(UnknownNamespace(name));
  if (!s->config.oauth_allowed) {
    return done(LoginError("mcp.json sets an Authorization header for \"" + name +
                           "\"; mcpgw does not log in to it (remove the header to use OAuth)"));
  }
  if (shutting_down) return done(LoginError("mcpgwd is stopping"));
  // The newer login wins; a session still waiting keeps waiting: the new
  // flow answers it.
  if (IsAuthorizing(s->state)) {
    FailFlow(*s, AfterFailure(*s), "superseded by a newer login", /*fail_session=*/false);
  }
  if (IsRefreshing(s->state)) {
    fetcher.Abort(s->refresh_fetch);
    s->refresh_fetch = 0;
    s->refresh_deadline.reset();
  }
  s->attempts = 0;
  const uint64_t login = ++next_login;
  s->url_waiters.push_back(std::move(done));
  StartAuthorization(*s, login);
}

void AuthManager::Impl::FinishLogin(ServerAuth& s, uint64_t login, const base::Status& outcome) {
  if (login == 0) return;
  s.logins[login] = outcome;
  while (s.logins.size() > 8) s.logins.erase(s.logins.begin());
  std::vector<std::function<void(base::Status)>> ready;
  for (auto it = s.login_waiters.begin(); it != s.login_waiters.end();) {
    if (it->first == login) {
      ready.push_back(std::move(it->second));
      it = s.login_waiters.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& w : ready) w(outcome);
}

void AuthManager::Impl::WaitLogin(const std::string& name, uint64_t login,
                                  std::function<void(base::Status)> done) {
  ServerAuth* s = FindByName(name);
  // Answered as transport, like every wait that does not end well.
  if (!s) return done(LoginError(UnknownNamespace(name).message()));
  auto it = s->logins.find(login);
  if (it != s->logins.end()) return done(it->second);
  if (s->flow && s->flow_login == login) {
    s->login_waiters.emplace_back(login, std::move(done));
    return;
  }
  done(LoginError("no such login in progress for \"" + name + "\""));
}

void AuthManager::Impl::Logout(const std::string& name, std::function<void(base::Status)> done) {
  ServerAuth* s = FindByName(name);
  if (!s) return done(UnknownNamespace(name));
  if (IsRefreshing(s->state)) {
    fetcher.Abort(s->refresh_fetch);
    s->refresh_fetch = 0;
    s->refresh_deadline.reset();
  }
  base::Boxed<StoredGrant> held = std::move(s->grant);
  s->grant.reset();
  FailFlow(*s, AuthState::kLoggedOut, "cancelled by mcpgw logout");
  Enter(*s, AuthState::kLoggedOut);
  // A session that waited for a refresh must not wait for ever.
  FailSession(*s, LoginRequiredReason(s->name));
  if (held) Revoke(*s, *held);
  s->attempts = 0;
  s->last_error.clear();
  link->SetAuthorization(s->id, Secret());
  ScheduleRefresh(*s);
  const base::Status deleted = store.DeleteGrant(s->url);
  spdlog::info("server \"{}\": logged out", s->name);
  done(deleted.ok() ? deleted : LoginError(deleted.message()));
}

void AuthManager::Impl::Revoke(ServerAuth& s, const StoredGrant& grant) {
  if (grant.revocation_endpoint.empty()) return;
  std::optional<base::Url> server_url = base::ParseUrl(s.url);
  if (!server_url || !EndpointAllowed(grant.revocation_endpoint, *server_url).ok()) return;
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
  fetcher.Start(call, [name](const base::Result<FetchResult>& r) {
    if (r.ok() && r->status >= 200 && r->status < 300) {
      spdlog::info("server \"{}\": token revoked", name);
    } else {
      spdlog::warn("server \"{}\": token revocation failed ({})", name,
                   r.ok() ? "HTTP " + std::to_string(r->status) : r.message());
    }
  });
}

}  // namespace mcpgw::auth
