// AuthManager: the daemon's OAuth client for every configured server
// (docs/BEHAVIOR.md §9, docs/AUTH.md), on the main loop. It answers a session's
// "authorization needed" (a 401, or a 403 insufficient_scope) by refreshing
// the token or running an AuthFlow; keeps each server's grant in the
// TokenStore and refreshes it ahead of expiry; opens the loopback callback
// endpoint only while a flow waits for consent and the browser when it may;
// counts attempts (at most max_attempts per server until a login, a config
// change or a success); and serves `mcpgw login` / `logout` and the
// per-server OAuth status. Registrations are shared across servers by issuer
// through the store.
//
// Each server's authorization is one AuthState (auth_state.h), moved along
// one table. The manager reaches the world only through AuthIo (its loop's
// Env for clocks, timers, HTTP and files; the callback endpoint; the browser
// launcher), so tests run it on a fake clock, and sessions only through its
// SessionLink (the gateway, which hands every call to the server's worker
// thread). Owned by the daemon; every method runs on the main loop.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <uv.h>

#include "base/status.h"
#include "config/config.h"
#include "config/secret.h"
#include "daemon/auth/browser.h"
#include "daemon/auth/callback_listener.h"
#include "daemon/auth/flow.h"
#include "daemon/runtime/env.h"

namespace mcpgw::auth {

// How the manager talks back to a server's session (by the id it was added
// with) and to the daemon's scrubber.
class SessionLink {
 public:
  virtual ~SessionLink() = default;
  // "Bearer <token>" on every later request of the session; empty: none.
  virtual void SetAuthorization(uint64_t server, const Secret& value) = 0;
  // The session may re-send what got 401/403 (after SetAuthorization).
  virtual void Authorized(uint64_t server) = 0;
  // The session stops waiting and shows `reason` (already scrubbed of
  // known secrets by the caller's own scrubber).
  virtual void AuthorizationFailed(uint64_t server, const std::string& reason) = 0;
  // A new secret exists (token, refresh token, client secret, code, PKCE
  // verifier): it must be redacted from everything from now on.
  virtual void LearnSecret(const Secret& value) = 0;
};

struct AuthManagerOptions {
  std::string token_dir;  // the TokenStore's directory
  FlowLimits limits;
  int max_attempts = 3;
  // Environment lookup for the browser choice (MCPGW_BROWSER, BROWSER,
  // DISPLAY...); the daemon passes getenv.
  std::function<std::optional<std::string>(std::string_view)> get_env;
  bool macos = false;
};

// The OAuth part of one server's status row.
struct OAuthStatus {
  bool used = false;  // the server asked for authorization or has a grant
  std::string state;  // StatusText(AuthState): "authorized", "refreshing", "authorizing", ...
  std::string issuer;
  std::string client;   // "configured", "metadata document", "registered"
  std::string subject;  // as whom, when the token says
  std::string scope;
  std::optional<int64_t> expires_unix;
  bool refreshable = false;
  std::string error;  // the last failure, "" after a success
  int attempts = 0;
};

// The answer to `login`: the URL to open (or, as an error, why there is none).
struct LoginStarted {
  std::string url;     // the authorization URL (holds `state`: show it to the user only)
  uint64_t login = 0;  // pass to WaitLogin
};

// What the manager needs of the world: its loop's Env (clocks, timers, HTTP,
// files), the endpoint the authorization server's redirect lands on, and a
// way to open a browser. Tests pass fakes of all three.
struct AuthIo {
  Env* env = nullptr;  // outlives the manager
  std::unique_ptr<CallbackEndpoint> callback;
  std::unique_ptr<BrowserLauncher> browser;
};

// The real ones: the loopback listener and browser programs on `loop`, the
// loop `env` runs (the main Worker's).
AuthIo LoopAuthIo(Env* env, uv_loop_t* loop);

class AuthManager {
 public:
  AuthManager(AuthIo io, SessionLink* link, AuthManagerOptions options);
  ~AuthManager();
  AuthManager(const AuthManager&) = delete;
  AuthManager& operator=(const AuthManager&) = delete;

  static constexpr int kMaxAttempts = 3;

  // A configured server (at load or reload, with the id the link knows it
  // by). Returns the Authorization value its session starts with: a stored
  // token, or empty.
  Secret AddServer(uint64_t id, const std::string& name, const config::RemoteServer& server);
  // The server left the configuration (or was replaced): flows stop.
  void RemoveServer(uint64_t id);

  // The session's AuthorizationNeeded: a 401, or a 403 with
  // error="insufficient_scope", and the response's WWW-Authenticate.
  void AuthorizationNeeded(uint64_t id, int http_status, const std::string& www_authenticate);
  // The server answered with the authorization it has (ready, or a call
  // went through): the attempt count starts over.
  void Succeeded(uint64_t id);

  // The errors below carry the kind a host sees: invalid_request for a name
  // the manager does not know (login, logout), transport for the rest.
  //
  // `mcpgw login NAME`: (re)starts NAME's authorization for a user who opens
  // the URL; `done` runs once the URL is known or the start failed.
  void Login(const std::string& name, std::function<void(base::Result<LoginStarted>)> done);
  // Runs `done` when login `login` of NAME ends: ok, or why it failed.
  void WaitLogin(const std::string& name, uint64_t login, std::function<void(base::Status)> done);
  // `mcpgw logout NAME`: forgets NAME's tokens (and tells the server's
  // revocation endpoint, best effort). `done` gets ok or an error.
  void Logout(const std::string& name, std::function<void(base::Status)> done);

  OAuthStatus Status(uint64_t id) const;

  // Daemon shutdown: every flow and the listener stop at once (a waiting
  // `mcpgw login` is told so) and no refresh starts any more; a token refresh
  // in flight is finished and its answer stored, past `grace` if need be
  // (bounded by the refresh's own deadline, FlowLimits::fetch_timeout),
  // because the authorization server may already have rotated the refresh
  // token the store holds. `done` runs later (never inline) once no refresh
  // is left. Nothing is told to sessions any more; RemoveServer keeps a
  // refreshing server until then.
  void Shutdown(Duration grace, std::function<void()> done);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw::auth
