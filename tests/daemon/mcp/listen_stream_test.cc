// The GET stream's machine (daemon/mcp/listen_stream.h): one row per path
// through its table, then its timing — when it is asked for again after it
// ends (at once after its lifetime, else a back-off that doubles while
// streams bring nothing), and that a session that offers none is never asked
// again until a new session.
#include <catch2/catch.hpp>

#include <vector>

#include "daemon/mcp/listen_stream.h"

namespace mcpgw::mcp {
namespace {

using namespace std::chrono_literals;

enum class Step { kAsk, kAnswer, kRefuse, kEnd, kLifetimeOver, kEvent, kStop, kNewSession };

const TimePoint kNow = TimePoint{} + std::chrono::hours(1);

ListenStream Fresh() { return ListenStream(1s, 60s); }

// Applies `steps` at kNow; returns the delay the last kEnd/kLifetimeOver gave.
std::optional<Duration> Run(ListenStream& s, const std::vector<Step>& steps) {
  std::optional<Duration> delay;
  TransferId next = 1;
  for (Step step : steps) {
    switch (step) {
      case Step::kAsk:
        s.Asked(next++);
        break;
      case Step::kAnswer:
        s.Answered();
        break;
      case Step::kRefuse:
        s.Refused();
        break;
      case Step::kEnd:
        delay = s.Ended(kNow, /*at_once=*/false);
        break;
      case Step::kLifetimeOver:
        delay = s.Ended(kNow, /*at_once=*/true);
        break;
      case Step::kEvent:
        s.Progress();
        break;
      case Step::kStop:
        s.Stopped();
        break;
      case Step::kNewSession:
        s.NewSession();
        break;
    }
  }
  return delay;
}

TEST_CASE("listen stream: moves", "[listen_stream]") {
  using St = Step;
  using L = ListenState;
  struct Row {
    const char* path;
    std::vector<Step> steps;
    ListenState state;
    bool due_now;     // asked for at once when the session serves
    bool had_stream;  // a 404 now means the session expired
    bool transfer;    // a live transfer to abort
  };
  const Row rows[] = {
      {"a new session's stream is due", {}, L::kIdle, true, false, false},
      {"asked: its head is awaited", {St::kAsk}, L::kOpening, false, false, true},
      {"answered with events: open", {St::kAsk, St::kAnswer}, L::kOpen, false, true, true},
      {"refused: this session offers none",
       {St::kAsk, St::kRefuse},
       L::kUnsupported,
       false,
       false,
       false},
      {"an open stream is never 'refused'",
       {St::kAsk, St::kAnswer, St::kRefuse},
       L::kOpen,
       false,
       true,
       true},
      {"failed before any stream: retried, still never open",
       {St::kAsk, St::kEnd},
       L::kRetrying,
       false,
       false,
       false},
      {"ended after it was open: retried, and it had been open",
       {St::kAsk, St::kAnswer, St::kEnd},
       L::kRetrying,
       false,
       true,
       false},
      {"past its lifetime: asked for again at once",
       {St::kAsk, St::kAnswer, St::kLifetimeOver},
       L::kRetrying,
       true,
       true,
       false},
      {"asked again after a pause",
       {St::kAsk, St::kEnd, St::kAsk},
       L::kOpening,
       false,
       false,
       true},
      {"stopped while open (credentials awaited): due again once serving",
       {St::kAsk, St::kAnswer, St::kStop},
       L::kIdle,
       true,
       true,
       false},
      {"stopped while retrying: due again at once",
       {St::kAsk, St::kEnd, St::kStop},
       L::kIdle,
       true,
       false,
       false},
      {"a session that offers none stays so when stopped",
       {St::kAsk, St::kRefuse, St::kStop},
       L::kUnsupported,
       false,
       false,
       false},
      {"a session that offers none is not ended again",
       {St::kAsk, St::kRefuse, St::kEnd},
       L::kUnsupported,
       false,
       false,
       false},
      {"a new session asks afresh, whatever the old one offered",
       {St::kAsk, St::kRefuse, St::kNewSession},
       L::kIdle,
       true,
       false,
       false},
      {"a new session forgets the old one's stream",
       {St::kAsk, St::kAnswer, St::kNewSession},
       L::kIdle,
       true,
       false,
       false},
  };
  for (const Row& row : rows) {
    INFO(row.path);
    ListenStream s = Fresh();
    Run(s, row.steps);
    CHECK(ListenStateName(s.state()) == ListenStateName(row.state));
    CHECK(s.Due(kNow) == row.due_now);
    CHECK(s.had_stream() == row.had_stream);
    CHECK((s.transfer() != 0) == row.transfer);
  }
}

TEST_CASE("listen stream: pauses between attempts", "[listen_stream]") {
  using St = Step;
  struct Row {
    const char* path;
    std::vector<Step> steps;
    std::optional<Duration> pause;
  };
  const Row rows[] = {
      {"the first failure waits 1 s", {St::kAsk, St::kEnd}, 1s},
      {"failures that bring nothing double the pause",
       {St::kAsk, St::kEnd, St::kAsk, St::kEnd, St::kAsk, St::kEnd},
       4s},
      {"the pause stops at 60 s",
       {St::kAsk, St::kEnd, St::kAsk, St::kEnd, St::kAsk, St::kEnd, St::kAsk, St::kEnd, St::kAsk,
        St::kEnd, St::kAsk, St::kEnd, St::kAsk, St::kEnd, St::kAsk, St::kEnd},
       60s},
      {"a stream that brought an event starts over at 1 s",
       {St::kAsk, St::kEnd, St::kAsk, St::kEnd, St::kAsk, St::kAnswer, St::kEvent, St::kEnd},
       1s},
      {"a stream past its lifetime reopens without a pause",
       {St::kAsk, St::kEnd, St::kAsk, St::kAnswer, St::kLifetimeOver},
       0s},
      {"a new session starts over at 1 s",
       {St::kAsk, St::kEnd, St::kAsk, St::kEnd, St::kNewSession, St::kAsk, St::kEnd},
       1s},
      {"a stream that was never asked for cannot end", {St::kEnd}, std::nullopt},
  };
  for (const Row& row : rows) {
    INFO(row.path);
    ListenStream s = Fresh();
    CHECK(Run(s, row.steps) == row.pause);
    if (row.pause) {
      REQUIRE(s.wakeup().has_value());
      CHECK(*s.wakeup() == kNow + *row.pause);
      CHECK(s.Due(kNow + *row.pause));
      if (*row.pause > 0s) CHECK_FALSE(s.Due(kNow + *row.pause - 1ms));
    } else {
      CHECK_FALSE(s.wakeup().has_value());
    }
  }
}

}  // namespace
}  // namespace mcpgw::mcp
