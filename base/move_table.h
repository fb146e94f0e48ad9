// The tables of allowed moves a state machine is written as, looked up by
// the one function that changes the machine's state. A machine driven by
// events has a row per (state, event) that moves (`Move`); one whose owner
// decides each next state has a row per allowed (from, to) (`Transition`).
// Anything not in a table is the caller's to refuse (the passive machines of
// daemon/mcp/ ignore the event; a phase or step function asserts).
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

template <typename State>
struct Transition {
  State from;
  State to;
};

// Whether `table` allows the move from `from` to `to`.
template <typename State, size_t N>
constexpr bool Allowed(const Transition<State> (&table)[N], State from, State to) {
  for (const Transition<State>& row : table) {
    if (row.from == from && row.to == to) return true;
  }
  return false;
}

}  // namespace mcpgw::base
