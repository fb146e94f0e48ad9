// The table of a server's authorization states: every state says what a
// user sees, is reachable, and can get back to authorized; the moves that
// must never happen are not in it.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "daemon/auth/auth_state.h"

namespace mcpgw::auth {
namespace {

const std::vector<AuthState> kAll = {
    AuthState::kNone,
    AuthState::kAuthorized,
    AuthState::kUnconfirmed,
    AuthState::kRefreshing,
    AuthState::kRefreshingAfter401,
    AuthState::kAuthorizing,
    AuthState::kAwaitingConsent,
    AuthState::kLoggedOut,
    AuthState::kNoBrowser,
    AuthState::kFailed,
};

// The states reachable from `from` along the table.
std::set<AuthState> Reachable(AuthState from) {
  std::set<AuthState> seen = {from};
  std::vector<AuthState> todo = {from};
  while (!todo.empty()) {
    const AuthState s = todo.back();
    todo.pop_back();
    for (AuthState to : kAll) {
      if (MoveAllowed(s, to) && seen.insert(to).second) todo.push_back(to);
    }
  }
  return seen;
}

TEST_CASE("every state shows one of the status texts of proto/PROTOCOL.md", "[auth][state]") {
  const std::set<std::string_view> documented = {
      "authorized",     "authorizing", "waiting for consent", "refreshing",
      "login required", "failed",      "not authorized"};
  std::set<std::string_view> names;
  for (AuthState s : kAll) {
    CHECK(documented.count(StatusText(s)) == 1);
    CHECK(names.insert(StateName(s)).second);  // log lines tell states apart
  }
  CHECK(StatusText(AuthState::kRefreshingAfter401) == "refreshing");
  CHECK(StatusText(AuthState::kUnconfirmed) == "authorized");
  CHECK(StatusText(AuthState::kNoBrowser) == "login required");
  CHECK(StatusText(AuthState::kLoggedOut) == "login required");
}

TEST_CASE("every state is reachable and none is a dead end", "[auth][state]") {
  CHECK(Reachable(AuthState::kNone).size() == kAll.size());
  for (AuthState s : kAll) {
    INFO(StateName(s));
    CHECK(Reachable(s).count(AuthState::kAuthorized) == 1);
    CHECK(MoveAllowed(s, AuthState::kLoggedOut));  // `mcpgw logout` works from anywhere
    CHECK(MoveAllowed(s, s));
  }
}

TEST_CASE("moves that would break a promise are not in the table", "[auth][state]") {
  // Logged out: no tokens and no browser until `mcpgw login`.
  CHECK_FALSE(MoveAllowed(AuthState::kLoggedOut, AuthState::kAuthorized));
  CHECK_FALSE(MoveAllowed(AuthState::kLoggedOut, AuthState::kRefreshing));
  CHECK_FALSE(MoveAllowed(AuthState::kLoggedOut, AuthState::kAwaitingConsent));
  // A refresh needs tokens; tokens come from a flow or a refresh.
  for (AuthState s : {AuthState::kNone, AuthState::kFailed, AuthState::kNoBrowser}) {
    INFO(StateName(s));
    CHECK_FALSE(MoveAllowed(s, AuthState::kRefreshing));
    CHECK_FALSE(MoveAllowed(s, AuthState::kRefreshingAfter401));
    CHECK_FALSE(MoveAllowed(s, AuthState::kUnconfirmed));
  }
  CHECK_FALSE(MoveAllowed(AuthState::kFailed, AuthState::kAuthorized));
  // A second refresh for a 401 after one already answered a 401.
  CHECK_FALSE(MoveAllowed(AuthState::kUnconfirmed, AuthState::kRefreshingAfter401));
  // Consent is asked by a flow, never straight from a resting state.
  CHECK_FALSE(MoveAllowed(AuthState::kAuthorized, AuthState::kAwaitingConsent));
  // Tokens from a refresh that answered a 401 are not trusted at once.
  CHECK_FALSE(MoveAllowed(AuthState::kRefreshingAfter401, AuthState::kRefreshing));
  // "login required" only once discovery found OAuth: a server that offers
  // none must never send its user to `mcpgw login`.
  for (AuthState s : {AuthState::kNone, AuthState::kFailed, AuthState::kRefreshing,
                      AuthState::kRefreshingAfter401}) {
    INFO(StateName(s));
    CHECK_FALSE(MoveAllowed(s, AuthState::kNoBrowser));
  }
  CHECK(MoveAllowed(AuthState::kAuthorizing, AuthState::kNoBrowser));
  // No OAuth found: back to not in use, which only a flow can find out.
  CHECK(MoveAllowed(AuthState::kAuthorizing, AuthState::kNone));
  CHECK_FALSE(MoveAllowed(AuthState::kAuthorized, AuthState::kNone));
  CHECK_FALSE(MoveAllowed(AuthState::kFailed, AuthState::kNone));
}

TEST_CASE("what each state holds", "[auth][state]") {
  CHECK(TokensIn(AuthState::kAuthorized) == TokensHeld::kAlways);
  CHECK(TokensIn(AuthState::kRefreshingAfter401) == TokensHeld::kAlways);
  CHECK(TokensIn(AuthState::kAwaitingConsent) == TokensHeld::kMaybe);
  CHECK(TokensIn(AuthState::kLoggedOut) == TokensHeld::kNever);
  CHECK(TokensIn(AuthState::kFailed) == TokensHeld::kNever);
  CHECK(IsRefreshing(AuthState::kRefreshingAfter401));
  CHECK_FALSE(IsRefreshing(AuthState::kAuthorized));
  CHECK(IsAuthorizing(AuthState::kAwaitingConsent));
  CHECK_FALSE(IsAuthorizing(AuthState::kNoBrowser));
}

}  // namespace
}  // namespace mcpgw::auth
