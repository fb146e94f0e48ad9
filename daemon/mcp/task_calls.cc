// Calls made as tasks: creating, polling, fetching and cancelling tasks.
#include "daemon/mcp/task_calls.h"

#include <algorithm>

#include "base/text.h"
#include "daemon/mcp/calls.h"
#include "daemon/mcp/convert.h"
#include "daemon/mcp/handshake.h"

namespace mcpgw::mcp {

namespace {

std::string RpcError(const Message& msg) {
  return "error " + std::to_string(msg.error_code) + ": " + msg.error_message;
}

// The server may still be working on it: a call that leaves it cancels it.
bool StillRunning(TaskStatus status) {
  return status == TaskStatus::kWorking || status == TaskStatus::kInputRequired;
}

void Earliest(std::optional<TimePoint>& acc, std::optional<TimePoint> t) {
  if (t && (!acc || *t < *acc)) acc = t;
}

}  // namespace

TaskCalls::TaskCalls(const Parts& parts) : p_(parts) {}

// --- the call ---

void TaskCalls::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  if (p_.handshake->modern()) {
    // Revision 2026-07-28 has no tasks of its own: they are an extension
    // there, of another shape, which the gateway does not declare.
    return p_.calls->Refuse(
        id, CallErrorKind::kBackend,
        "this tool requires task-augmented execution (execution.taskSupport \"required\"), which "
        "the gateway supports on the 2025-11-25 wire only; this server speaks 2026-07-28, where "
        "tasks are an extension the gateway does not declare");
  }
  if (!p_.handshake->tasks_declared() && !undeclared_noted_) {
    undeclared_noted_ = true;
    p_.life->Log(LogLevel::kInfo,
                 "the server lists tools that require tasks but does not declare "
                 "tasks.requests.tools.call; they are called as tasks anyway");
  }
  Run& run = runs_[id];
  run.deadline = now + p_.limits->call_deadline;
  run.budget = p_.limits->call_deadline;
  Exchange::Request& req = p_.exchange->New(Exchange::Kind::kCall, run.deadline, run.budget);
  req.call_id = id;
  req.as_task = true;
  req.tool = std::move(tool);
  req.arguments = std::move(arguments_json);
  run.rpc = req.rpc_id;
  p_.exchange->Dispatch(req, now);
}

// Whether the call of a task run left (dropped, or past its deadline) while
// its tools/call was out.
bool TaskCalls::CallLeft(CallId id) const {
  auto it = runs_.find(id);
  return it != runs_.end() && it->second.machine.state() == TaskState::kCancelling;
}

// --- answers ---

void TaskCalls::OnAnswer(Exchange::Request& req, const Message& msg, TimePoint now) {
  const CallId id = req.call_id;
  const Exchange::Kind kind = req.kind;
  Run* found = RunOf(req);
  if (found == nullptr) return;
  Run& run = *found;
  EndRequest(run, req);
  switch (kind) {
    case Exchange::Kind::kTaskGet:
      return OnPolled(id, run, msg, now);
    case Exchange::Kind::kTaskResult:
      return OnResult(id, run, msg, now);
    default:
      return OnCreated(id, run, msg, now);
  }
}

void TaskCalls::OnCreated(CallId id, Run& run, const Message& msg, TimePoint now) {
  const rapidjson::Value* created =
      !msg.is_error && msg.result->IsObject() ? CreatedTask(*msg.result) : nullptr;
  if (run.machine.state() == TaskState::kCancelling) {
    // The call left meanwhile: a task the answer names is cancelled.
    if (created != nullptr) {
      auto read = ReadTask(*created);
      if (const TaskInfo* task = std::get_if<TaskInfo>(&read); task && StillRunning(task->status)) {
        p_.life->Log(LogLevel::kDebug, "the task of a call that ended is cancelled");
        SendCancel(task->id, now);
      }
    }
    run.machine.On(TaskEvent::kSettled);
    runs_.erase(id);
    return;
  }
  if (created == nullptr) {
    // An error, or a plain CallToolResult (the server ran the tool at once):
    // as an ordinary call's answer.
    auto [kind, text] = Calls::ResultOf(msg);
    return Settle(id, run, kind, std::move(text), /*cancel=*/false, now);
  }
  auto read = ReadTask(*created);
  if (const std::string* why = std::get_if<std::string>(&read)) {
    return Settle(id, run, CallErrorKind::kTransport,
                  "invalid CreateTaskResult from server: " + *why + std::string(kMayHaveRun),
                  /*cancel=*/false, now);
  }
  OnStatus(id, run, std::move(std::get<TaskInfo>(read)), now);
}

// What the server says of its task, from the CreateTaskResult or a
// tasks/get: poll again, fetch the result, or end the call.
void TaskCalls::OnStatus(CallId id, Run& run, TaskInfo info, TimePoint now) {
  if (run.task) info.id = run.task->id;  // the id the task was created with
  if (info.poll_interval) run.interval = *info.poll_interval;
  run.task = std::move(info);
  const TaskInfo& task = *run.task;
  switch (task.status) {
    case TaskStatus::kWorking:
      run.machine.On(TaskEvent::kWorking);
      run.poll_at = now + run.interval;
      return;
    case TaskStatus::kInputRequired:
      // The gateway declares no capabilities: it cannot answer what the
      // server would ask through tasks/result. The task is cancelled.
      return Settle(id, run, CallErrorKind::kBackend, InputRequiredTaskText(task),
                    /*cancel=*/true, now);
    case TaskStatus::kFailed:
      if (!task.status_message.empty()) {
        return Settle(id, run, CallErrorKind::kBackend, task.status_message,
                      /*cancel=*/false, now);
      }
      run.failed = true;  // its result says why
      [[fallthrough]];
    case TaskStatus::kCompleted:
      run.machine.On(TaskEvent::kEnded);
      return SendRead(id, run, now);
    case TaskStatus::kCancelled:
      return Settle(id, run, CallErrorKind::kTransport, CancelledTaskText(task),
                    /*cancel=*/false, now);
  }
}

void TaskCalls::OnPolled(CallId id, Run& run, const Message& msg, TimePoint now) {
  // The server no longer knows the task (expired, or another session's).
  if (msg.is_error) {
    return Settle(id, run, CallErrorKind::kTransport,
                  "tasks/get failed: " + RpcError(msg) + std::string(kMayHaveRun),
                  /*cancel=*/false, now);
  }
  auto read = ReadTask(*msg.result);
  if (const std::string* why = std::get_if<std::string>(&read)) {
    return Settle(id, run, CallErrorKind::kTransport,
                  "invalid tasks/get result from server: " + *why + std::string(kMayHaveRun),
                  /*cancel=*/true, now);
  }
  OnStatus(id, run, std::move(std::get<TaskInfo>(read)), now);
}

void TaskCalls::OnResult(CallId id, Run& run, const Message& msg, TimePoint now) {
  constexpr std::string_view kLost =
      "; the task ended at the server, but its result could not be fetched, and calling the tool "
      "again runs it again";
  if (msg.is_error) {
    // A failed task's result is the error its request ended with.
    if (run.failed) {
      return Settle(id, run, CallErrorKind::kBackend, RpcError(msg), /*cancel=*/false, now);
    }
    return Settle(id, run, CallErrorKind::kTransport,
                  "tasks/result failed: " + RpcError(msg) + std::string(kLost),
                  /*cancel=*/false, now);
  }
  if (!msg.result->IsObject()) {
    return Settle(id, run, CallErrorKind::kTransport,
                  "invalid tasks/result result" + std::string(kLost), /*cancel=*/false, now);
  }
  ConvertedResult converted = ConvertCallResult(*msg.result);
  if (run.failed) {
    if (converted.text.empty()) converted.text = "the task failed (the server gave no reason)";
    return Settle(id, run, CallErrorKind::kBackend, std::move(converted.text),
                  /*cancel=*/false, now);
  }
  Settle(id, run, converted.is_error ? CallErrorKind::kBackend : CallErrorKind::kNone,
         std::move(converted.text), /*cancel=*/false, now);
}

// --- requests that end without an answer ---

// The classifier failed a request of a task call (Exchange::OnLost).
void TaskCalls::OnRequestFailed(Exchange::Request& req, const Loss& loss, TimePoint now) {
  const CallId id = req.call_id;
  const Exchange::Kind kind = req.kind;
  Run* found = RunOf(req);
  if (found == nullptr) return;
  Run& run = *found;
  EndRequest(run, req);
  if (kind == Exchange::Kind::kCall) {
    if (run.machine.state() == TaskState::kCancelling) {
      run.machine.On(TaskEvent::kSettled);
      runs_.erase(id);
      return;
    }
    // Like any tools/call: at most once, and the reason says when it may
    // have run.
    return Settle(id, run, loss.backend ? CallErrorKind::kBackend : CallErrorKind::kTransport,
                  loss.reason, /*cancel=*/false, now);
  }
  const std::string what =
      kind == Exchange::Kind::kTaskGet ? "tasks/get failed: " : "tasks/result failed: ";
  // A read that met the transport's or the server's passing trouble is
  // asked again at the next interval.
  if (loss.transient) return RetryRead(id, run, what + loss.reason, now);
  Settle(id, run, CallErrorKind::kTransport, what + loss.reason + std::string(kMayHaveRun),
         /*cancel=*/kind == Exchange::Kind::kTaskGet, now);
}

// A request of a task call outlived its own deadline (session.cc
// Exchange::Expire): the call's, or a single poll's.
void TaskCalls::OnRequestLate(Exchange::Request& req, TimePoint now) {
  const CallId id = req.call_id;
  Run* found = RunOf(req);
  if (found == nullptr) return;
  Run& run = *found;
  if (run.machine.state() == TaskState::kCancelling) {
    p_.life->Log(LogLevel::kDebug, "no task came for a call that ended; nothing to cancel");
    EndRequest(run, req);
    run.machine.On(TaskEvent::kSettled);
    runs_.erase(id);
    return;
  }
  if (now >= run.deadline) return Deadline(id, now);
  EndRequest(run, req);
  RetryRead(id, run,
            "tasks/get got no answer in " + base::DescribeDuration(p_.limits->request_deadline),
            now);
}

// A request of a task call waited for a session (or credentials) that did
// not come (Exchange::FailWaiting).
void TaskCalls::OnRequestAbandoned(Exchange::Request& req, const std::string& why, TimePoint now) {
  const CallId id = req.call_id;
  auto it = runs_.find(id);
  if (it == runs_.end() || it->second.rpc != req.rpc_id) return p_.exchange->Drop(req.rpc_id);
  Run& run = it->second;
  EndRequest(run, req);
  if (run.machine.state() == TaskState::kCancelling) {
    run.machine.On(TaskEvent::kSettled);
    runs_.erase(it);
    return;
  }
  Settle(id, run, CallErrorKind::kTransport, why, /*cancel=*/false, now);
}

// tasks/get (or the one retry of tasks/result) goes out again at the next
// interval; the call's deadline still bounds it all.
void TaskCalls::RetryRead(CallId id, Run& run, const std::string& why, TimePoint now) {
  const bool fetching = run.machine.state() == TaskState::kFetching;
  if (fetching && !run.machine.RetryFetch()) {
    return Settle(id, run, CallErrorKind::kTransport, why + std::string(kMayHaveRun),
                  /*cancel=*/false, now);
  }
  run.machine.On(TaskEvent::kRetry);
  run.last_failure = why;
  run.poll_at = now + run.interval;
  p_.life->Log(LogLevel::kDebug, why + "; asking again in " + base::DescribeDuration(run.interval));
}

// --- sending ---

// The next read of the task: tasks/get while it runs, tasks/result once it
// ended. A poll is bounded on its own (a hung one is asked again), within
// the call's deadline.
void TaskCalls::SendRead(CallId id, Run& run, TimePoint now) {
  const bool fetching = run.machine.state() == TaskState::kFetching;
  const TimePoint deadline =
      fetching ? run.deadline : std::min(run.deadline, now + p_.limits->request_deadline);
  Exchange::Request& req = p_.exchange->New(
      fetching ? Exchange::Kind::kTaskResult : Exchange::Kind::kTaskGet, deadline, run.budget);
  req.call_id = id;
  req.task_id = run.task->id;
  run.rpc = req.rpc_id;
  run.poll_at.reset();
  if (!fetching) ++run.polls;
  p_.exchange->Dispatch(req, now);
}

// A request of the call ended: its bytes count for the call, and it goes.
TaskCalls::Run* TaskCalls::RunOf(Exchange::Request& req) {
  auto it = runs_.find(req.call_id);
  if (it != runs_.end() && it->second.rpc == req.rpc_id) return &it->second;
  p_.exchange->Drop(req.rpc_id);
  return nullptr;
}

void TaskCalls::EndRequest(Run& run, Exchange::Request& req) {
  run.bytes_out += req.bytes_out;
  run.bytes_in += req.bytes_in;
  if (req.kind == Exchange::Kind::kCall && req.bytes_out > 0) run.params = req.params;
  if (run.rpc == req.rpc_id) run.rpc = 0;
  p_.exchange->Drop(req.rpc_id);
}

// tasks/cancel, best effort, like a notification: its answer is not read.
// While shutting down it goes at once (the queue is gone).
void TaskCalls::SendCancel(const std::string& task_id, TimePoint now) {
  p_.wire->Tell(BuildRequest(p_.exchange->NextId(), "tasks/cancel", TaskIdParams(task_id)), now);
}

// --- ending ---

void TaskCalls::Finish(CallId id, const Run& run, CallErrorKind kind, std::string text) {
  CallOutcome outcome;
  outcome.kind = kind;
  outcome.text = std::move(text);
  outcome.request_params = run.params;
  outcome.bytes_out = run.bytes_out;
  outcome.bytes_in = run.bytes_in;
  // A request of the call still out counts too.
  if (const Exchange::Request* open = run.rpc != 0 ? p_.exchange->Find(run.rpc) : nullptr) {
    outcome.bytes_out += open->bytes_out;
    outcome.bytes_in += open->bytes_in;
    if (open->kind == Exchange::Kind::kCall && open->bytes_out > 0) {
      outcome.request_params = open->params;
    }
  }
  p_.out->Finished(CallFinished{id, std::move(outcome)});
}

// The call has its outcome: a read still out is aborted, a task still
// running cancelled when `cancel`, and the run forgotten.
void TaskCalls::Settle(CallId id, Run& run, CallErrorKind kind, std::string text, bool cancel,
                       TimePoint now) {
  run.machine.On(TaskEvent::kSettled);
  p_.life->Log(LogLevel::kDebug,
               "a task call ended after " + std::to_string(run.polls) + " tasks/get");
  Finish(id, run, kind, std::move(text));
  if (run.rpc != 0) p_.exchange->Drop(run.rpc);
  if (cancel && run.task) SendCancel(run.task->id, now);
  runs_.erase(id);
}

// The call leaves before its task ended: dropped by the caller (no outcome
// is given), or past its deadline (`finish`: transport, `why`).
void TaskCalls::Leave(CallId id, Run& run, const std::string& why, bool finish, TimePoint now) {
  const TaskState state = run.machine.state();
  if (state == TaskState::kCancelling || state == TaskState::kDone) return;
  if (finish) Finish(id, run, CallErrorKind::kTransport, why);
  if (state != TaskState::kCreating) {
    run.machine.On(TaskEvent::kLeft);
    if (run.rpc != 0) p_.exchange->Drop(run.rpc);
    if (state == TaskState::kPolling && run.task) SendCancel(run.task->id, now);
    runs_.erase(id);
    return;
  }
  // The tools/call is out or queued. As for any call, a request the server
  // may hold is told (on the 2026-07-28 wire closing its stream is the
  // cancellation); one still being answered is read a while longer, for
  // the task to cancel.
  Exchange::Request* req = p_.exchange->Find(run.rpc);
  if (req == nullptr) {
    runs_.erase(id);
    return;
  }
  if (p_.exchange->Cancel(*req, finish ? "timed out" : "cancelled by the client",
                          /*keep_reading=*/true, now)) {
    run.machine.On(TaskEvent::kLeft);
    p_.exchange->Extend(*req, now + p_.limits->notify_deadline);
    return;
  }
  run.rpc = 0;
  run.machine.On(TaskEvent::kSettled);
  runs_.erase(id);
}

void TaskCalls::Cancel(CallId id, TimePoint now) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return;
  Leave(id, it->second, "cancelled by the client", /*finish=*/false, now);
}

void TaskCalls::Deadline(CallId id, TimePoint now) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return;
  Run& run = it->second;
  std::string why = "timed out after " + base::DescribeDuration(run.budget);
  if (!run.last_failure.empty()) why += " (last: " + run.last_failure + ")";
  Leave(id, run, why, /*finish=*/true, now);
}

// --- time ---

void TaskCalls::OnTimer(TimePoint now) {
  std::vector<CallId> late, due;
  for (const auto& [id, run] : runs_) {
    if (run.machine.state() == TaskState::kCancelling) continue;  // its request's deadline ends it
    if (now >= run.deadline) {
      late.push_back(id);
    } else if (run.rpc == 0 && run.poll_at && now >= *run.poll_at) {
      due.push_back(id);
    }
  }
  for (CallId id : late) Deadline(id, now);
  for (CallId id : due) {
    auto it = runs_.find(id);
    if (it != runs_.end() && it->second.rpc == 0) SendRead(id, it->second, now);
  }
}

void TaskCalls::Wakeups(std::optional<TimePoint>& next) const {
  for (const auto& [id, run] : runs_) {
    if (run.machine.state() == TaskState::kCancelling) continue;
    Earliest(next, run.deadline);
    if (run.rpc == 0) Earliest(next, run.poll_at);
  }
}

// --- shutdown ---

// The conversation closes (its phase is kClosed already; the transport
// closes after this, sending what was told before it ends the session).
void TaskCalls::Shutdown(TimePoint now) {
  for (auto& [id, run] : runs_) {
    const TaskState state = run.machine.state();
    run.machine.On(TaskEvent::kShutdown);
    if (state == TaskState::kPolling && run.task) SendCancel(run.task->id, now);
    if (state != TaskState::kCancelling) {
      Finish(id, run, CallErrorKind::kTransport, std::string(kShuttingDown));
    }
  }
  runs_.clear();
}

}  // namespace mcpgw::mcp
