#include "daemon/auth/auth_state.h"

#include <algorithm>
#include <iterator>

namespace mcpgw::auth {
namespace {

using S = AuthState;

struct Move {
  AuthState from;
  AuthState to;
};

// Every move a server's authorization may make (docs/BEHAVIOR.md §9). `mcpgw
// logout` moves any state to kLoggedOut and is not listed; staying put is
// always allowed.
constexpr Move kMoves[] = {
    // Tokens a previous run stored. A 401 or 403, or `mcpgw login`: authorize
    // (without a browser, only discover whether the server offers OAuth).
    {S::kNone, S::kAuthorized},
    {S::kNone, S::kAuthorizing},
    // The refresh time came; a 401 with a refresh token refreshes first; a
    // step-up, a 401 without a refresh token or `mcpgw login` authorizes.
    {S::kAuthorized, S::kRefreshing},
    {S::kAuthorized, S::kRefreshingAfter401},
    {S::kAuthorized, S::kAuthorizing},
    // A request went through; the refresh time came; a 401, 403 or login.
    {S::kUnconfirmed, S::kAuthorized},
    {S::kUnconfirmed, S::kRefreshing},
    {S::kUnconfirmed, S::kAuthorizing},
    // New tokens, or a failure that keeps the old ones (tried again later).
    // invalid_grant forgets them and authorizes (or cannot: no attempts
    // left, shutting down). `mcpgw login` drops the refresh.
    {S::kRefreshing, S::kAuthorized},
    {S::kRefreshing, S::kAuthorizing},
    {S::kRefreshing, S::kFailed},
    // The same for a refresh that answers a 401, whose new tokens are not
    // trusted until a request goes through with them.
    {S::kRefreshingAfter401, S::kUnconfirmed},
    {S::kRefreshingAfter401, S::kAuthorized},
    {S::kRefreshingAfter401, S::kAuthorizing},
    {S::kRefreshingAfter401, S::kFailed},
    // The authorization URL is ready; tokens; a failure (keeping the tokens of
    // a step-up or login in use, unconfirmed). Discovery found OAuth but no
    // browser can ask; it found none at all: OAuth is not in use.
    {S::kAuthorizing, S::kAwaitingConsent},
    {S::kAuthorizing, S::kAuthorized},
    {S::kAuthorizing, S::kFailed},
    {S::kAuthorizing, S::kUnconfirmed},
    {S::kAuthorizing, S::kNoBrowser},
    {S::kAuthorizing, S::kNone},
    // The redirect came: exchange the code. Denied, timed out, refused
    // redirect, superseded by a newer login; no browser could be run.
    {S::kAwaitingConsent, S::kAuthorizing},
    {S::kAwaitingConsent, S::kFailed},
    {S::kAwaitingConsent, S::kUnconfirmed},
    {S::kAwaitingConsent, S::kNoBrowser},
    // `mcpgw login` only.
    {S::kLoggedOut, S::kAuthorizing},
    // A 401 (a browser may run now) or `mcpgw login`.
    {S::kNoBrowser, S::kAuthorizing},
    // A 401 while attempts remain, or `mcpgw login`.
    {S::kFailed, S::kAuthorizing},
};

}  // namespace

TokensHeld TokensIn(AuthState state) {
  switch (state) {
    case S::kAuthorized:
    case S::kUnconfirmed:
    case S::kRefreshing:
    case S::kRefreshingAfter401:
      return TokensHeld::kAlways;
    case S::kAuthorizing:
    case S::kAwaitingConsent:
      return TokensHeld::kMaybe;
    case S::kNone:
    case S::kLoggedOut:
    case S::kNoBrowser:
    case S::kFailed:
      return TokensHeld::kNever;
  }
  return TokensHeld::kMaybe;
}

std::string_view StatusText(AuthState state) {
  switch (state) {
    case S::kNone:
      return "not authorized";
    case S::kAuthorized:
    case S::kUnconfirmed:
      return "authorized";
    case S::kRefreshing:
    case S::kRefreshingAfter401:
      return "refreshing";
    case S::kAuthorizing:
      return "authorizing";
    case S::kAwaitingConsent:
      return "waiting for consent";
    case S::kLoggedOut:
    case S::kNoBrowser:
      return "login required";
    case S::kFailed:
      return "failed";
  }
  return "failed";
}

std::string_view StateName(AuthState state) {
  switch (state) {
    case S::kNone:
      return "none";
    case S::kAuthorized:
      return "authorized";
    case S::kUnconfirmed:
      return "unconfirmed";
    case S::kRefreshing:
      return "refreshing";
    case S::kRefreshingAfter401:
      return "refreshing after 401";
    case S::kAuthorizing:
      return "authorizing";
    case S::kAwaitingConsent:
      return "awaiting consent";
    case S::kLoggedOut:
      return "logged out";
    case S::kNoBrowser:
      return "no browser";
    case S::kFailed:
      return "failed";
  }
  return "?";
}

bool MoveAllowed(AuthState from, AuthState to) {
  if (from == to || to == S::kLoggedOut) return true;
  return std::any_of(std::begin(kMoves), std::end(kMoves),
                     [&](const Move& m) { return m.from == from && m.to == to; });
}

bool IsRefreshing(AuthState state) {
  return state == S::kRefreshing || state == S::kRefreshingAfter401;
}

bool IsAuthorizing(AuthState state) {
  return state == S::kAuthorizing || state == S::kAwaitingConsent;
}

}  // namespace mcpgw::auth
