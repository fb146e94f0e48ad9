// A transfer's moves, written once.
#include "daemon/net/transfer.h"

#include <cstddef>
#include <utility>

#include "daemon/net/easy_pool.h"

namespace mcpgw::http {

namespace {

struct TransferMove {
  TransferState from;
  TransferEvent on;
  TransferState to;
};
// Anything not listed is a bug of HttpClient's, except kShutdown, which
// releases from any state (On).
constexpr TransferMove kTransferMoves[] = {
    {TransferState::kWaiting, TransferEvent::kPlaceGiven, TransferState::kStarting},
    // Out of its queue at once: it holds nothing curl knows of.
    {TransferState::kWaiting, TransferEvent::kAbort, TransferState::kReleased},
    {TransferState::kStarting, TransferEvent::kAdded, TransferState::kRunning},
    {TransferState::kStarting, TransferEvent::kNotAdded, TransferState::kUnstartable},
    {TransferState::kStarting, TransferEvent::kAbort, TransferState::kAborted},
    {TransferState::kUnstartable, TransferEvent::kEnd, TransferState::kEnded},
    {TransferState::kUnstartable, TransferEvent::kAbort, TransferState::kAborted},
    {TransferState::kRunning, TransferEvent::kHead, TransferState::kReceiving},
    {TransferState::kRunning, TransferEvent::kEnd, TransferState::kEnded},
    {TransferState::kRunning, TransferEvent::kAbort, TransferState::kAborted},
    {TransferState::kReceiving, TransferEvent::kEnd, TransferState::kEnded},
    {TransferState::kReceiving, TransferEvent::kFinish, TransferState::kDraining},
    {TransferState::kReceiving, TransferEvent::kAbort, TransferState::kAborted},
    // A sink told of another transfer's end may abort this one before its
    // own end is told: then it never is.
    {TransferState::kEnded, TransferEvent::kAbort, TransferState::kAborted},
    {TransferState::kEnded, TransferEvent::kRelease, TransferState::kReleased},
    // The stream ended (its connection kept when it ended well), or it is cut.
    {TransferState::kDraining, TransferEvent::kRelease, TransferState::kReleased},
    {TransferState::kDraining, TransferEvent::kCut, TransferState::kAborted},
    {TransferState::kAborted, TransferEvent::kRelease, TransferState::kReleased},
};

// The table as an index by state and event, worked out when compiling: a
// move is one lookup, and a second row for the same state and event does
// not compile.
constexpr size_t kStates = static_cast<size_t>(TransferState::kReleased) + 1;
constexpr size_t kEvents = static_cast<size_t>(TransferEvent::kShutdown) + 1;
struct MoveIndex {
  bool has[kStates][kEvents] = {};
  TransferState to[kStates][kEvents] = {};
};
constexpr MoveIndex IndexMoves() {
  MoveIndex index;
  for (const TransferMove& m : kTransferMoves) {
    const auto from = static_cast<size_t>(m.from);
    const auto on = static_cast<size_t>(m.on);
    if (index.has[from][on]) throw "two moves for one state and event";
    index.has[from][on] = true;
    index.to[from][on] = m.to;
  }
  return index;
}
constexpr MoveIndex kMoveIndex = IndexMoves();

}  // namespace

std::string_view TransferStateName(TransferState s) {
  switch (s) {
    case TransferState::kWaiting:
      return "waiting";
    case TransferState::kStarting:
      return "starting";
    case TransferState::kUnstartable:
      return "unstartable";
    case TransferState::kRunning:
      return "running";
    case TransferState::kReceiving:
      return "receiving";
    case TransferState::kEnded:
      return "ended";
    case TransferState::kDraining:
      return "draining";
    case TransferState::kAborted:
      return "aborted";
    case TransferState::kReleased:
      return "released";
  }
  return "released";
}

std::string_view TransferEventName(TransferEvent e) {
  switch (e) {
    case TransferEvent::kPlaceGiven:
      return "place given";
    case TransferEvent::kAdded:
      return "added";
    case TransferEvent::kNotAdded:
      return "not added";
    case TransferEvent::kHead:
      return "head";
    case TransferEvent::kEnd:
      return "end";
    case TransferEvent::kFinish:
      return "finish";
    case TransferEvent::kAbort:
      return "abort";
    case TransferEvent::kCut:
      return "cut";
    case TransferEvent::kRelease:
      return "release";
    case TransferEvent::kShutdown:
      return "shutdown";
  }
  return "shutdown";
}

bool TransferLife::On(TransferEvent event) {
  if (event == TransferEvent::kShutdown) {
    state_ = TransferState::kReleased;
    return true;
  }
  const auto from = static_cast<size_t>(state_);
  const auto on = static_cast<size_t>(event);
  if (!kMoveIndex.has[from][on]) return false;
  state_ = kMoveIndex.to[from][on];
  return true;
}

Transfer::Transfer(HttpSink* s, uint64_t t, HttpRequest r)
    : sink(s), tag(t), request(std::move(r)) {}

Transfer::~Transfer() = default;

}  // namespace mcpgw::http
