// A transfer's moves, written once.
#include "daemon/net/transfer.h"

#include <cstddef>
#include <optional>
#include <utility>

#include "base/move_table.h"
#include "daemon/net/easy_pool.h"

namespace mcpgw::http {

namespace {

// Anything not listed is a bug of HttpClient's, except kShutdown, which
// releases from any state (On).
constexpr base::Move<TransferState, TransferEvent> kTransferMoves[] = {
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

// The table indexed by state and event when compiling: a transfer makes
// five moves a call, and base::FindMove's scan of the rows cost about 250
// instructions per call at 32 in flight; a lookup costs next to none. A
// second row for one state and event does not compile.
constexpr size_t kStates = static_cast<size_t>(TransferState::kReleased) + 1;
constexpr size_t kEvents = static_cast<size_t>(TransferEvent::kShutdown) + 1;
struct MoveIndex {
  std::optional<TransferState> to[kStates][kEvents];
};
constexpr MoveIndex IndexMoves() {
  MoveIndex index;
  for (const auto& m : kTransferMoves) {
    std::optional<TransferState>& slot =
        index.to[static_cast<size_t>(m.from)][static_cast<size_t>(m.on)];
    if (slot) throw "two moves for one state and event";
    slot = m.to;
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
  const std::optional<TransferState> to =
      kMoveIndex.to[static_cast<size_t>(state_)][static_cast<size_t>(event)];
  if (!to) return false;
  state_ = *to;
  return true;
}

Transfer::Transfer(HttpSink* s, uint64_t t, HttpRequest r)
    : sink(s), tag(t), request(std::move(r)) {}

Transfer::~Transfer() = default;

}  // namespace mcpgw::http
