// Exchange: the requests of a conversation (conversation.h), from the moment
// a part makes one until its answer, its loss or its deadline ends it, and
// what the server sends unasked. It numbers requests, builds each one's body
// for the era it goes out in (every time it goes out), queues what must wait
// for a serving session, keeps the deadlines, and routes what comes back to
// the part the request belongs to: the transport's reports on requests
// (wire.h) reach it through the conversation's listener.
//
// A request may go out more than once: again in a new session when the
// server never took it, or after the era was probed again. Its answer may
// come from anywhere the transport reads; one for a request that ended
// already is ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/kept_nodes.h"
#include "daemon/mcp/conversation.h"
#include "daemon/mcp/reminders.h"

namespace mcpgw::mcp {

class Exchange {
 public:
  // What a request asks. A call's requests: kCall (tools/call; task-augmented
  // when as_task), and for a call made as a task kTaskGet and kTaskResult.
  enum class Kind { kDiscover, kInitialize, kListTools, kCall, kTaskGet, kTaskResult };
  static bool ForCall(Kind kind) {
    return kind == Kind::kCall || kind == Kind::kTaskGet || kind == Kind::kTaskResult;
  }
  struct Request {
    Kind kind = Kind::kCall;
    RpcId rpc_id = 0;
    // What it asks; its body is built from these for the era it goes out in.
    std::string tool;                   // kCall
    std::string arguments;              // kCall: the host's bytes, never re-serialized
    std::optional<std::string> cursor;  // kListTools
    std::string version;                // kDiscover: the version asked about
    bool as_task = false;               // kCall: task-augmented (its call is a TaskCalls run)
    std::string task_id;                // kTaskGet, kTaskResult: never logged
    TimePoint deadline;
    Duration budget{};    // how long it may take, for the timeout reason
    bool out = false;     // the transport has it now
    bool modern = false;  // last sent on the 2026-07-28 wire
    bool resent = false;  // already sent again once (the server never took it)
    // A call's requests only.
    CallId call_id = 0;
    std::string params;  // the tools/call's params as last sent
    size_t bytes_out = 0;
    size_t bytes_in = 0;
  };

  explicit Exchange(const Parts& parts);
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  Request& New(Kind kind, TimePoint deadline, Duration budget);
  Request* Find(RpcId id);
  // An id for a request whose answer nobody reads (subscriptions/listen,
  // tasks/cancel).
  RpcId NextId() { return next_rpc_id_++; }
  // Sends `req` now when the conversation serves, else queues it for kReady.
  void Dispatch(Request& req, TimePoint now);
  // Sends it now, built for the era.
  void Send(Request& req, TimePoint now);
  void SendWaiting(TimePoint now);
  void Queue(RpcId id) { waiting_.push_back(id); }
  // Ends a request: the transport drops it, nothing waits for it.
  void Drop(RpcId id);
  // Ends a request the server may hold: it is told (`reason`) as the
  // transport can. With `keep_reading` an answer being read now is read on,
  // and the request stays (returns true).
  bool Cancel(Request& req, std::string_view reason, bool keep_reading, TimePoint now);
  // A new deadline for a request still out.
  void Extend(Request& req, TimePoint deadline);
  // Ends every request that is no call's (a new attempt lists anew).
  void DropAttempt();
  // Ends the pages of the listing under way.
  void DropListing();
  // Whether a request of `kind` is out or waiting.
  bool Any(Kind kind) const;
  // Calls that waited for a session (or credentials) fail with `why`.
  void FailWaiting(const std::string& why, TimePoint now);
  // Shut down: nothing of any request remains.
  void Clear();
  void OnTimer(TimePoint now);
  std::optional<TimePoint> NextWakeup() const;

  // --- what the transport reports of requests (WireListener's) ---
  void OnAnswer(RpcId id, const Answer& answer, TimePoint now);
  void OnLost(RpcId id, const Loss& loss, TimePoint now);
  void OnReceived(RpcId id, size_t bytes);
  void OnServerMessage(const Message& message, From from, TimePoint now);
  // The subscription request that opens the stream of what the server sends
  // unasked on the stateless era (a new id each time).
  OutRequest Subscription();

 private:
  void OnResponse(Request& req, const Message& msg, const Answer& answer, TimePoint now);
  void SendAgain(Request& req, const Loss& loss, TimePoint now);
  void FailRequest(Request& req, const Loss& loss, TimePoint now);
  void Expire(RpcId id, TimePoint now);
  OutRequest Build(Request& req, TimePoint now);

  const Parts& p_;
  std::map<RpcId, Request> requests_;
  base::KeptNodes<std::map<RpcId, Request>> kept_requests_;
  // Requests to send once the conversation serves, oldest first (a vector:
  // empty, it holds no memory, where a std::deque keeps a block).
  std::vector<RpcId> waiting_;
  RpcId next_rpc_id_ = 1;
  // When the requests' deadlines fall (one kind of reminder).
  Reminders deadlines_;
};

}  // namespace mcpgw::mcp
