// The session's stream for what the server sends unasked (BEHAVIOR.md §3,
// §6): the standalone GET stream of a 2025-11-25 session, a
// subscriptions/listen request on the 2026-07-28 wire when the server said it
// sends tools/list_changed. Its states and moves are ListenStream's
// (listen_stream.h), what a response means is the classifier's (outcome.h);
// this file starts and ends the transfers. Transfers in general live in
// session_wire.cc and session_receive.cc.
#include "base/text.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

void Session::Impl::OpenListen(TimePoint now) {
  if (!Serving() || !listen_.Due(now)) return;
  if (era_.modern()) {
    if (!tools_list_changed_) return;
    const RpcId id = next_rpc_id_++;
    listen_.Asked(StartHttp(
        Purpose::kListen, HttpMethod::kPost,
        BuildRequest(id, "subscriptions/listen", ListenParams(protocol_version_, kClientVersion)),
        0, now));
    return;
  }
  if (!have_session_) return;
  listen_.Asked(StartHttp(Purpose::kListen, HttpMethod::kGet, "", 0, now));
}

// The session stops serving for a while (credentials are awaited).
void Session::Impl::StopListen() {
  Abort(listen_.transfer());
  listen_.Stopped();
}

void Session::Impl::ListenEnded(TimePoint now, bool at_once) {
  if (phase_ == Phase::kClosed) return;
  const std::optional<Duration> delay = listen_.Ended(now, at_once);
  if (!delay || at_once) return;
  Log(LogLevel::kDebug, std::string(era_.modern() ? "subscriptions/listen" : "GET") +
                            " stream ended; reopening it in " + base::DescribeDuration(*delay));
}

void Session::Impl::OnListenHead(TransferId id, Transfer& t, const ResponseHead& head,
                                 TimePoint now) {
  // Only the current session's stream is ever open (AbortGeneration).
  if (id != listen_.transfer()) return Abort(id);
  const std::string media = MediaType(head.content_type);
  Outcome facts = FactsOf(t);
  facts.media = media;
  const Verdict verdict = Classify(facts);
  if (verdict.remedy == Remedy::kOpenStream) {
    t.body = BodyKind::kSse;
    t.sse = std::make_unique<SseDecoder>(limits_.max_sse_event_bytes);
    t.deadline = now + limits_.listen_lifetime;
    Remind(Reminder::What::kTransferDeadline, id, t.deadline);
    listen_.Answered();
    return;
  }
  Abort(id);
  switch (verdict.remedy) {
    case Remedy::kNoStream:
      listen_.Refused();
      Log(LogLevel::kDebug, verdict.reason);
      return;
    case Remedy::kSessionExpired:
      return SessionExpired(verdict.reason, now);
    default:
      return ListenEnded(now);
  }
}

}  // namespace mcpgw::mcp
