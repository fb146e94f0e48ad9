// The authorization hold's machine (daemon/mcp/auth_hold.h): one wait per
// refusal however many requests are refused meanwhile, every answer ends it,
// late answers change nothing, and the held requests come back in the order
// they were refused.
#include <catch2/catch.hpp>

#include <vector>

#include "daemon/mcp/auth_hold.h"

namespace mcpgw::mcp {
namespace {

TEST_CASE("auth hold: moves", "[auth_hold]") {
  using E = HoldEvent;
  struct Row {
    const char* path;
    std::vector<HoldEvent> events;
    HoldState state;
    bool last_moved;  // false: the event was ignored (no AuthorizationNeeded, no resend)
  };
  const Row rows[] = {
      {"a refusal begins a wait", {E::kRefused}, HoldState::kWaiting, true},
      {"a second refusal joins the wait (one AuthorizationNeeded per wait)",
       {E::kRefused, E::kRefused},
       HoldState::kWaiting,
       false},
      {"credentials end the wait", {E::kRefused, E::kAuthorized}, HoldState::kClear, true},
      {"no credentials end the wait", {E::kRefused, E::kDenied}, HoldState::kClear, true},
      {"a failed attempt ends the wait", {E::kRefused, E::kAbandoned}, HoldState::kClear, true},
      {"credentials nobody waits for change nothing", {E::kAuthorized}, HoldState::kClear, false},
      {"a refusal nobody answered, then a late answer",
       {E::kRefused, E::kAbandoned, E::kDenied},
       HoldState::kClear,
       false},
      {"a new refusal after an answer begins a new wait",
       {E::kRefused, E::kAuthorized, E::kRefused},
       HoldState::kWaiting,
       true},
  };
  for (const Row& row : rows) {
    INFO(row.path);
    AuthHold hold;
    bool moved = false;
    for (HoldEvent e : row.events) moved = hold.On(e);
    CHECK(HoldStateName(hold.state()) == HoldStateName(row.state));
    CHECK(hold.waiting() == (row.state == HoldState::kWaiting));
    CHECK(moved == row.last_moved);
  }
}

TEST_CASE("auth hold: the held requests", "[auth_hold]") {
  AuthHold hold;
  SECTION("nothing is held without a wait") {
    hold.Hold(1);
    CHECK_FALSE(hold.Holds(1));
    CHECK(hold.TakeHeld().empty());
  }
  SECTION("held in the order refused, once each, until taken") {
    hold.On(HoldEvent::kRefused);
    hold.Hold(7);
    hold.Hold(3);
    hold.Hold(7);
    hold.Hold(5);
    hold.Forget(3);  // its deadline passed meanwhile
    CHECK(hold.Holds(7));
    CHECK_FALSE(hold.Holds(3));
    hold.On(HoldEvent::kAuthorized);
    CHECK(hold.TakeHeld() == std::vector<RpcId>{7, 5});
    CHECK(hold.TakeHeld().empty());
    CHECK_FALSE(hold.Holds(7));
  }
}

}  // namespace
}  // namespace mcpgw::mcp
