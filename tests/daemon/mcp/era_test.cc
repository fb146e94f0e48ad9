// The protocol era's machine (daemon/mcp/era.h), one row per path through
// its table: which events move it, which it ignores, and what each state
// tells the session to do next (probe, initialize at once, probe after a
// refused initialize).
#include <catch2/catch.hpp>

#include <vector>

#include "daemon/mcp/era.h"

namespace mcpgw::mcp {
namespace {

struct Row {
  const char* path;
  std::vector<EraEvent> events;
  EraState state;
  bool last_moved;  // whether the last event moved the machine
};

TEST_CASE("era: moves", "[era]") {
  using E = EraEvent;
  using S = EraState;
  const Row rows[] = {
      {"a new session knows nothing", {}, S::kUnknown, false},
      {"the era cache's word: initialize at once", {E::kCachedLegacy}, S::kLegacy, true},
      {"the cache's word is taken only before anything is known",
       {E::kProbe, E::kCachedLegacy},
       S::kProbing,
       false},
      {"an unknown server is probed", {E::kProbe}, S::kProbing, true},
      {"asking again at the version a refusal lists keeps probing",
       {E::kProbe, E::kProbe},
       S::kProbing,
       false},
      {"the probe finds 2026-07-28", {E::kProbe, E::kFoundModern}, S::kModern, true},
      {"the probe finds 2025-11-25", {E::kProbe, E::kFoundLegacy}, S::kLegacyProbed, true},
      {"a verdict nobody asked for changes nothing", {E::kFoundModern}, S::kUnknown, false},
      {"an attempt that failed during the probe learnt nothing",
       {E::kProbe, E::kAttemptEnded},
       S::kUnknown,
       true},
      {"the probe's 2025 verdict outlives its attempt",
       {E::kProbe, E::kFoundLegacy, E::kAttemptEnded},
       S::kLegacy,
       true},
      {"a modern server stays modern when its attempt ends",
       {E::kProbe, E::kFoundModern, E::kAttemptEnded},
       S::kModern,
       false},
      {"a modern server's next attempt probes again",
       {E::kProbe, E::kFoundModern, E::kProbe},
       S::kProbing,
       true},
      {"a 2025 server refusing initialize the modern way is probed",
       {E::kCachedLegacy, E::kProbe},
       S::kProbing,
       true},
      {"a 2025 server that answers like another era is in doubt",
       {E::kCachedLegacy, E::kDoubted},
       S::kUnknown,
       true},
      {"a just-probed 2025 server in doubt",
       {E::kProbe, E::kFoundLegacy, E::kDoubted},
       S::kUnknown,
       true},
      {"a modern server that answers like a 2025 one is in doubt",
       {E::kProbe, E::kFoundModern, E::kDoubted},
       S::kUnknown,
       true},
      {"doubt about nothing known changes nothing", {E::kDoubted}, S::kUnknown, false},
  };
  for (const Row& row : rows) {
    INFO(row.path);
    Era era;
    bool moved = false;
    for (EraEvent e : row.events) moved = era.On(e);
    CHECK(EraStateName(era.state()) == EraStateName(row.state));
    CHECK(moved == row.last_moved);
  }
}

TEST_CASE("era: what each state tells the session", "[era]") {
  struct Tells {
    std::vector<EraEvent> events;
    bool modern;
    bool initialize_at_once;
    bool probe_after_refused_initialize;
  };
  const Tells rows[] = {
      {{}, false, false, false},
      {{EraEvent::kCachedLegacy}, false, true, true},
      {{EraEvent::kProbe}, false, false, false},
      {{EraEvent::kProbe, EraEvent::kFoundLegacy}, false, true, false},
      {{EraEvent::kProbe, EraEvent::kFoundLegacy, EraEvent::kAttemptEnded}, false, true, true},
      {{EraEvent::kProbe, EraEvent::kFoundModern}, true, false, false},
  };
  for (const Tells& row : rows) {
    Era era;
    for (EraEvent e : row.events) era.On(e);
    INFO("state " << EraStateName(era.state()));
    CHECK(era.modern() == row.modern);
    CHECK(era.legacy() == row.initialize_at_once);
    CHECK(era.may_probe() == row.probe_after_refused_initialize);
  }
}

}  // namespace
}  // namespace mcpgw::mcp
