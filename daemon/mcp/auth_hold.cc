// The authorization hold's moves, written once.
#include "daemon/mcp/auth_hold.h"

#include <algorithm>
#include <optional>

#include "base/move_table.h"

namespace mcpgw::mcp {

namespace {

// Anything not listed is ignored: a refusal while waiting joins the wait
// (one AuthorizationNeeded per wait), an answer while clear is late.
constexpr base::Move<HoldState, HoldEvent> kHoldMoves[] = {
    {HoldState::kClear, HoldEvent::kRefused, HoldState::kWaiting},
    {HoldState::kWaiting, HoldEvent::kAuthorized, HoldState::kClear},
    {HoldState::kWaiting, HoldEvent::kDenied, HoldState::kClear},
    {HoldState::kWaiting, HoldEvent::kAbandoned, HoldState::kClear},
};

}  // namespace

std::string_view HoldStateName(HoldState s) {
  switch (s) {
    case HoldState::kClear:
      return "clear";
    case HoldState::kWaiting:
      return "waiting";
  }
  return "clear";
}

std::string_view HoldEventName(HoldEvent e) {
  switch (e) {
    case HoldEvent::kRefused:
      return "refused";
    case HoldEvent::kAuthorized:
      return "authorized";
    case HoldEvent::kDenied:
      return "denied";
    case HoldEvent::kAbandoned:
      return "abandoned";
  }
  return "abandoned";
}

bool AuthHold::On(HoldEvent event) {
  const std::optional<HoldState> to = base::FindMove(kHoldMoves, state_, event);
  if (!to) return false;
  state_ = *to;
  return true;
}

void AuthHold::Hold(RpcId id) {
  if (waiting() && !Holds(id)) held_.push_back(id);
}

std::vector<RpcId> AuthHold::TakeHeld() {
  std::vector<RpcId> out;
  out.swap(held_);
  return out;
}

void AuthHold::Forget(RpcId id) {
  held_.erase(std::remove(held_.begin(), held_.end(), id), held_.end());
}

bool AuthHold::Holds(RpcId id) const {
  return std::find(held_.begin(), held_.end(), id) != held_.end();
}

}  // namespace mcpgw::mcp
