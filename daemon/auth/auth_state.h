// The state of one server's authorization as the AuthManager keeps it
// (docs/BEHAVIOR.md §9, docs/AUTH.md): one value per server, moved only along
// the table in auth_state.cc, and the only source of the status text a user
// sees (`mcpgw status`, proto/PROTOCOL.md `.oauth.state`). Pure.
//
// What is not here, on purpose: whether the server's session waits for an
// answer (that is the session's own hold, its `authorizing` phase, and it may
// wait while any of these runs) and the attempt count (a number).
#pragma once

#include <string_view>

namespace mcpgw::auth {

enum class AuthState {
  // Never asked for authorization and holding no tokens, or the server was
  // found to offer no OAuth (its 401s refuse the entry's own credentials):
  // OAuth is not in use.
  kNone,
  // Tokens held and trusted: refreshed ahead of expiry; a 401 is answered by
  // one refresh first (a 403 insufficient_scope by a new authorization).
  kAuthorized,
  // Tokens held but not seen working since a refresh answered a 401 with
  // them, or since an authorization failed: another 401 starts a new
  // authorization at once. A request that goes through makes them trusted.
  kUnconfirmed,
  // A refresh ahead of expiry (or its retry) is in flight; tokens held.
  kRefreshing,
  // A refresh answering a 401 is in flight; tokens held.
  kRefreshingAfter401,
  // An authorization flow runs: discovery, registration, the code exchange.
  // The tokens of a step-up or of `mcpgw login` stay in use meanwhile.
  kAuthorizing,
  // The flow handed out the authorization URL (to the browser or to `mcpgw
  // login`) and waits for the redirect to the loopback listener.
  kAwaitingConsent,
  // Logged out: no tokens, and only `mcpgw login` starts an authorization.
  kLoggedOut,
  // The server offers OAuth but no browser could ask for consent (none
  // configured, or it failed to run): the server asks for `mcpgw login`; a
  // later 401 looks for a browser again.
  kNoBrowser,
  // The last authorization failed and no tokens are held; a 401 tries again
  // while attempts remain.
  kFailed,
};

// Whether tokens are held in a state.
enum class TokensHeld { kNever, kAlways, kMaybe };
TokensHeld TokensIn(AuthState state);

// The status text: "authorized", "refreshing", "authorizing", "waiting for
// consent", "login required", "failed" or "not authorized".
std::string_view StatusText(AuthState state);
// The state's own name, for log lines and test messages.
std::string_view StateName(AuthState state);
// Whether the table lets `from` move to `to`. Staying put is always allowed.
bool MoveAllowed(AuthState from, AuthState to);
// Whether a refresh is in flight / a flow runs in `state`.
bool IsRefreshing(AuthState state);
bool IsAuthorizing(AuthState state);

}  // namespace mcpgw::auth
