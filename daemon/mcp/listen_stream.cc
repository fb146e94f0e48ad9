// The listen stream's moves, written once, and the back-off between its
// attempts.
#include "daemon/mcp/listen_stream.h"

#include <optional>

#include "base/move_table.h"

namespace mcpgw::mcp {

namespace {

// Anything not listed is ignored: a stream the session offers none of stays
// so until a new session, and a stopped stream has nothing left to end.
constexpr base::Move<ListenState, ListenEvent> kListenMoves[] = {
    {ListenState::kIdle, ListenEvent::kAsked, ListenState::kOpening},
    {ListenState::kRetrying, ListenEvent::kAsked, ListenState::kOpening},
    {ListenState::kOpening, ListenEvent::kAnswered, ListenState::kOpen},
    {ListenState::kOpening, ListenEvent::kRefused, ListenState::kUnsupported},
    // No head in time, an error status, a transport failure.
    {ListenState::kOpening, ListenEvent::kEnded, ListenState::kRetrying},
    // The server closed it, it broke, or its lifetime is over.
    {ListenState::kOpen, ListenEvent::kEnded, ListenState::kRetrying},
    {ListenState::kOpening, ListenEvent::kStopped, ListenState::kIdle},
    {ListenState::kOpen, ListenEvent::kStopped, ListenState::kIdle},
    {ListenState::kRetrying, ListenEvent::kStopped, ListenState::kIdle},
    {ListenState::kIdle, ListenEvent::kNewSession, ListenState::kIdle},
    {ListenState::kOpening, ListenEvent::kNewSession, ListenState::kIdle},
    {ListenState::kOpen, ListenEvent::kNewSession, ListenState::kIdle},
    {ListenState::kRetrying, ListenEvent::kNewSession, ListenState::kIdle},
    {ListenState::kUnsupported, ListenEvent::kNewSession, ListenState::kIdle},
};

}  // namespace

std::string_view ListenStateName(ListenState s) {
  switch (s) {
    case ListenState::kIdle:
      return "idle";
    case ListenState::kOpening:
      return "opening";
    case ListenState::kOpen:
      return "open";
    case ListenState::kRetrying:
      return "retrying";
    case ListenState::kUnsupported:
      return "unsupported";
  }
  return "idle";
}

std::string_view ListenEventName(ListenEvent e) {
  switch (e) {
    case ListenEvent::kAsked:
      return "asked";
    case ListenEvent::kAnswered:
      return "answered";
    case ListenEvent::kRefused:
      return "refused";
    case ListenEvent::kEnded:
      return "ended";
    case ListenEvent::kStopped:
      return "stopped";
    case ListenEvent::kNewSession:
      return "new session";
  }
  return "stopped";
}

bool ListenStream::On(ListenEvent event) {
  const std::optional<ListenState> to = base::FindMove(kListenMoves, state_, event);
  if (!to) return false;
  state_ = *to;
  if (state_ != ListenState::kOpening && state_ != ListenState::kOpen) transfer_ = 0;
  return true;
}

bool ListenStream::Due(TimePoint now) const {
  return state_ == ListenState::kIdle || (state_ == ListenState::kRetrying && now >= retry_at_);
}

std::optional<TimePoint> ListenStream::wakeup() const {
  if (state_ != ListenState::kRetrying) return std::nullopt;
  return retry_at_;
}

void ListenStream::Asked(TransferId id) {
  if (On(ListenEvent::kAsked)) transfer_ = id;
}

void ListenStream::Answered() {
  if (On(ListenEvent::kAnswered)) had_stream_ = true;
}

void ListenStream::Refused() { On(ListenEvent::kRefused); }

// A stream that delivered something may reopen soon; one that did not backs
// off like a failed attempt, so a broken endpoint costs little.
std::optional<Duration> ListenStream::Ended(TimePoint now, bool at_once) {
  if (!On(ListenEvent::kEnded)) return std::nullopt;
  if (at_once) {
    retry_at_ = now;
    return Duration::zero();
  }
  backoff_ = backoff_ == Duration::zero() ? backoff_initial_ : std::min(backoff_ * 2, backoff_max_);
  retry_at_ = now + backoff_;
  return backoff_;
}

void ListenStream::Stopped() { On(ListenEvent::kStopped); }

void ListenStream::NewSession() {
  On(ListenEvent::kNewSession);
  had_stream_ = false;
  backoff_ = Duration::zero();
}

}  // namespace mcpgw::mcp
