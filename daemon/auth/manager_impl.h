// AuthManager::Impl: the state behind the AuthManager facade, shared by
// manager.cc (servers, the session's requests, the one move function, status,
// shutdown), manager_flow.cc (authorization flows and the callback),
// manager_refresh.cc (refreshing tokens, timers) and manager_login.cc
// (`mcpgw login` and `logout`). Internal to daemon/auth.
#pragma once

#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/boxed.h"
#include "daemon/auth/auth_state.h"
#include "daemon/auth/http_fetch.h"
#include "daemon/auth/manager.h"
#include "daemon/auth/store.h"

namespace mcpgw::auth {

// A session's request for authorization: a 401, or a 403 with
// error="insufficient_scope" (a step-up: it wants more scopes, not a new
// token).
struct Ask {
  int http_status = 0;
  BearerChallenge challenge;
  bool StepUp() const { return http_status == 403 && challenge.error == "insufficient_scope"; }
};

// One configured server, as the OAuth client sees it.
struct ServerAuth {
  uint64_t id = 0;
  std::string name;
  config::RemoteServer config;
  std::string url;  // revealed: the store's key
  AuthState state = AuthState::kNone;
  base::Boxed<StoredGrant> grant;  // held as TokensIn(state) says; most servers have none
  int attempts = 0;                // authorizations since the last success or login
  std::string last_error;          // shown in status; "" after a success
  Ask ask;                         // the latest one: what a new flow starts from
  // The session holds its requests until it gets Authorized or
  // AuthorizationFailed (its `authorizing` phase). Not a state of the
  // authorization: a session may ask while a refresh or a flow runs for
  // another reason, and is answered when that ends.
  bool session_waiting = false;

  // The flow, while IsAuthorizing(state).
  std::unique_ptr<AuthFlow> flow;
  uint64_t flow_serial = 0;                   // tells a late answer for an older flow
  std::map<uint64_t, uint64_t> flow_fetches;  // flow's fetch id → fetcher id
  std::string consent_state;                  // the callback it waits for
  uint64_t flow_login = 0;                    // the `mcpgw login` that started it, or 0
  bool flow_counted = false;                  // it counts as an attempt (not discovery only)
  std::vector<std::function<void(base::Result<LoginStarted>)>> url_waiters;
  std::vector<std::pair<uint64_t, std::function<void(base::Status)>>> login_waiters;
  std::map<uint64_t, base::Status> logins;  // outcomes of recent logins

  // Refreshing.
  uint64_t refresh_fetch = 0;                 // the token request, while IsRefreshing(state)
  std::optional<TimePoint> refresh_at;        // ahead of expiry (or a retry)
  std::optional<TimePoint> refresh_deadline;  // of the request in flight

  // Flow deadlines, refresh times and deadlines; made when first armed.
  std::unique_ptr<Timer> timer;
};

// Why a login did not start or did not go through; a host sees it as
// transport (AuthManager::Login).
inline base::Status LoginError(std::string reason) {
  return base::Status(base::ErrorKind::kTransport, std::move(reason));
}

// How a flow's actions of one turn ended it, if they did.
struct FlowEnd {
  std::optional<StoredGrant> finished;
  std::optional<std::string> failed;
  std::optional<std::string> no_oauth;  // NoOAuth's reason
  bool discovered = false;              // a discovery-only flow found OAuth
};

struct AuthManager::Impl {
  Impl(AuthIo io, SessionLink* link, AuthManagerOptions options);
  ~Impl();

  ServerAuth* Find(uint64_t id);
  ServerAuth* FindByName(const std::string& name);
  Secret Bearer(const ServerAuth& s) const;
  void Learn(const Secret& value);
  int64_t UnixNow() const;
  // The one place a server's state changes, checked against the table.
  void Enter(ServerAuth& s, AuthState to);

  Secret AddServer(uint64_t id, const std::string& name, const config::RemoteServer& server);
  void RemoveServer(uint64_t id);
  void AuthorizationNeeded(uint64_t id, int http_status, const std::string& www_authenticate);
  void Succeeded(uint64_t id);
  void FailSession(ServerAuth& s, const std::string& reason);
  // New tokens: kept, stored, handed to the session (which re-sends what
  // waited, or after `mcpgw login` tries again if `wake`), refresh scheduled.
  void AdoptGrant(ServerAuth& s, StoredGrant grant, AuthState to, bool wake);
  OAuthStatus Status(uint64_t id) const;

  // Shutdown.
  void Shutdown(Duration grace, std::function<void()> done);
  // While shutting down: forgets `s` once its refresh is over. True when gone.
  bool DrainIfDone(ServerAuth& s);
  void MaybeFinishShutdown();

  // manager_flow.cc.
  void StartAuthorization(ServerAuth& s, uint64_t login);
  void Pump(ServerAuth& s);
  void Dispatch(ServerAuth& s, FlowAction& action, FlowEnd* end);
  void NoOAuthOffered(ServerAuth& s, const std::string& why);
  void OnConsentUrl(ServerAuth& s, const std::string& url, const std::string& state);
  // Ends the flow as failed: `s` moves to `to`; the session (if
  // `fail_session`) and a waiting `mcpgw login` are told `reason`.
  void FailFlow(ServerAuth& s, AuthState to, const std::string& reason, bool fail_session = true);
  // Ends the flow (aborting its requests, answering who waits for its URL),
  // leaving the state to the caller; closes the listener when no flow is left.
  void EndFlow(ServerAuth& s, const std::string& reason);
  CallbackEndpoint::Page OnCallback(const std::string& query);

  // manager_refresh.cc.
  void ScheduleRefresh(ServerAuth& s);
  void StartRefresh(ServerAuth& s, bool after_401);
  void OnRefreshed(uint64_t id, const base::Result<FetchResult>& result);
  void ForgetTokens(ServerAuth& s, const std::string& why);
  void RefreshFailed(ServerAuth& s, const std::string& reason);
  void CheckRefreshTimers(ServerAuth& s, TimePoint now);
  void ArmTimer(ServerAuth& s);
  void OnTimer(uint64_t id);

  // manager_login.cc.
  void Login(const std::string& name, std::function<void(base::Result<LoginStarted>)> done);
  void FinishLogin(ServerAuth& s, uint64_t login, const base::Status& outcome);
  void WaitLogin(const std::string& name, uint64_t login, std::function<void(base::Status)> done);
  void Logout(const std::string& name, std::function<void(base::Status)> done);
  void Revoke(ServerAuth& s, const StoredGrant& grant);

  Env* env;
  SessionLink* link;
  AuthManagerOptions options;
  TokenStore store;
  HttpFetcher fetcher;
  std::unique_ptr<CallbackEndpoint> callback;
  std::unique_ptr<BrowserLauncher> browser;
  std::unordered_map<uint64_t, std::unique_ptr<ServerAuth>> servers;
  uint64_t next_login = 0;
  uint64_t next_flow = 0;
  bool shutting_down = false;
  std::function<void()> shutdown_done;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);  // for tasks posted to the loop
};

// How a server without OAuth refused its session: the status, and the names
// (never the values) of the headers its entry sends, e.g. "HTTP 401
// Unauthorized (sent headers: X-Api-Key)".
std::string RefusalWithHeaderNames(const ServerAuth& s);

// Where a server goes when its flow fails: its tokens stay in use, unconfirmed,
// or it has none.
inline AuthState AfterFailure(const ServerAuth& s) {
  return s.grant ? AuthState::kUnconfirmed : AuthState::kFailed;
}

}  // namespace mcpgw::auth
