// The table of allowed moves a small state machine is written as: one row
// per (state, event) that moves, looked up by the one function that changes
// the machine's state. Anything not in the table is ignored by the caller's
// choice (the machines of daemon/mcp/ return false and stay put).
#pragma once

#include <optional>

namespace mcpgw::base {

template <typename State, typename Event>
struct Move {
  State from;
  Event on;
  State to;
};

// The state `table` moves to from `from` on `on`, or nullopt when no row says.
template <typename State, typename Event, size_t N>
constexpr std::optional<State> FindMove(const Move<State, Event> (&table)[N], State from,
                                        Event on) {
  for (const Move<State, Event>& move : table) {
    if (move.from == from && move.on == on) return move.to;
  }
  return std::nullopt;
}

}  // namespace mcpgw::base
