// Session calls made as tasks (BEHAVIOR.md §12): a tool whose
// execution.taskSupport is "required" is called with a task-augmented
// tools/call, its task polled with tasks/get at the server's pollInterval,
// its result fetched with tasks/result and turned into text as an ordinary
// call's is, and a task the call no longer waits for cancelled with
// tasks/cancel. Each call's moves are its TaskCall's (task_call.h); its
// requests travel like any other (session_wire.cc, session_receive.cc), and
// what an HTTP outcome means is the classifier's (outcome.h). Task ids may
// be bearer tokens: no log line or error names one.
#include <algorithm>

#include "base/text.h"
#include "daemon/mcp/convert.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

constexpr std::string_view kShuttingDown = "gateway shutting down";

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

// --- the call ---

void Session::Impl::CallAsTask(CallId id, std::string tool, std::string arguments_json,
                               TimePoint now) {
  if (era_.modern()) {
    // Revision 2026-07-28 has no tasks of its own: they are an extension
    // there, of another shape, which the gateway does not declare.
    CallOutcome outcome;
    outcome.kind = CallErrorKind::kBackend;
    outcome.text =
        "this tool requires task-augmented execution (execution.taskSupport \"required\"), which "
        "the gateway supports on the 2025-11-25 wire only; this server speaks 2026-07-28, where "
        "tasks are an extension the gateway does not declare";
    actions_.emplace_back(std::in_place_type<CallFinished>, CallFinished{id, std::move(outcome)});
    return;
  }
  if (!tasks_declared_ && !tasks_undeclared_noted_) {
    tasks_undeclared_noted_ = true;
    Log(LogLevel::kInfo,
        "the server lists tools that require tasks but does not declare "
        "tasks.requests.tools.call; they are called as tasks anyway");
  }
  TaskRun& run = task_calls_[id];
  run.deadline = now + limits_.call_deadline;
  run.budget = limits_.call_deadline;
  Request& req = NewRequest(Kind::kCall, run.deadline, run.budget);
  req.call_id = id;
  req.as_task = true;
  req.tool = std::move(tool);
  req.arguments = std::move(arguments_json);
  run.rpc = req.rpc_id;
  Dispatch(req, now);
}

// Whether the call of a task run left (dropped, or past its deadline) while
// its tools/call was out.
bool Session::Impl::TaskCallLeft(CallId id) const {
  auto it = task_calls_.find(id);
  return it != task_calls_.end() && it->second.machine.state() == TaskState::kCancelling;
}

// --- answers ---

void Session::Impl::OnTaskAnswer(Request& req, const Message& msg, TimePoint now) {
  const CallId id = req.call_id;
  const Kind kind = req.kind;
  auto it = task_calls_.find(id);
  if (it == task_calls_.end() || it->second.rpc != req.rpc_id) return DropRequest(req.rpc_id);
  TaskRun& run = it->second;
  EndTaskRequest(run, req);
  switch (kind) {
    case Kind::kTaskGet:
      return OnTaskPolled(id, run, msg, now);
    case Kind::kTaskResult:
      return OnTaskResult(id, run, msg, now);
    default:
      return OnTaskCreated(id, run, msg, now);
  }
}

void Session::Impl::OnTaskCreated(CallId id, TaskRun& run, const Message& msg, TimePoint now) {
  const rapidjson::Value* created =
      !msg.is_error && msg.result->IsObject() ? CreatedTask(*msg.result) : nullptr;
  if (run.machine.state() == TaskState::kCancelling) {
    // The call left meanwhile: a task the answer names is cancelled.
    if (created != nullptr) {
      auto read = ReadTask(*created);
      if (const TaskInfo* task = std::get_if<TaskInfo>(&read); task && StillRunning(task->status)) {
        Log(LogLevel::kDebug, "the task of a call that ended is cancelled");
        SendTaskCancel(task->id, now);
      }
    }
    run.machine.On(TaskEvent::kSettled);
    task_calls_.erase(id);
    return;
  }
  if (created == nullptr) {
    // An error, or a plain CallToolResult (the server ran the tool at once):
    // as an ordinary call's answer.
    auto [kind, text] = CallResultOf(msg);
    return SettleTask(id, run, kind, std::move(text), /*cancel=*/false, now);
  }
  auto read = ReadTask(*created);
  if (const std::string* why = std::get_if<std::string>(&read)) {
    return SettleTask(id, run, CallErrorKind::kTransport,
                      "invalid CreateTaskResult from server: " + *why + std::string(kMayHaveRun),
                      /*cancel=*/false, now);
  }
  OnTaskStatus(id, run, std::move(std::get<TaskInfo>(read)), now);
}

// What the server says of its task, from the CreateTaskResult or a
// tasks/get: poll again, fetch the result, or end the call.
void Session::Impl::OnTaskStatus(CallId id, TaskRun& run, TaskInfo info, TimePoint now) {
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
      return SettleTask(id, run, CallErrorKind::kBackend, InputRequiredTaskText(task),
                        /*cancel=*/true, now);
    case TaskStatus::kFailed:
      if (!task.status_message.empty()) {
        return SettleTask(id, run, CallErrorKind::kBackend, task.status_message,
                          /*cancel=*/false, now);
      }
      run.failed = true;  // its result says why
      [[fallthrough]];
    case TaskStatus::kCompleted:
      run.machine.On(TaskEvent::kEnded);
      return SendTaskRead(id, run, now);
    case TaskStatus::kCancelled:
      return SettleTask(id, run, CallErrorKind::kTransport, CancelledTaskText(task),
                        /*cancel=*/false, now);
  }
}

void Session::Impl::OnTaskPolled(CallId id, TaskRun& run, const Message& msg, TimePoint now) {
  // The server no longer knows the task (expired, or another session's).
  if (msg.is_error) {
    return SettleTask(id, run, CallErrorKind::kTransport,
                      "tasks/get failed: " + RpcError(msg) + std::string(kMayHaveRun),
                      /*cancel=*/false, now);
  }
  auto read = ReadTask(*msg.result);
  if (const std::string* why = std::get_if<std::string>(&read)) {
    return SettleTask(id, run, CallErrorKind::kTransport,
                      "invalid tasks/get result from server: " + *why + std::string(kMayHaveRun),
                      /*cancel=*/true, now);
  }
  OnTaskStatus(id, run, std::move(std::get<TaskInfo>(read)), now);
}

void Session::Impl::OnTaskResult(CallId id, TaskRun& run, const Message& msg, TimePoint now) {
  constexpr std::string_view kLost =
      "; the task ended at the server, but its result could not be fetched, and calling the tool "
      "again runs it again";
  if (msg.is_error) {
    // A failed task's result is the error its request ended with.
    if (run.failed) {
      return SettleTask(id, run, CallErrorKind::kBackend, RpcError(msg), /*cancel=*/false, now);
    }
    return SettleTask(id, run, CallErrorKind::kTransport,
                      "tasks/result failed: " + RpcError(msg) + std::string(kLost),
                      /*cancel=*/false, now);
  }
  if (!msg.result->IsObject()) {
    return SettleTask(id, run, CallErrorKind::kTransport,
                      "invalid tasks/result result" + std::string(kLost), /*cancel=*/false, now);
  }
  ConvertedResult converted = ConvertCallResult(*msg.result);
  if (run.failed) {
    if (converted.text.empty()) converted.text = "the task failed (the server gave no reason)";
    return SettleTask(id, run, CallErrorKind::kBackend, std::move(converted.text),
                      /*cancel=*/false, now);
  }
  SettleTask(id, run, converted.is_error ? CallErrorKind::kBackend : CallErrorKind::kNone,
             std::move(converted.text), /*cancel=*/false, now);
}

// --- requests that end without an answer ---

// The classifier failed a request of a task call (session_calls.cc Settle).
void Session::Impl::OnTaskRequestFailed(Request& req, const Verdict& verdict, TimePoint now) {
  const CallId id = req.call_id;
  const Kind kind = req.kind;
  auto it = task_calls_.find(id);
  if (it == task_calls_.end() || it->second.rpc != req.rpc_id) return DropRequest(req.rpc_id);
  TaskRun& run = it->second;
  EndTaskRequest(run, req);
  if (kind == Kind::kCall) {
    if (run.machine.state() == TaskState::kCancelling) {
      run.machine.On(TaskEvent::kSettled);
      task_calls_.erase(it);
      return;
    }
    // Like any tools/call: at most once, and the reason says when it may
    // have run.
    return SettleTask(id, run,
                      verdict.backend ? CallErrorKind::kBackend : CallErrorKind::kTransport,
                      verdict.reason, /*cancel=*/false, now);
  }
  const std::string what = kind == Kind::kTaskGet ? "tasks/get failed: " : "tasks/result failed: ";
  // A read that met the transport's or the server's passing trouble is
  // asked again at the next interval.
  if (verdict.transient) return RetryTaskRead(id, run, what + verdict.reason, now);
  SettleTask(id, run, CallErrorKind::kTransport, what + verdict.reason + std::string(kMayHaveRun),
             /*cancel=*/kind == Kind::kTaskGet, now);
}

// A request of a task call outlived its own deadline (session.cc
// ExpireRequest): the call's, or a single poll's.
void Session::Impl::OnTaskRequestLate(Request& req, TimePoint now) {
  const CallId id = req.call_id;
  auto it = task_calls_.find(id);
  if (it == task_calls_.end() || it->second.rpc != req.rpc_id) return DropRequest(req.rpc_id);
  TaskRun& run = it->second;
  if (run.machine.state() == TaskState::kCancelling) {
    Log(LogLevel::kDebug, "no task came for a call that ended; nothing to cancel");
    EndTaskRequest(run, req);
    run.machine.On(TaskEvent::kSettled);
    task_calls_.erase(it);
    return;
  }
  if (now >= run.deadline) return TaskDeadline(id, now);
  EndTaskRequest(run, req);
  RetryTaskRead(id, run,
                "tasks/get got no answer in " + base::DescribeDuration(limits_.request_deadline),
                now);
}

// A request of a task call waited for a session (or credentials) that did
// not come (session_calls.cc FailWaiting).
void Session::Impl::OnTaskRequestAbandoned(Request& req, const std::string& why, TimePoint now) {
  const CallId id = req.call_id;
  auto it = task_calls_.find(id);
  if (it == task_calls_.end() || it->second.rpc != req.rpc_id) return DropRequest(req.rpc_id);
  TaskRun& run = it->second;
  EndTaskRequest(run, req);
  if (run.machine.state() == TaskState::kCancelling) {
    run.machine.On(TaskEvent::kSettled);
    task_calls_.erase(it);
    return;
  }
  SettleTask(id, run, CallErrorKind::kTransport, why, /*cancel=*/false, now);
}

// tasks/get (or the one retry of tasks/result) goes out again at the next
// interval; the call's deadline still bounds it all.
void Session::Impl::RetryTaskRead(CallId id, TaskRun& run, const std::string& why, TimePoint now) {
  const bool fetching = run.machine.state() == TaskState::kFetching;
  if (fetching && !run.machine.RetryFetch()) {
    return SettleTask(id, run, CallErrorKind::kTransport, why + std::string(kMayHaveRun),
                      /*cancel=*/false, now);
  }
  run.machine.On(TaskEvent::kRetry);
  run.last_failure = why;
  run.poll_at = now + run.interval;
  Log(LogLevel::kDebug, why + "; asking again in " + base::DescribeDuration(run.interval));
}

// --- sending ---

// The next read of the task: tasks/get while it runs, tasks/result once it
// ended. A poll is bounded on its own (a hung one is asked again), within
// the call's deadline.
void Session::Impl::SendTaskRead(CallId id, TaskRun& run, TimePoint now) {
  const bool fetching = run.machine.state() == TaskState::kFetching;
  const TimePoint deadline =
      fetching ? run.deadline : std::min(run.deadline, now + limits_.request_deadline);
  Request& req = NewRequest(fetching ? Kind::kTaskResult : Kind::kTaskGet, deadline, run.budget);
  req.call_id = id;
  req.task_id = run.task->id;
  run.rpc = req.rpc_id;
  run.poll_at.reset();
  if (!fetching) ++run.polls;
  Dispatch(req, now);
}

// A request of the call ended: its bytes count for the call, and it goes.
void Session::Impl::EndTaskRequest(TaskRun& run, Request& req) {
  run.bytes_out += req.bytes_out;
  run.bytes_in += req.bytes_in;
  if (req.kind == Kind::kCall && req.bytes_out > 0) run.params = req.params;
  if (run.rpc == req.rpc_id) run.rpc = 0;
  DropRequest(req.rpc_id);
}

// tasks/cancel, best effort, like a notification: its answer is not read.
// While shutting down it goes at once (the queue is gone).
void Session::Impl::SendTaskCancel(const std::string& task_id, TimePoint now) {
  std::string body = BuildRequest(next_rpc_id_++, "tasks/cancel", TaskIdParams(task_id));
  if (phase_ == Phase::kClosed) {
    StartHttp(Purpose::kCancelTask, HttpMethod::kPost, std::move(body), 0, now);
    return;
  }
  notices_.push_back(Notice{std::move(body), gen_, /*must=*/true, /*cancel_task=*/true});
  PumpNotices(now);
}

// --- ending ---

void Session::Impl::FinishTaskCall(CallId id, const TaskRun& run, CallErrorKind kind,
                                   std::string text) {
  CallOutcome outcome;
  outcome.kind = kind;
  outcome.text = std::move(text);
  outcome.request_params = run.params;
  outcome.bytes_out = run.bytes_out;
  outcome.bytes_in = run.bytes_in;
  // A request of the call still out counts too.
  if (auto open = requests_.find(run.rpc); run.rpc != 0 && open != requests_.end()) {
    outcome.bytes_out += open->second.bytes_out;
    outcome.bytes_in += open->second.bytes_in;
    if (open->second.kind == Kind::kCall && open->second.bytes_out > 0) {
      outcome.request_params = open->second.params;
    }
  }
  actions_.emplace_back(std::in_place_type<CallFinished>, CallFinished{id, std::move(outcome)});
}

// The call has its outcome: a read still out is aborted, a task still
// running cancelled when `cancel`, and the run forgotten.
void Session::Impl::SettleTask(CallId id, TaskRun& run, CallErrorKind kind, std::string text,
                               bool cancel, TimePoint now) {
  run.machine.On(TaskEvent::kSettled);
  Log(LogLevel::kDebug, "a task call ended after " + std::to_string(run.polls) + " tasks/get");
  FinishTaskCall(id, run, kind, std::move(text));
  if (run.rpc != 0) DropRequest(run.rpc);
  if (cancel && run.task) SendTaskCancel(run.task->id, now);
  task_calls_.erase(id);
}

// The call leaves before its task ended: dropped by the caller (no outcome
// is given), or past its deadline (`finish`: transport, `why`).
void Session::Impl::LeaveTaskCall(CallId id, TaskRun& run, const std::string& why, bool finish,
                                  TimePoint now) {
  const TaskState state = run.machine.state();
  if (state == TaskState::kCancelling || state == TaskState::kDone) return;
  if (finish) FinishTaskCall(id, run, CallErrorKind::kTransport, why);
  if (state != TaskState::kCreating) {
    run.machine.On(TaskEvent::kLeft);
    if (run.rpc != 0) DropRequest(run.rpc);
    if (state == TaskState::kPolling && run.task) SendTaskCancel(run.task->id, now);
    task_calls_.erase(id);
    return;
  }
  // The tools/call is out or queued. As for any call, a request the server
  // may hold is told (on the 2026-07-28 wire closing its stream is the
  // cancellation); one still being answered is read a while longer, for
  // the task to cancel.
  auto it = requests_.find(run.rpc);
  if (it == requests_.end()) {
    task_calls_.erase(id);
    return;
  }
  Request& req = it->second;
  const RpcId rpc_id = req.rpc_id;
  const uint64_t gen = req.gen;
  const bool live = req.gen != 0 && (req.transfer != 0 || req.resume_at.has_value());
  const bool tell = live && !req.modern;
  if (req.transfer != 0 && !req.modern) {
    run.machine.On(TaskEvent::kLeft);
    req.deadline = now + limits_.notify_deadline;
    Remind(Reminder::What::kRequestDeadline, req.rpc_id, req.deadline);
  } else {
    EndTaskRequest(run, req);
    run.machine.On(TaskEvent::kSettled);
    task_calls_.erase(id);
  }
  if (tell) {
    Notify(BuildCancelled(rpc_id, finish ? "timed out" : "cancelled by the client"), /*must=*/true,
           gen, now);
  }
}

void Session::Impl::CancelTaskCall(CallId id, TimePoint now) {
  auto it = task_calls_.find(id);
  if (it == task_calls_.end()) return;
  LeaveTaskCall(id, it->second, "cancelled by the client", /*finish=*/false, now);
}

void Session::Impl::TaskDeadline(CallId id, TimePoint now) {
  auto it = task_calls_.find(id);
  if (it == task_calls_.end()) return;
  TaskRun& run = it->second;
  std::string why = "timed out after " + base::DescribeDuration(run.budget);
  if (!run.last_failure.empty()) why += " (last: " + run.last_failure + ")";
  LeaveTaskCall(id, run, why, /*finish=*/true, now);
}

// --- time ---

void Session::Impl::TaskTimers(TimePoint now) {
  std::vector<CallId> late, due;
  for (const auto& [id, run] : task_calls_) {
    if (run.machine.state() == TaskState::kCancelling) continue;  // its request's deadline ends it
    if (now >= run.deadline) {
      late.push_back(id);
    } else if (run.rpc == 0 && run.poll_at && now >= *run.poll_at) {
      due.push_back(id);
    }
  }
  for (CallId id : late) TaskDeadline(id, now);
  for (CallId id : due) {
    auto it = task_calls_.find(id);
    if (it != task_calls_.end() && it->second.rpc == 0) SendTaskRead(id, it->second, now);
  }
}

void Session::Impl::TaskWakeups(std::optional<TimePoint>& next) const {
  for (const auto& [id, run] : task_calls_) {
    if (run.machine.state() == TaskState::kCancelling) continue;
    Earliest(next, run.deadline);
    if (run.rpc == 0) Earliest(next, run.poll_at);
  }
}

// --- shutdown ---

// The session closes (phase already kClosed): tasks still running are
// cancelled at once, best effort within the driver's grace, and their calls
// fail like every other call.
void Session::Impl::ShutdownTasks(TimePoint now) {
  // Queued cancellations go now: the queue is cleared.
  for (Notice& notice : notices_) {
    if (notice.cancel_task && notice.gen == gen_) {
      StartHttp(Purpose::kCancelTask, HttpMethod::kPost, std::move(notice.body), 0, now);
    }
  }
  for (auto& [id, run] : task_calls_) {
    const TaskState state = run.machine.state();
    run.machine.On(TaskEvent::kShutdown);
    if (state == TaskState::kPolling && run.task) SendTaskCancel(run.task->id, now);
    if (state != TaskState::kCancelling) {
      FinishTaskCall(id, run, CallErrorKind::kTransport, std::string(kShuttingDown));
    }
  }
  task_calls_.clear();
}

// A tasks/cancel ended: while shutting down, the DELETE goes once the last
// one has.
void Session::Impl::AfterTaskCancel(TimePoint now) {
  if (!delete_after_task_cancels_) return;
  const bool pending = std::any_of(transfers_.begin(), transfers_.end(), [](const auto& t) {
    return t.second.purpose == Purpose::kCancelTask;
  });
  if (pending) return;
  delete_after_task_cancels_ = false;
  StartDelete(now);
}

}  // namespace mcpgw::mcp
