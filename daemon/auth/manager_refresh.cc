// AuthManager: refreshing tokens (BEHAVIOR.md §9) — ahead of expiry, and once after a
// 401 — one request per server at a time; a rotated refresh token is stored at
// once, and invalid_grant forgets the tokens and starts a new authorization.
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

}  // namespace

void AuthManager::Impl::ScheduleRefresh(ServerAuth& s) {
  s.refresh_at.reset();
  if (s.grant && !s.grant->tokens.refresh_token.empty() && s.grant->tokens.expires_at) {
    const Tokens& t = s.grant->tokens;
    const int64_t lifetime = *t.expires_at - t.obtained_at;
    const int64_t due_unix = *t.expires_at - RefreshMargin(lifetime);
    const int64_t in_s = std::max<int64_t>(0, due_unix - UnixNow());
    s.refresh_at = Clock::now() + std::chrono::seconds(in_s);
  }
  ArmTimer(s);
}

void AuthManager::Impl::StartRefresh(ServerAuth& s, bool after_401) {
  if (s.refresh_fetch || !s.grant) return;
  s.refresh_at.reset();
  s.refresh_after_401 = after_401;
  s.refresh_deadline = Clock::now() + options.limits.fetch_timeout;
  const StoredGrant& g = *s.grant;
  spdlog::info("server \"{}\": refreshing its token{}", s.name,
               after_401 ? " (after HTTP 401)" : "");
  const uint64_t id = s.id;
  s.refresh_fetch =
      fetcher.Start(BuildRefresh(g.token_endpoint, g.client, g.tokens.refresh_token, g.resource),
                    [this, id](const FetchResult& r) { OnRefreshed(id, r); });
  ArmTimer(s);
}

void AuthManager::Impl::OnRefreshed(uint64_t id, const FetchResult& r) {
  ServerAuth* s = Find(id);
  if (!s || !s->refresh_fetch || !s->grant) return;
  s->refresh_fetch = 0;
  s->refresh_deadline.reset();
  if (!r.ok) return RefreshFailed(*s, "token refresh failed (" + r.error + ")");
  Tokens tokens;
  std::string error;
  const TokenOutcome outcome =
      ParseTokenResponse(r.status, r.content_type, r.body, UnixNow(), s->grant->tokens.scope,
                         &s->grant->tokens, &tokens, &error);
  if (outcome == TokenOutcome::kOk) {
    StoredGrant grant = *s->grant;
    grant.tokens = std::move(tokens);
    s->token_from_401_refresh = s->refresh_after_401;
    spdlog::info("server \"{}\": token refreshed", s->name);
    return AdoptGrant(*s, std::move(grant));
  }
  if (outcome == TokenOutcome::kInvalidGrant) {
    // The refresh token is dead: forget the tokens and authorize anew.
    spdlog::warn("server \"{}\": {}; its tokens are forgotten", s->name, error);
    s->grant.reset();
    s->token_from_401_refresh = false;
    if (std::string err = store.DeleteGrant(s->url); !err.empty()) {
      spdlog::error("server \"{}\": {}", s->name, err);
    }
    link->SetAuthorization(s->id, Secret());
    ScheduleRefresh(*s);
    s->step_up = false;
    return StartAuthorization(*s, /*login=*/0);
  }
  RefreshFailed(*s, "token refresh failed: " + error);
}

void AuthManager::Impl::RefreshFailed(ServerAuth& s, const std::string& reason) {
  spdlog::warn("server \"{}\": {}", s.name, reason);
  s.last_error = reason;
  if (s.session_waiting) {
    FailSession(s, reason);  // its session retries, and asks again
  } else {
    s.refresh_at = Clock::now() + kRefreshRetry;
  }
  ArmTimer(s);
}

void AuthManager::Impl::CheckRefreshTimers(ServerAuth& s, mcp::TimePoint now) {
  if (s.refresh_fetch && s.refresh_deadline && now >= *s.refresh_deadline) {
    fetcher.Abort(s.refresh_fetch);
    s.refresh_fetch = 0;
    s.refresh_deadline.reset();
    RefreshFailed(s, "token refresh timed out");
    return;
  }
  if (s.refresh_at && now >= *s.refresh_at && !s.refresh_fetch && !s.flow) {
    s.refresh_at.reset();
    if (s.grant && !s.grant->tokens.refresh_token.empty()) StartRefresh(s, /*after_401=*/false);
  }
}

}  // namespace mcpgw::auth
