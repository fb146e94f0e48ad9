// TaskCalls: the calls of a conversation (conversation.h) made as tasks
// (BEHAVIOR.md §12). A tool whose execution.taskSupport is "required" is
// called with a task-augmented tools/call, its task polled with tasks/get at
// the server's pollInterval, its result fetched with tasks/result and turned
// into text as an ordinary call's is, and a task the call no longer waits for
// cancelled with tasks/cancel. Each call's moves are its TaskCall's
// (task_call.h); its requests travel like any other (exchange.h). Task ids
// may be bearer tokens: no log line or error names one.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "daemon/mcp/conversation.h"
#include "daemon/mcp/exchange.h"
#include "daemon/mcp/task_call.h"

namespace mcpgw::mcp {

class TaskCalls {
 public:
  explicit TaskCalls(const Parts& parts);
  TaskCalls(const TaskCalls&) = delete;
  TaskCalls& operator=(const TaskCalls&) = delete;

  void Call(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  void Cancel(CallId id, TimePoint now);
  bool Has(CallId id) const { return runs_.count(id) > 0; }
  // The call left (dropped, or past its deadline) while its tools/call was
  // out: the call's request is read only to learn the task to cancel.
  bool CallLeft(CallId id) const;

  // --- what became of a request of a task call ---
  void OnAnswer(Exchange::Request& req, const Message& msg, TimePoint now);
  void OnRequestFailed(Exchange::Request& req, const Loss& loss, TimePoint now);
  // It outlived its own deadline: the call's, or a single poll's.
  void OnRequestLate(Exchange::Request& req, TimePoint now);
  // It waited for a session (or credentials) that did not come.
  void OnRequestAbandoned(Exchange::Request& req, const std::string& why, TimePoint now);

  void OnTimer(TimePoint now);
  void Wakeups(std::optional<TimePoint>& next) const;
  // The conversation closes: tasks still running are cancelled, best effort,
  // and their calls fail like every other call.
  void Shutdown(TimePoint now);

 private:
  // A call made as a task: its machine, the request of the call that is out
  // or queued now, and the task once the server named it.
  struct Run {
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

  void OnCreated(CallId id, Run& run, const Message& msg, TimePoint now);
  void OnStatus(CallId id, Run& run, TaskInfo info, TimePoint now);
  void OnPolled(CallId id, Run& run, const Message& msg, TimePoint now);
  void OnResult(CallId id, Run& run, const Message& msg, TimePoint now);
  void RetryRead(CallId id, Run& run, const std::string& why, TimePoint now);
  void SendRead(CallId id, Run& run, TimePoint now);
  // The run `req` belongs to, or null when it is no longer the run's
  // current request (the request is dropped then).
  Run* RunOf(Exchange::Request& req);
  void EndRequest(Run& run, Exchange::Request& req);
  void Settle(CallId id, Run& run, CallErrorKind kind, std::string text, bool cancel,
              TimePoint now);
  void Finish(CallId id, const Run& run, CallErrorKind kind, std::string text);
  void Leave(CallId id, Run& run, const std::string& why, bool finish, TimePoint now);
  void Deadline(CallId id, TimePoint now);
  void SendCancel(const std::string& task_id, TimePoint now);

  const Parts& p_;
  std::map<CallId, Run> runs_;
  bool undeclared_noted_ = false;
};

}  // namespace mcpgw::mcp
