// AuthManager: refreshing tokens (docs/BEHAVIOR.md §9) — ahead of expiry, and
// once after a 401 — one request per server at a time; a rotated refresh
// token is stored at once, and invalid_grant forgets the tokens and starts a
// new authorization. Also the per-server timer that drives refresh times,
// refresh deadlines and the flow's deadlines.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "daemon/auth/manager_impl.h"

namespace mcpgw::auth {
namespace {

// How long before expiry a token is refreshed: a quarter of its lifetime,
// between 1 s and 60 s.
int64_t RefreshMargin(int64_t lifetime_s) { return std::clamp<int64_t>(lifetime_s / 4, 1, 60); }

// After a failed refresh that nobody waits for, try again this much later.
constexpr auto kRefreshRetry = std::chrono::seconds(30);

bool Resting(AuthState state) {
  return state == AuthState::kAuthorized || state == AuthState::kUnconfirmed;
}

}  // namespace

void AuthManager::Impl::ScheduleRefresh(ServerAuth& s) {
  s.refresh_at.reset();
  if (s.grant && !s.grant->tokens.refresh_token.empty() && s.grant->tokens.expires_at) {
    const Tokens& t = s.grant->tokens;
    const int64_t lifetime = *t.expires_at - t.obtained_at;
    const int64_t due_unix = *t.expires_at - RefreshMargin(lifetime);
    const int64_t in_s = std::max<int64_t>(0, due_unix - UnixNow());
    s.refresh_at = env->Now() + std::chrono::seconds(in_s);
  }
  ArmTimer(s);
}

void AuthManager::Impl::StartRefresh(ServerAuth& s, bool after_401) {
  if (IsRefreshing(s.state) || !s.grant) return;
  Enter(s, after_401 ? AuthState::kRefreshingAfter401 : AuthState::kRefreshing);
  s.refresh_at.reset();
  s.refresh_deadline = env->Now() + options.limits.fetch_timeout;
  const StoredGrant& g = *s.grant;
  spdlog::info("server \"{}\": refreshing its token{}", s.name,
               after_401 ? " (after HTTP 401)" : "");
  const uint64_t id = s.id;
  s.refresh_fetch =
      fetcher.Start(BuildRefresh(g.token_endpoint, g.client, g.tokens.refresh_token, g.resource),
                    [this, id](const base::Result<FetchResult>& r) { OnRefreshed(id, r); });
  ArmTimer(s);
}

void AuthManager::Impl::OnRefreshed(uint64_t id, const base::Result<FetchResult>& r) {
  ServerAuth* s = Find(id);
  if (!s || !IsRefreshing(s->state) || !s->grant) return;
  s->refresh_fetch = 0;
  s->refresh_deadline.reset();
  base::Result<Tokens> tokens =
      !r.ok() ? base::Result<Tokens>(r.status())
              : ParseTokenResponse(r->status, r->content_type, r->body, UnixNow(),
                                   s->grant->tokens.scope, &s->grant->tokens);
  if (tokens.ok()) {
    StoredGrant grant = *s->grant;
    grant.tokens = *std::move(tokens);
    spdlog::info("server \"{}\": token refreshed", s->name);
    // Tokens got in answer to a 401 are trusted once a request goes through.
    const AuthState to = s->state == AuthState::kRefreshingAfter401 ? AuthState::kUnconfirmed
                                                                    : AuthState::kAuthorized;
    AdoptGrant(*s, std::move(grant), to, /*wake=*/false);
  } else if (r.ok() && tokens.kind() == base::ErrorKind::kDenied) {  // invalid_grant
    ForgetTokens(*s, tokens.message());
    StartAuthorization(*s, /*login=*/0);
  } else {
    RefreshFailed(*s, !r.ok() ? "token refresh failed (" + r.message() + ")"
                              : "token refresh failed: " + tokens.message());
  }
  if (!DrainIfDone(*s)) ArmTimer(*s);
}

void AuthManager::Impl::ForgetTokens(ServerAuth& s, const std::string& why) {
  // The refresh token is dead: the tokens go, and a new authorization follows.
  spdlog::warn("server \"{}\": {}; its tokens are forgotten", s.name, why);
  s.grant.reset();
  if (base::Status deleted = store.DeleteGrant(s.url); !deleted.ok()) {
    spdlog::error("server \"{}\": {}", s.name, deleted.message());
  }
  if (!shutting_down) link->SetAuthorization(s.id, Secret());
  s.refresh_at.reset();
}

void AuthManager::Impl::RefreshFailed(ServerAuth& s, const std::string& reason) {
  spdlog::warn("server \"{}\": {}", s.name, reason);
  s.last_error = reason;
  // The tokens stay: the authorization server may only be unreachable.
  Enter(s, AuthState::kAuthorized);
  if (s.session_waiting) {
    FailSession(s, reason);  // its session retries, and asks again
  } else {
    s.refresh_at = env->Now() + kRefreshRetry;
  }
}

void AuthManager::Impl::CheckRefreshTimers(ServerAuth& s, TimePoint now) {
  if (IsRefreshing(s.state) && s.refresh_deadline && now >= *s.refresh_deadline) {
    fetcher.Abort(s.refresh_fetch);
    s.refresh_fetch = 0;
    s.refresh_deadline.reset();
    RefreshFailed(s, "token refresh timed out");
    return;
  }
  if (Resting(s.state) && s.refresh_at && now >= *s.refresh_at) {
    s.refresh_at.reset();
    if (!s.grant->tokens.refresh_token.empty()) StartRefresh(s, /*after_401=*/false);
  }
}

void AuthManager::Impl::ArmTimer(ServerAuth& s) {
  std::optional<TimePoint> wake;
  auto earliest = [&](std::optional<TimePoint> t) {
    if (t && (!wake || *t < *wake)) wake = t;
  };
  if (s.flow) earliest(s.flow->NextWakeup());
  // A refresh due while a flow or another refresh runs waits for it to end
  // (which re-arms): arming for it now would fire at once, again and again.
  if (Resting(s.state)) earliest(s.refresh_at);
  if (IsRefreshing(s.state)) earliest(s.refresh_deadline);
  if (!wake) {
    if (s.timer) s.timer->Stop();
    return;
  }
  if (!s.timer) s.timer = env->NewTimer();  // made at its first use: most servers never need it
  // At least 1 ms: a libuv timer re-armed for 0 from its own callback runs
  // again within the same loop iteration.
  const Duration delay = std::max<Duration>(*wake - env->Now(), std::chrono::milliseconds(1));
  const uint64_t id = s.id;
  s.timer->Start(delay, [this, id] { OnTimer(id); });
}

void AuthManager::Impl::OnTimer(uint64_t id) {
  ServerAuth* s = Find(id);
  if (!s) return;
  const TimePoint now = env->Now();
  if (s->flow) {
    s->flow->OnTimer(now);
    Pump(*s);
  }
  CheckRefreshTimers(*s, now);
  if (!DrainIfDone(*s)) ArmTimer(*s);
}

}  // namespace mcpgw::auth
