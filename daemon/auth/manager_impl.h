// AuthManager::Impl: the state behind the AuthManager facade, shared by
// manager.cc (servers, flows, login, logout, status) and manager_refresh.cc
// (refreshing tokens ahead of expiry and after a 401). Internal to daemon/auth.
#pragma once

#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "daemon/auth/browser.h"
#include "daemon/auth/callback_listener.h"
#include "daemon/auth/http_fetch.h"
#include "daemon/auth/manager.h"
#include "daemon/auth/store.h"

namespace mcpgw::auth {

using Clock = mcp::Clock;

int64_t UnixNow();

// One configured server, as the OAuth client sees it.
struct ServerAuth {
  uint64_t id = 0;
  std::string name;
  config::RemoteServer config;
  std::string url;  // revealed: the store's key
  std::optional<StoredGrant> grant;
  bool used = false;             // it asked for authorization at least once
  bool needs_login = false;      // logged out: no automatic authorization
  bool session_waiting = false;  // its session waits for Authorized/Failed
  int attempts = 0;              // authorizations since the last success or login
  std::string last_error;
  BearerChallenge challenge;  // of the last 401/403
  bool step_up = false;       // that was a 403 insufficient_scope

  // The authorization under way.
  std::unique_ptr<AuthFlow> flow;
  std::map<uint64_t, uint64_t> flow_fetches;  // flow's fetch id → fetcher id
  std::string consent_state;                  // the callback it waits for
  uint64_t flow_login = 0;                    // the `mcpgw login` that started it, or 0
  std::vector<std::function<void(LoginStarted)>> url_waiters;
  std::vector<std::pair<uint64_t, std::function<void(bool, std::string)>>> login_waiters;
  std::map<uint64_t, std::pair<bool, std::string>> logins;  // outcomes of recent logins

  // Refreshing.
  uint64_t refresh_fetch = 0;                      // the token request in flight, 0 when none
  bool refresh_after_401 = false;                  // it answers a 401
  bool token_from_401_refresh = false;             // the token in use came from such a refresh
  std::optional<mcp::TimePoint> refresh_at;        // ahead of expiry
  std::optional<mcp::TimePoint> refresh_deadline;  // of the request in flight

  uv_timer_t* timer = nullptr;  // flow deadlines and refresh times; freed on close
};

struct AuthManager::Impl {
  Impl(uv_loop_t* loop, HttpClient* http, SessionLink* link, AuthManagerOptions options);
  ~Impl();

  ServerAuth* Find(uint64_t id);
  ServerAuth* FindByName(const std::string& name);
  Secret Bearer(const ServerAuth& s) const;
  void Learn(const Secret& value);

  Secret AddServer(uint64_t id, const std::string& name, const config::RemoteServer& server);
  void RemoveServer(uint64_t id);
  void Shutdown();
  void AuthorizationNeeded(uint64_t id, int http_status, const std::string& www_authenticate);
  void Succeeded(uint64_t id);
  void FailSession(ServerAuth& s, const std::string& reason);
  void AdoptGrant(ServerAuth& s, StoredGrant grant, bool wake_session = false);

  // Flows.
  void StartAuthorization(ServerAuth& s, uint64_t login);
  void Pump(ServerAuth& s);
  void OnConsentUrl(ServerAuth& s, const std::string& url, const std::string& state);
  void AbortFlow(ServerAuth& s, const std::string& reason, bool fail_session = true);
  void EndFlow(ServerAuth& s, const std::string& reason);
  CallbackListener::Page OnCallback(const std::string& query);

  // Timers.
  void ArmTimer(ServerAuth& s);
  void OnTimer(ServerAuth& s);

  // manager_refresh.cc.
  void ScheduleRefresh(ServerAuth& s);
  void StartRefresh(ServerAuth& s, bool after_401);
  void OnRefreshed(uint64_t id, const FetchResult& result);
  void RefreshFailed(ServerAuth& s, const std::string& reason);
  void CheckRefreshTimers(ServerAuth& s, mcp::TimePoint now);

  // Login and logout.
  void Login(const std::string& name, std::function<void(LoginStarted)> done);
  void FinishLogin(ServerAuth& s, uint64_t login, bool ok, const std::string& error);
  void WaitLogin(const std::string& name, uint64_t login,
                 std::function<void(bool, std::string)> done);
  void Logout(const std::string& name, std::function<void(std::string, bool)> done);
  void Revoke(ServerAuth& s, const StoredGrant& grant);
  OAuthStatus Status(uint64_t id) const;

  uv_loop_t* loop;
  SessionLink* link;
  AuthManagerOptions options;
  TokenStore store;
  HttpFetcher fetcher;
  CallbackListener listener;
  BrowserLauncher browser;
  std::unordered_map<uint64_t, std::unique_ptr<ServerAuth>> servers;
  uint64_t next_login = 0;
};

}  // namespace mcpgw::auth
