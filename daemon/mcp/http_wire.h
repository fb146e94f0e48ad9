// HttpWire: the Streamable HTTP transport of a conversation (wire.h;
// BEHAVIOR.md §3, §5, §6). Every request is a POST whose answer comes as JSON
// or as an event stream; an answer's stream that breaks after an event id is
// resumed with a GET (Last-Event-ID); the 2025 era's session is named by
// Mcp-Session-Id, ended with a DELETE, and forgotten by the server with a
// 404; what the server sends unasked comes on the standalone GET stream (the
// 2025 era) or a subscriptions/listen POST's stream (the 2026 era); the
// stateless era's routing facts become protocol headers. What an HTTP
// outcome means is the classifier's (outcome.h, a pure function); this class
// gathers its facts and carries the verdict out, handing the conversation a
// neutral answer or loss.
//
// It is sans-I/O: it asks its driver for transfers (StartTransfer,
// AbortTransfer) through the session's action list and is told what they
// brought (OnHead, OnData, OnDone). Its session's states and moves are in the
// table in http_wire.cc; the GET stream's are ListenStream's
// (listen_stream.h).
//
// Who owns what: the wire owns its transfers (keyed by TransferId) and a
// record per request it has (keyed by RpcId: its live transfer, and how its
// stream may resume). A transfer is stamped with the generation of the
// session it was sent in; a new attempt bumps it, so what an older
// session's transfers report ends only their own requests.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fifo.h"
#include "base/kept_nodes.h"
#include "config/config.h"
#include "config/secret.h"
#include "daemon/mcp/http_actions.h"
#include "daemon/mcp/listen_stream.h"
#include "daemon/mcp/outcome.h"
#include "daemon/mcp/reminders.h"
#include "daemon/mcp/sse_decoder.h"
#include "daemon/mcp/wire.h"

namespace mcpgw::mcp {

enum class HttpSessionState {
  kNone,     // no session: none opened yet in this attempt, it was given up,
             // or the server speaks the stateless era, which has none
  kOpen,     // an answer to initialize opened one: session_id_ names it (empty
             // when the server uses no id); given up, it is DELETEd
  kClosing,  // shut down while tasks/cancel POSTs are out: the DELETE goes
             // once the last of them ended
  kClosed,   // shut down: nothing starts but the DELETE and tasks/cancel POSTs
};
std::string_view HttpSessionStateName(HttpSessionState s);

enum class HttpSessionEvent {
  kOpened,           // an answer to initialize came with a usable session id (or none)
  kEnded,            // a new attempt began, or the session was given up
  kClose,            // shut down, with no DELETE to wait for
  kCloseAfterTells,  // shut down with a session to DELETE once the tasks/cancel POSTs ended
  kTellsDone,        // the last tasks/cancel ended: the DELETE went
};

class HttpWire final : public Wire {
 public:
  // `out` is the session's action list; `listener` the conversation's.
  HttpWire(config::RemoteServer server, SessionLimits limits, std::vector<Action>* out);
  HttpWire(const HttpWire&) = delete;
  HttpWire& operator=(const HttpWire&) = delete;

  void SetListener(WireListener* listener) { listener_ = listener; }
  // Every later request carries `Authorization: <value>`; empty = none.
  void SetAuthorization(Secret value) { authorization_ = std::move(value); }

  // --- what the driver's transfers brought ---
  void OnHead(TransferId id, const ResponseHead& head, TimePoint now) {
    receiver_.OnHead(id, head, now);
  }
  void OnData(TransferId id, std::string_view bytes, TimePoint now) {
    receiver_.OnData(id, bytes, now);
  }
  void OnDone(TransferId id, const TransferResult& result, TimePoint now) {
    receiver_.OnDone(id, result, now);
  }

  // --- Wire ---
  void Begin(TimePoint now) override;
  void Abandon(std::string_view expired, TimePoint now) override;
  void Opened(std::string_view version) override;
  void Confirm(std::string body, TimePoint deadline, std::string timeout_reason,
               TimePoint now) override;
  void Close(TimePoint now) override;
  void Send(OutRequest request, TimePoint now) override;
  void Drop(RpcId id) override;
  bool Cancel(RpcId id, std::string notice, bool keep_reading, TimePoint now) override;
  void Reply(std::string body, From to, TimePoint now) override;
  void Tell(std::string body, TimePoint now) override;
  void Listen(Listening how, TimePoint now) override;
  void StopListening() override;
  void AskCredentials() override;
  void OnTimer(TimePoint now) override;
  std::optional<TimePoint> NextWakeup() const override;
  void AfterEvent(TimePoint now) override;

 private:
  // Why a transfer exists. kTell: tasks/cancel, sent like a notification
  // (its answer is not read), and also while shutting down, before the DELETE.
  enum class Purpose { kRequest, kConfirm, kNotify, kListen, kDelete, kTell };
  struct Transfer {
    Purpose purpose = Purpose::kNotify;
    HttpMethod method = HttpMethod::kPost;
    RpcId rpc_id = 0;              // kRequest
    uint64_t gen = 0;              // the session it belongs to
    bool carried_session = false;  // sent an Mcp-Session-Id
    bool modern = false;           // sent on the 2026-07-28 wire
    TimePoint deadline;            // all but kRequest (the conversation's deadlines)
    bool head = false;             // the response head arrived
    int http_status = 0;
    BodyKind body = BodyKind::kNone;  // what its head said is being read
    // An error status whose JSON body is read to learn what it means (the
    // modern wire's errors, a discover probe's answer).
    bool error_body = false;
    std::string json;
    std::unique_ptr<SseDecoder> sse;
    size_t bytes_in = 0;
    // Its stream carried the response it was for: whatever follows is of
    // no use, and the transport may read it to keep the connection.
    bool answered = false;
  };
  // A request the wire has: sent, and its answer not yet in. It may span
  // several transfers: the POST and GETs resuming its event stream.
  struct Out {
    Role role = Role::kRead;
    bool resent = false;
    bool modern = false;
    uint64_t gen = 0;           // the session its POST went to
    TransferId transfer = 0;    // the live transfer, 0 while a resumption waits
    std::string last_event_id;  // for Last-Event-ID when its stream breaks
    std::optional<long> retry_ms;
    int resumes = 0;  // resumptions in a row without a new event
    std::optional<TimePoint> resume_at;
    std::string head_session_id;  // kOpen: Mcp-Session-Id of its response
  };
  // A notification or reply waiting for one of the bounded POST slots.
  struct Notice {
    std::string body;
    uint64_t gen;
    bool must;          // a cancellation: never dropped while its session lives
    bool tell = false;  // tasks/cancel (Purpose::kTell)
  };
  enum Remind : uint8_t { kResume = 1, kTransferDeadline = 2 };

  // --- sending (http_wire.cc) ---
  TransferId Start(Purpose purpose, HttpMethod method, std::string body, RpcId rpc_id,
                   TimePoint deadline, const Routing* routing = nullptr,
                   std::string_view last_event_id = {});
  void Abort(TransferId id);
  // Ends the transfers tied to session `gen` itself: its stream, its handshake.
  void AbortGeneration(uint64_t gen);
  void Enqueue(Notice notice, TimePoint now);
  void OpenListen(TimePoint now);
  void ListenEnded(TimePoint now, bool at_once = false);
  void Move(HttpSessionEvent event);
  void AfterTell(TimePoint now);
  void AddReminder(Remind what, uint64_t id, TimePoint at);
  void Log(LogLevel level, std::string text);

  // The receiving side (http_wire_receive.cc): what the driver's transfers
  // bring, turned into the facts of an outcome for the classifier, and its
  // verdict carried out: an answer delivered, a stream resumed, a loss or
  // the server's own messages reported to the conversation.
  class Receiver {
   public:
    explicit Receiver(HttpWire& wire) : w_(wire) {}
    void OnHead(TransferId id, const ResponseHead& head, TimePoint now);
    void OnData(TransferId id, std::string_view bytes, TimePoint now);
    void OnDone(TransferId id, const TransferResult& result, TimePoint now);
    void OnTransferTimeout(TransferId id, TimePoint now);

   private:
    Outcome FactsOf(const Transfer& t) const;
    void OnRequestHead(TransferId id, Transfer& t, const ResponseHead& head, TimePoint now);
    void OnListenHead(TransferId id, Transfer& t, const ResponseHead& head, TimePoint now);
    void OnInvalid(TransferId id, const std::string& why, TimePoint now);
    void OnRequestDone(Transfer& t, Outcome facts, TimePoint now);
    void HandleEvent(TransferId id, const SseEvent& event, TimePoint now);
    // Request `rpc_id`'s answer came: its record ends, the conversation hears.
    void Deliver(RpcId rpc_id, const Answer& answer, TimePoint now);
    // What the classifier said of a request without an answer.
    void Settle(RpcId rpc_id, const Verdict& verdict, int http_status,
                const rapidjson::Value* message, TimePoint now);

    HttpWire& w_;
  };

  config::RemoteServer server_;
  SessionLimits limits_;
  std::vector<Action>* out_;
  WireListener* listener_ = nullptr;
  Secret authorization_;

  HttpSessionState state_ = HttpSessionState::kNone;
  // The session: its id (empty when the server uses none), the negotiated
  // version, and its generation, bumped by every attempt.
  std::string session_id_;
  std::string version_;
  uint64_t gen_ = 0;

  std::map<TransferId, Transfer> transfers_;
  base::KeptNodes<std::map<TransferId, Transfer>> kept_transfers_;
  TransferId next_transfer_ = 1;
  std::map<RpcId, Out> outs_;
  base::KeptNodes<std::map<RpcId, Out>> kept_outs_;
  TransferId confirm_transfer_ = 0;
  std::string confirm_timeout_;  // what the attempt fails with when it is late
  // When resumptions and the deadlines of transfers that are no request fall.
  Reminders reminders_;

  base::Fifo<Notice> notices_;
  size_t notify_transfers_ = 0;  // notification and reply POSTs in flight (bounded)
  size_t dropped_replies_ = 0;   // replies to a flooding server not sent, not yet logged

  // What the server sends unasked: wanted while the conversation serves.
  ListenStream listen_;
  bool listening_ = false;
  Listening listen_how_ = Listening::kSession;

  // The last refusal for lack of credentials (AskCredentials passes it on).
  int refusal_status_ = 0;
  std::string refusal_challenge_;

  Receiver receiver_{*this};
};

}  // namespace mcpgw::mcp
