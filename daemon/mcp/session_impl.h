// Session::Impl: the state behind the Session facade. Internal to daemon/mcp.
// Its files:
//   session.cc         phases: the table of allowed moves, EnterPhase (every
//                      phase change and its entry work), attempts, back-off,
//                      timers, shutdown
//   session_auth.cc    the authorization hold: waiting for credentials and
//                      carrying on where the refusal struck
//   session_calls.cc   requests: listing tools, calls, cancellation, and
//                      carrying out what the classifier (outcome.h) says of
//                      a request that ended without an answer
//   session_wire.cc    transfers sent: per-request headers, aborts,
//                      resumption, the notification queue
//   session_receive.cc transfers received: response heads, bodies (JSON or
//                      SSE, bounded) and ends turned into the facts each
//                      outcome is classified from; server messages
//   session_listen.cc  the GET stream (subscriptions/listen on the modern wire)
//   session_era.cc     the protocol era: the server/discover probe and its
//                      verdict, noticing that a server changed era, and
//                      building each request for the wire it is sent on
//                      (2026-07-28's _meta and headers, or 2025-11-25's)
//   session_tasks.cc   calls made as tasks: the task-augmented tools/call,
//                      polling tasks/get, fetching tasks/result, cancelling
// Three small machines sit beside the phase, each with its own enum and
// table of moves: AuthHold (auth_hold.h), ListenStream (listen_stream.h) and
// Era (era.h); each call made as a task has a TaskCall (task_call.h). What an HTTP outcome means is
// decided by Classify (outcome.h), a pure function; the session gathers the facts and carries out
// the remedy.
//
// Who owns what: the session owns its requests (keyed by JSON-RPC id) and its
// transfers (keyed by TransferId). A request points at its live transfer; a
// transfer names its request and the generation of the upstream session it
// was sent in. A new upstream session bumps the generation: the GET stream of
// an older one is aborted, and what its other transfers report can only end
// their own requests (through the classifier), never change the session.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_set>
#include <vector>

#include "daemon/mcp/auth_hold.h"
#include "daemon/mcp/era.h"
#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/listen_stream.h"
#include "daemon/mcp/outcome.h"
#include "daemon/mcp/param_headers.h"
#include "daemon/mcp/session.h"
#include "daemon/mcp/sse_decoder.h"
#include "daemon/mcp/task_call.h"

namespace mcpgw::mcp {

// The version the client names in clientInfo.
#ifdef MCPGW_VERSION
inline constexpr std::string_view kClientVersion = MCPGW_VERSION;
#else
inline constexpr std::string_view kClientVersion = "0.0.0";
#endif

struct Session::Impl {
  // A JSON-RPC request the client sent, or will send, and waits on. It may
  // span several transfers: the POST, GETs resuming its SSE stream, and one
  // resend in a new session when the server answered that very POST 404 (or
  // 400 in a way that says its era changed).
  // A call's requests: kCall (tools/call; task-augmented when as_task), and
  // for a call made as a task kTaskGet and kTaskResult (reads of its task).
  enum class Kind { kDiscover, kInitialize, kListTools, kCall, kTaskGet, kTaskResult };
  static bool ForCall(Kind kind) {
    return kind == Kind::kCall || kind == Kind::kTaskGet || kind == Kind::kTaskResult;
  }
  struct Request {
    Kind kind = Kind::kCall;
    RpcId rpc_id = 0;
    // What the request asks; its body and protocol headers are built from
    // these for the wire it is sent on, each time it is sent (BuildWire).
    std::string tool;                   // kCall
    std::string arguments;              // kCall: the host's bytes, never re-serialized
    std::optional<std::string> cursor;  // kListTools
    std::string version;                // kDiscover: the version asked about
    bool as_task = false;               // kCall: task-augmented (its call is in task_calls_)
    std::string task_id;                // kTaskGet, kTaskResult: never logged
    bool modern = false;                // last sent on the modern wire
    std::string body;
    std::vector<std::pair<std::string, std::string>> wire_headers;
    TimePoint deadline;
    Duration budget{};          // how long it may take, for the timeout reason
    TransferId transfer = 0;    // the live transfer, 0 when none
    uint64_t gen = 0;           // the session its POST went to; 0 while never sent
    bool resent = false;        // already sent again once (after a 404 or a 400)
    std::string last_event_id;  // for Last-Event-ID when its stream breaks
    std::optional<long> retry_ms;
    int resumes = 0;  // resumptions in a row without a new event
    std::optional<TimePoint> resume_at;
    std::string head_session_id;  // initialize: Mcp-Session-Id of its response
    // A call's requests only.
    CallId call_id = 0;
    std::string params;
    size_t bytes_out = 0;
    size_t bytes_in = 0;
  };

  // Why a transfer exists.
  // kCancelTask: tasks/cancel, sent like a notification (its answer is not
  // read), and also while shutting down, before the DELETE.
  enum class Purpose { kRequest, kInitialized, kNotify, kListen, kDelete, kCancelTask };
  struct Transfer {
    Purpose purpose = Purpose::kNotify;
    HttpMethod method = HttpMethod::kPost;
    RpcId rpc_id = 0;              // kRequest
    uint64_t gen = 0;              // the upstream session it belongs to
    bool carried_session = false;  // sent an Mcp-Session-Id
    bool modern = false;           // sent on the 2026-07-28 wire
    TimePoint deadline;
    bool head = false;  // the response head arrived
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

  // A notification or reply waiting for one of the kMaxNotifyTransfers slots.
  struct Notice {
    std::string body;
    uint64_t gen;
    bool must;                 // a cancellation: never dropped while its session lives
    bool cancel_task = false;  // tasks/cancel (Purpose::kCancelTask)
  };

  // A call made as a task (session_tasks.cc): its machine, the request of
  // the call that is out or queued now, and the task once the server named it.
  struct TaskRun {
    TaskCall machine;
    RpcId rpc = 0;  // 0 between polls
    TimePoint deadline;
    Duration budget{};
    std::optional<TaskInfo> task;
    std::optional<TimePoint> poll_at;  // the next tasks/get (tasks/result when fetching)
    // The server's last pollInterval (bounded), else the default.
    std::chrono::milliseconds interval = kDefaultPollInterval;
    bool failed = false;       // status failed: tasks/result's text is a backend error
    int polls = 0;             // tasks/get sent
    std::string last_failure;  // the last read that failed and was asked again
    // For the call log: the tools/call's params once sent, and the bytes of
    // every request of the call that ended.
    std::string params;
    size_t bytes_out = 0;
    size_t bytes_in = 0;
  };

  struct Listing {
    bool active = false;
    bool again = false;  // list_changed arrived meanwhile: list once more after
    ToolList tools;
    // Hashes of the cursors seen: a repeated cursor ends the listing. Hashes
    // keep the memory bounded whatever the cursors' length.
    std::unordered_set<size_t> cursors;
    int pages = 0;
    // The modern wire: each tool's x-mcp-header annotations (tools without
    // any are absent), the tools refused for invalid ones, and how long the
    // listing stays fresh (the shortest ttlMs of its pages).
    std::map<std::string, ParamHeaders> param_headers;
    std::vector<std::string> refused;
    std::optional<Duration> ttl;
  };

  Impl(std::string name, config::RemoteServer server, SessionLimits limits);

  // session.cc: phases.
  void EnterPhase(Phase next, TimePoint now);
  void NewAttempt(TimePoint now);
  void SendInitialize(TimePoint now);
  void OnInitializeResponse(const Message& msg, const std::string& session_id, TimePoint now);
  void HandshakeDone(TimePoint now);
  void FailAttempt(const std::string& reason, TimePoint now);
  void SessionExpired(const std::string& why, TimePoint now);
  void AbandonSession(bool expired, TimePoint now);
  // Ready and not waiting for credentials: requests go out at once.
  bool Serving() const;
  void ServeWaiting(TimePoint now);
  void Start(TimePoint now);
  void Shutdown(TimePoint now);
  void OnTimer(TimePoint now);
  void ExpireRequest(RpcId rpc_id, TimePoint now);
  std::optional<TimePoint> NextWakeup() const;
  Status status() const;
  void Publish();
  void Log(LogLevel level, std::string text);

  // session_auth.cc: the authorization hold.
  bool CanHold() const;
  void NeedAuthorization(int http_status, std::string_view www_authenticate);
  void OnAuthorized(TimePoint now);
  void OnAuthorizationFailed(const std::string& reason, TimePoint now);

  // session_calls.cc: requests.
  Request& NewRequest(Kind kind, TimePoint deadline, Duration budget);
  void StartListing(TimePoint now);
  void RequestPage(const std::optional<std::string>& cursor, TimePoint now);
  void OnPage(const rapidjson::Value& result, TimePoint now);
  void FailListing(const std::string& reason, TimePoint now);
  void ToolsChanged(TimePoint now);
  void Call(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  void Cancel(CallId id, TimePoint now);
  void Dispatch(Request& req, TimePoint now);
  void SendWaiting(TimePoint now);
  void FinishCall(Request& req, CallErrorKind kind, std::string text);
  void DropRequest(RpcId rpc_id);
  void OnResponse(RpcId rpc_id, const Message& msg, TimePoint now);
  bool Resumable(const Request& req) const;
  void Settle(RpcId rpc_id, const Verdict& verdict, int http_status,
              const rapidjson::Value* message, TimePoint now);
  void SendAgain(Request& req, const Verdict& verdict, TimePoint now);
  void ScheduleResume(Request& req, const std::string& why, TimePoint now);
  void FailRequest(Request& req, const Verdict& verdict, TimePoint now);
  void FailWaiting(const std::string& why, TimePoint now);
  static std::pair<CallErrorKind, std::string> CallResultOf(const Message& msg);

  // session_tasks.cc: calls made as tasks.
  void CallAsTask(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  void OnTaskAnswer(Request& req, const Message& msg, TimePoint now);
  void OnTaskCreated(CallId id, TaskRun& run, const Message& msg, TimePoint now);
  void OnTaskStatus(CallId id, TaskRun& run, TaskInfo info, TimePoint now);
  void OnTaskPolled(CallId id, TaskRun& run, const Message& msg, TimePoint now);
  void OnTaskResult(CallId id, TaskRun& run, const Message& msg, TimePoint now);
  void OnTaskRequestFailed(Request& req, const Verdict& verdict, TimePoint now);
  void OnTaskRequestLate(Request& req, TimePoint now);
  void OnTaskRequestAbandoned(Request& req, const std::string& why, TimePoint now);
  void RetryTaskRead(CallId id, TaskRun& run, const std::string& why, TimePoint now);
  void SendTaskRead(CallId id, TaskRun& run, TimePoint now);
  void EndTaskRequest(TaskRun& run, Request& req);
  void SettleTask(CallId id, TaskRun& run, CallErrorKind kind, std::string text, bool cancel,
                  TimePoint now);
  void FinishTaskCall(CallId id, const TaskRun& run, CallErrorKind kind, std::string text);
  void LeaveTaskCall(CallId id, TaskRun& run, const std::string& why, bool finish, TimePoint now);
  bool TaskCallLeft(CallId id) const;
  void CancelTaskCall(CallId id, TimePoint now);
  void TaskDeadline(CallId id, TimePoint now);
  void SendTaskCancel(const std::string& task_id, TimePoint now);
  void TaskTimers(TimePoint now);
  void TaskWakeups(std::optional<TimePoint>& next) const;
  void ShutdownTasks(TimePoint now);
  void AfterTaskCancel(TimePoint now);

  // session_wire.cc: transfers sent.
  TransferId StartHttp(Purpose purpose, HttpMethod method, std::string body, RpcId rpc_id,
                       TimePoint now, std::string_view last_event_id = {});
  std::vector<std::pair<std::string, std::string>> RequestHeaders(const Transfer& t,
                                                                  std::string_view last_event_id,
                                                                  bool initialize) const;
  void Abort(TransferId id);
  void AbortGeneration(uint64_t gen);
  void SendRequest(Request& req, TimePoint now);
  void Resume(Request& req, TimePoint now);
  void Notify(std::string body, bool must, uint64_t gen, TimePoint now);
  void PumpNotices(TimePoint now);
  void StartDelete(TimePoint now);

  // session_receive.cc: what transfers report.
  Outcome FactsOf(const Transfer& t) const;
  void OnHead(TransferId id, const ResponseHead& head, TimePoint now);
  void OnRequestHead(TransferId id, Transfer& t, const ResponseHead& head, TimePoint now);
  void OnData(TransferId id, std::string_view bytes, TimePoint now);
  void OnInvalid(TransferId id, const std::string& why, TimePoint now);
  void OnDone(TransferId id, const TransferResult& result, TimePoint now);
  void OnRequestDone(Transfer& t, Outcome facts, TimePoint now);
  void OnTransferTimeout(TransferId id, TimePoint now);
  void HandleEvent(TransferId id, const SseEvent& event, TimePoint now);
  void HandleServerMessage(const Message& msg, uint64_t gen, TimePoint now);

  // session_listen.cc: the GET stream.
  void OpenListen(TimePoint now);
  void StopListen();
  void ListenEnded(TimePoint now, bool at_once = false);
  void OnListenHead(TransferId id, Transfer& t, const ResponseHead& head, TimePoint now);

  // session_era.cc: the protocol era.
  Phase AttemptPhase() const;
  void SendDiscover(std::string version, bool retried, TimePoint now);
  void OnDiscoverAnswer(RpcId rpc_id, int http_status, const rapidjson::Value* message,
                        TimePoint now);
  void OnDiscoverTimeout(RpcId rpc_id, TimePoint now);
  bool ProbeAfterInitialize(const std::string& why, TimePoint now);
  void EraMayHaveChanged(const std::string& why, TimePoint now);
  void BuildWire(Request& req, TimePoint now);
  bool ReadAnnotations(const rapidjson::Value& result);
  void RefreshIfStale(TimePoint now);

  std::string name_;
  config::RemoteServer server_;
  SessionLimits limits_;
  Secret authorization_;

  Phase phase_ = Phase::kIdle;
  bool served_ = false;    // reached kReady once: the status stays ready
  uint64_t attempts_ = 0;  // attempts begun (NewAttempt): the first and every reconnect
  std::string reason_;     // why the last attempt failed (status error before ready)
  std::shared_ptr<const ToolList> tools_;
  std::string protocol_version_;

  // The protocol era (session_era.cc) and what the modern wire learnt.
  Era era_;
  bool tools_list_changed_ = false;  // modern: the server sends tools/list_changed
  std::map<std::string, ParamHeaders> param_headers_;  // modern: by tool name
  std::optional<TimePoint> fresh_until_;               // modern: the listing's ttlMs
  std::optional<TimePoint> listed_at_;                 // modern: the last listing began

  // The upstream session: its id (empty when the server uses none) and its
  // generation, bumped by every initialize sent.
  std::string session_id_;
  uint64_t gen_ = 0;
  bool have_session_ = false;  // initialize answered: session_id_ names a live session

  std::optional<TimePoint> attempt_deadline_;  // handshake and listing of a new session
  std::optional<TimePoint> retry_at_;          // kBackingOff
  Duration backoff_{};
  TransferId initialized_transfer_ = 0;
  Listing listing_;
  // Requests refused for lack of authorization wait here (session_auth.cc).
  AuthHold auth_;

  std::map<RpcId, Request> requests_;
  std::deque<RpcId> waiting_;      // requests to send once the session is ready
  std::map<CallId, RpcId> calls_;  // calls made as plain tools/call
  // Calls made as tasks (a tool whose execution.taskSupport is "required"),
  // from their tools/call to their outcome (session_tasks.cc).
  std::map<CallId, TaskRun> task_calls_;
  bool tasks_declared_ = false;  // initialize declared tasks.requests.tools.call
  bool tasks_undeclared_noted_ = false;
  // Shutting down: the DELETE waits for the tasks/cancel POSTs to end.
  bool delete_after_task_cancels_ = false;
  std::map<TransferId, Transfer> transfers_;
  TransferId next_transfer_ = 1;

  // When the requests' deadlines and resumptions and the other transfers'
  // deadlines fall, earliest first, so NextWakeup costs no scan of them all
  // (thousands in flight): every time set is pushed (Remind), and an entry
  // whose request or transfer is gone, or whose time was replaced, is
  // dropped when it reaches the top. Rebuilt when stale entries pile up.
  struct Reminder {
    enum class What : uint8_t { kRequestDeadline, kResume, kTransferDeadline };
    TimePoint at;
    What what;
    uint64_t id;  // RpcId or TransferId
    bool operator>(const Reminder& o) const { return at > o.at; }
  };
  mutable std::priority_queue<Reminder, std::vector<Reminder>, std::greater<Reminder>> reminders_;
  void Remind(Reminder::What what, uint64_t id, TimePoint at);
  bool Current(const Reminder& r) const;
  RpcId next_rpc_id_ = 1;

  std::deque<Notice> notices_;
  size_t notify_transfers_ = 0;  // notification and reply POSTs in flight (bounded)
  size_t dropped_replies_ = 0;   // replies to a flooding server not sent, not yet logged

  // The stream for what the server sends unasked, of the current session
  // (session_listen.cc).
  ListenStream listen_;

  // What was last reported through StateChanged.
  Status published_status_ = Status::kLoading;
  std::string published_reason_;
  const ToolList* published_tools_ = nullptr;
  std::string published_version_;

  std::vector<Action> actions_;
};

}  // namespace mcpgw::mcp
