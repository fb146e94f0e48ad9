// Session::Impl: the state behind the Session facade, shared by
// session.cc (lifecycle: attempts, back-off, re-initialisation, listing,
// calls) and session_wire.cc (transfers: response heads, JSON and SSE bodies,
// resumption, server requests). Internal to daemon/mcp.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/session.h"
#include "daemon/mcp/sse_decoder.h"

namespace mcpgw::mcp {

// "2 min", "30 s", "250 ms": how long a bound was, for reasons.
std::string DescribeDuration(Duration d);
// "16 MiB", "512 KiB", "100 bytes".
std::string DescribeSize(size_t bytes);

struct Session::Impl {
  // A JSON-RPC request the client sent and still waits on. It may span
  // several transfers: the POST, GETs resuming its SSE stream, and one resend
  // after the session expired (HTTP 404).
  enum class Kind { kInitialize, kListTools, kCall };
  struct Request {
    Kind kind = Kind::kCall;
    RpcId rpc_id = 0;
    std::string body;
    TimePoint deadline;
    Duration budget{};          // how long it may take, for the timeout reason
    TransferId transfer = 0;    // the live transfer, 0 when none
    bool resent = false;        // already retried once after a 404
    std::string last_event_id;  // for Last-Event-ID when its stream breaks
    std::optional<long> retry_ms;
    int resumes = 0;  // resumptions in a row without a new event
    std::optional<TimePoint> resume_at;
    std::string head_session_id;  // initialize: Mcp-Session-Id of its response
    // Calls only.
    CallId call_id = 0;
    std::string params;
    size_t bytes_out = 0;
    size_t bytes_in = 0;
  };

  // Why a transfer exists.
  enum class Purpose { kRequest, kInitialized, kNotify, kListen, kDelete };
  enum class BodyKind { kUnknown, kJson, kSse };
  struct Transfer {
    Purpose purpose = Purpose::kNotify;
    HttpMethod method = HttpMethod::kPost;
    RpcId rpc_id = 0;              // kRequest
    bool carried_session = false;  // sent an Mcp-Session-Id
    uint64_t session_gen = 0;      // which session it was sent in
    int http_status = 0;
    BodyKind body = BodyKind::kUnknown;
    std::string json;
    std::unique_ptr<SseDecoder> sse;
    size_t bytes_in = 0;
  };

  // Handshake progress: initialize, then notifications/initialized. An
  // attempt then lists tools and becomes ready; a re-initialisation (session
  // expired while ready) resends the requests waiting on it.
  enum class Step { kNone, kInitialize, kInitialized };

  struct Listing {
    bool active = false;
    bool for_attempt = false;
    bool again = false;  // list_changed arrived meanwhile: list once more after
    ToolList tools;
    // Hashes of the cursors seen: a repeated cursor ends the listing. Hashes
    // keep the memory bounded whatever the cursors' length.
    std::unordered_set<size_t> cursors;
    int pages = 0;
  };

  Impl(std::string name, config::RemoteServer server, SessionLimits limits);

  // session.cc: lifecycle.
  void Start(TimePoint now);
  void StartAttempt(TimePoint now);
  void BeginHandshake(bool reinit, TimePoint now);
  void SendInitialized(TimePoint now);
  void HandshakeDone(TimePoint now);
  void FailHandshake(const std::string& reason, TimePoint now);
  void FailAttempt(const std::string& reason, TimePoint now);
  void StartListing(bool for_attempt, TimePoint now);
  void RequestPage(const std::optional<std::string>& cursor, TimePoint now);
  void OnPage(const rapidjson::Value& result, TimePoint now);
  void FailListing(const std::string& reason, TimePoint now);
  void ToolsChanged(TimePoint now);
  void Call(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  void Cancel(CallId id, TimePoint now);
  void Shutdown(TimePoint now);
  void OnTimer(TimePoint now);
  std::optional<TimePoint> NextWakeup() const;
  void SetState(Status status, std::string reason);
  void FinishCall(Request& req, CallErrorKind kind, std::string text);
  void DropRequest(RpcId rpc_id);
  void Dispatch(Request& req, TimePoint now);
  void OnInitializeResponse(const Message& msg, const std::string& session_id, TimePoint now);

  // session_wire.cc: transfers.
  TransferId StartHttp(Purpose purpose, HttpMethod method, std::string body, RpcId rpc_id,
                       std::vector<std::pair<std::string, std::string>> extra_headers = {});
  void Abort(TransferId id);
  void SendRequest(Request& req);
  void Resume(Request& req);
  void Notify(std::string body);
  void OpenListen(TimePoint now);
  void ListenEnded(TimePoint now);
  void OnHead(TransferId id, int http_status, std::string_view content_type,
              std::string_view session_id, TimePoint now);
  void OnData(TransferId id, std::string_view bytes, TimePoint now);
  void OnDone(TransferId id, const TransferResult& result, TimePoint now);
  void OnRequestEnded(TransferId id, TimePoint now);
  void HandleEvent(TransferId id, const SseEvent& event, TimePoint now);
  void HandleServerMessage(const Message& msg, TimePoint now);
  void OnResponse(RpcId rpc_id, const Message& msg, TimePoint now);
  void FailRequest(RpcId rpc_id, const std::string& reason, TimePoint now);
  bool ExpiredSessionRetry(const Transfer& t, TimePoint now);

  std::string name_;
  config::RemoteServer server_;
  SessionLimits limits_;

  Status status_ = Status::kLoading;
  std::string reason_;
  std::shared_ptr<const ToolList> tools_;
  std::string protocol_version_;
  std::string session_id_;
  uint64_t session_gen_ = 0;
  bool started_ = false;
  bool shutting_down_ = false;

  Step step_ = Step::kNone;
  bool reinit_ = false;        // the handshake under way re-initialises a ready server
  bool session_lost_ = false;  // a re-initialisation failed: the next request starts one
  TransferId initialized_transfer_ = 0;
  std::optional<TimePoint> step_deadline_;  // of the initialized notification
  Duration step_budget_{};
  std::optional<TimePoint> attempt_deadline_;
  std::optional<TimePoint> retry_at_;
  Duration backoff_{};
  Listing listing_;

  std::map<RpcId, Request> requests_;
  std::deque<RpcId> waiting_;  // requests to send once the new session is up
  std::map<CallId, RpcId> calls_;
  std::map<TransferId, Transfer> transfers_;
  TransferId next_transfer_ = 1;
  RpcId next_rpc_id_ = 1;
  size_t notify_transfers_ = 0;  // live replies and notifications (bounded)

  // The standalone GET stream for server notifications.
  TransferId listen_transfer_ = 0;
  bool listen_unsupported_ = false;
  bool listen_progress_ = false;
  std::optional<TimePoint> listen_retry_at_;
  Duration listen_backoff_{};

  std::vector<Action> actions_;
};

}  // namespace mcpgw::mcp
