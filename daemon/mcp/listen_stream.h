// ListenStream: the session's stream for what the server sends unasked — the
// standalone GET stream of a 2025-11-25 session, a subscriptions/listen
// request on the 2026-07-28 wire (BEHAVIOR.md §3, §6). It belongs to one
// upstream session: a new session starts it afresh. Passive: the HTTP wire (http_wire.h)
// starts and aborts the transfers, reports what became of them and asks when
// to open it; every move is in the table in listen_stream.cc.
#pragma once

#include <optional>
#include <string_view>

#include "daemon/mcp/http_actions.h"

namespace mcpgw::mcp {

enum class ListenState {
  kIdle,         // none open and none due: opened as soon as the session serves
                 // (not before ready, not while credentials are awaited)
  kOpening,      // asked for; its response head is due within the request deadline
  kOpen,         // answered with an event stream; closed and opened afresh after
                 // its lifetime
  kRetrying,     // ended; asked for again at retry_at (at once after a full
                 // lifetime, else after a back-off that doubles while streams
                 // bring nothing, from 1 s to 60 s)
  kUnsupported,  // this session offers none (405; 404 before any stream; a 4xx to
                 // subscriptions/listen): not asked again until a new session
};
std::string_view ListenStateName(ListenState s);

enum class ListenEvent {
  kAsked,       // the request went out
  kAnswered,    // 2xx with text/event-stream
  kRefused,     // the session offers none
  kEnded,       // it ended, broke, or hung (no head in time, or its lifetime is over)
  kStopped,     // the session stops serving (credentials awaited, session
                // abandoned, shutdown): the transfer was aborted
  kNewSession,  // a new upstream session: nothing of the old one's stream counts
};
std::string_view ListenEventName(ListenEvent e);

class ListenStream {
 public:
  ListenStream(Duration backoff_initial, Duration backoff_max)
      : backoff_initial_(backoff_initial), backoff_max_(backoff_max) {}
  ListenStream(const ListenStream&) = delete;
  ListenStream& operator=(const ListenStream&) = delete;

  ListenState state() const { return state_; }
  // The live transfer (kOpening, kOpen), else 0.
  TransferId transfer() const { return transfer_; }
  // This session's stream was open once: a 404 to a later GET means the
  // session expired, not that it offers no stream.
  bool had_stream() const { return had_stream_; }
  // Whether to ask for it now: kIdle, or kRetrying once retry_at has come.
  bool Due(TimePoint now) const;
  // When kRetrying asks again.
  std::optional<TimePoint> wakeup() const;

  // The events; each is one move of the table, ignored when it gives none.
  void Asked(TransferId id);
  void Answered();
  void Refused();
  // Returns the delay before it is asked again, or nullopt when ignored.
  // `at_once`: it lived out its lifetime and is opened afresh without a pause.
  std::optional<Duration> Ended(TimePoint now, bool at_once);
  void Stopped();
  void NewSession();
  // The stream brought an event: the next back-off starts from 1 s again.
  void Progress() { backoff_ = Duration::zero(); }

 private:
  // The one function that changes state_: the move the table gives for
  // `event`, or false when it gives none.
  bool On(ListenEvent event);

  Duration backoff_initial_;
  Duration backoff_max_;
  ListenState state_ = ListenState::kIdle;
  TransferId transfer_ = 0;
  bool had_stream_ = false;
  TimePoint retry_at_{};
  Duration backoff_{};  // the last pause; zero after a stream that brought events
};

}  // namespace mcpgw::mcp
