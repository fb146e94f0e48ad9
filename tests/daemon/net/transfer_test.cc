// A transfer's machine (daemon/net/transfer.h), one row per path through its
// table: the ways from Start to the last callback or the abort, which events
// move it and which it refuses (HttpClient asserts on those).
#include "daemon/net/transfer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string_view>
#include <vector>

namespace mcpgw::http {
namespace {

struct Row {
  const char* path;
  std::vector<TransferEvent> events;
  TransferState state;
  bool last_moved;  // whether the last event moved the machine
};

TEST_CASE("transfer: moves", "[transfer]") {
  using E = TransferEvent;
  using S = TransferState;
  const Row rows[] = {
      {"a new transfer has no place yet", {}, S::kWaiting, false},
      {"a place, then curl", {E::kPlaceGiven, E::kAdded}, S::kRunning, true},
      {"a JSON answer: head, body, end, reported",
       {E::kPlaceGiven, E::kAdded, E::kHead, E::kEnd, E::kRelease},
       S::kReleased,
       true},
      {"an end without a head (a transport failure) is reported too",
       {E::kPlaceGiven, E::kAdded, E::kEnd},
       S::kEnded,
       true},
      {"a handle that cannot be set up: reported on the next turn",
       {E::kPlaceGiven, E::kNotAdded, E::kEnd, E::kRelease},
       S::kReleased,
       true},
      {"an SSE answer finished by its sink is drained, then released",
       {E::kPlaceGiven, E::kAdded, E::kHead, E::kFinish, E::kRelease},
       S::kReleased,
       true},
      {"a drain whose stream goes on is cut, then released when the pass ends",
       {E::kPlaceGiven, E::kAdded, E::kHead, E::kFinish, E::kCut, E::kRelease},
       S::kReleased,
       true},
      {"a request aborted while it waits leaves at once", {E::kAbort}, S::kReleased, true},
      {"aborted before curl had it", {E::kPlaceGiven, E::kAbort}, S::kAborted, true},
      {"aborted while unstartable: its error is never reported",
       {E::kPlaceGiven, E::kNotAdded, E::kAbort},
       S::kAborted,
       true},
      {"aborted mid-answer, released when the pass ends",
       {E::kPlaceGiven, E::kAdded, E::kHead, E::kAbort, E::kRelease},
       S::kReleased,
       true},
      {"ended, then aborted by another's sink before its end was told",
       {E::kPlaceGiven, E::kAdded, E::kEnd, E::kAbort},
       S::kAborted,
       true},
      // Refused moves change nothing.
      {"no curl before a place", {E::kAdded}, S::kWaiting, false},
      {"a waiting request is not released without an abort", {E::kRelease}, S::kWaiting, false},
      {"no second head", {E::kPlaceGiven, E::kAdded, E::kHead, E::kHead}, S::kReceiving, false},
      {"only a transfer with its head in is drained",
       {E::kPlaceGiven, E::kAdded, E::kFinish},
       S::kRunning,
       false},
      {"a running transfer is never released without its end or an abort",
       {E::kPlaceGiven, E::kAdded, E::kRelease},
       S::kRunning,
       false},
      {"a drained stream's end is no end to report",
       {E::kPlaceGiven, E::kAdded, E::kHead, E::kFinish, E::kEnd},
       S::kDraining,
       false},
      {"an aborted transfer stays aborted",
       {E::kPlaceGiven, E::kAdded, E::kAbort, E::kEnd},
       S::kAborted,
       false},
      {"a released transfer moves no more", {E::kAbort, E::kPlaceGiven}, S::kReleased, false},
      // The client's destruction releases from anywhere.
      {"shutdown while waiting", {E::kShutdown}, S::kReleased, true},
      {"shutdown mid-answer",
       {E::kPlaceGiven, E::kAdded, E::kHead, E::kShutdown},
       S::kReleased,
       true},
      {"shutdown while draining",
       {E::kPlaceGiven, E::kAdded, E::kHead, E::kFinish, E::kShutdown},
       S::kReleased,
       true},
  };
  for (const Row& row : rows) {
    INFO(row.path);
    TransferLife life;
    bool moved = false;
    for (TransferEvent e : row.events) {
      INFO(TransferEventName(e));
      moved = life.On(e);
    }
    CHECK(TransferStateName(life.state()) == TransferStateName(row.state));
    CHECK(moved == row.last_moved);
  }
}

TEST_CASE("transfer: every state and event has a name", "[transfer]") {
  const TransferState states[] = {
      TransferState::kWaiting,  TransferState::kStarting,  TransferState::kUnstartable,
      TransferState::kRunning,  TransferState::kReceiving, TransferState::kEnded,
      TransferState::kDraining, TransferState::kAborted,   TransferState::kReleased,
  };
  std::vector<std::string_view> names;
  for (TransferState s : states) names.push_back(TransferStateName(s));
  std::sort(names.begin(), names.end());
  CHECK(std::unique(names.begin(), names.end()) == names.end());
  CHECK(TransferEventName(TransferEvent::kPlaceGiven) == "place given");
  CHECK(TransferEventName(TransferEvent::kShutdown) == "shutdown");
}

}  // namespace
}  // namespace mcpgw::http
