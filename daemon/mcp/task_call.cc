// The task call's moves, written once, and the task's wire shapes.
#include "daemon/mcp/task_call.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "base/clean_text.h"
#include "base/json_text.h"
#include "base/move_table.h"

namespace mcpgw::mcp {

namespace {

// Anything not listed is ignored (an answer that comes after the call left,
// a second outcome).
constexpr base::Move<TaskState, TaskEvent> kTaskMoves[] = {
    // The CreateTaskResult: poll it, fetch what it ended with, or end.
    {TaskState::kCreating, TaskEvent::kWorking, TaskState::kPolling},
    {TaskState::kCreating, TaskEvent::kEnded, TaskState::kFetching},
    {TaskState::kCreating, TaskEvent::kSettled, TaskState::kDone},
    // The caller left while the tools/call was out: its answer may still
    // name a task to cancel. Shutdown aborts it with the rest.
    {TaskState::kCreating, TaskEvent::kLeft, TaskState::kCancelling},
    {TaskState::kCreating, TaskEvent::kShutdown, TaskState::kDone},
    // Each tasks/get answer; a transport failure is asked again.
    {TaskState::kPolling, TaskEvent::kWorking, TaskState::kPolling},
    {TaskState::kPolling, TaskEvent::kRetry, TaskState::kPolling},
    {TaskState::kPolling, TaskEvent::kEnded, TaskState::kFetching},
    {TaskState::kPolling, TaskEvent::kSettled, TaskState::kDone},
    {TaskState::kPolling, TaskEvent::kLeft, TaskState::kDone},
    {TaskState::kPolling, TaskEvent::kShutdown, TaskState::kDone},
    // tasks/result, asked once more after a transport failure.
    {TaskState::kFetching, TaskEvent::kRetry, TaskState::kFetching},
    {TaskState::kFetching, TaskEvent::kSettled, TaskState::kDone},
    {TaskState::kFetching, TaskEvent::kLeft, TaskState::kDone},
    {TaskState::kFetching, TaskEvent::kShutdown, TaskState::kDone},
    // Whatever the tools/call's answer (a task is cancelled), or none.
    {TaskState::kCancelling, TaskEvent::kSettled, TaskState::kDone},
    {TaskState::kCancelling, TaskEvent::kShutdown, TaskState::kDone},
};

const rapidjson::Value* Member(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  const auto it = v.FindMember(key);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

std::optional<TaskStatus> StatusOf(std::string_view s) {
  if (s == "working") return TaskStatus::kWorking;
  if (s == "input_required") return TaskStatus::kInputRequired;
  if (s == "completed") return TaskStatus::kCompleted;
  if (s == "failed") return TaskStatus::kFailed;
  if (s == "cancelled") return TaskStatus::kCancelled;
  return std::nullopt;
}

}  // namespace

std::string_view TaskStateName(TaskState s) {
  switch (s) {
    case TaskState::kCreating:
      return "creating";
    case TaskState::kPolling:
      return "polling";
    case TaskState::kFetching:
      return "fetching";
    case TaskState::kCancelling:
      return "cancelling";
    case TaskState::kDone:
      return "done";
  }
  return "done";
}

std::string_view TaskEventName(TaskEvent e) {
  switch (e) {
    case TaskEvent::kWorking:
      return "working";
    case TaskEvent::kEnded:
      return "ended";
    case TaskEvent::kSettled:
      return "settled";
    case TaskEvent::kRetry:
      return "retry";
    case TaskEvent::kLeft:
      return "left";
    case TaskEvent::kShutdown:
      return "shutdown";
  }
  return "shutdown";
}

bool TaskCall::On(TaskEvent event) {
  const std::optional<TaskState> to = base::FindMove(kTaskMoves, state_, event);
  if (!to) return false;
  state_ = *to;
  return true;
}

bool TaskCall::RetryFetch() {
  if (state_ != TaskState::kFetching || fetch_retried_) return false;
  fetch_retried_ = true;
  return true;
}

// --- reading -------------------------------------------------------------------

std::optional<std::chrono::milliseconds> BoundPollInterval(const rapidjson::Value* poll_interval) {
  if (poll_interval == nullptr || !poll_interval->IsNumber()) return std::nullopt;
  const double ms = poll_interval->GetDouble();
  if (!std::isfinite(ms) || ms < 0) return std::nullopt;
  const double bounded = std::clamp(ms, static_cast<double>(kMinPollInterval.count()),
                                    static_cast<double>(kMaxPollInterval.count()));
  return std::chrono::milliseconds(static_cast<int64_t>(bounded));
}

std::variant<TaskInfo, std::string> ReadTask(const rapidjson::Value& task) {
  if (!task.IsObject()) return std::string("the task is not an object");
  const rapidjson::Value* id = Member(task, "taskId");
  if (id == nullptr || !id->IsString() || id->GetStringLength() == 0 ||
      id->GetStringLength() > kMaxTaskIdBytes) {
    return std::string("the task has no usable taskId");
  }
  const rapidjson::Value* status = Member(task, "status");
  std::optional<TaskStatus> known;
  if (status != nullptr && status->IsString()) {
    known = StatusOf(std::string_view(status->GetString(), status->GetStringLength()));
  }
  if (!known) return std::string("the task has no known status");
  TaskInfo info;
  info.id.assign(id->GetString(), id->GetStringLength());
  info.status = *known;
  const rapidjson::Value* message = Member(task, "statusMessage");
  if (message != nullptr && message->IsString()) {
    info.status_message = base::CleanServerText(
        std::string_view(message->GetString(), message->GetStringLength()), 4096);
  }
  info.poll_interval = BoundPollInterval(Member(task, "pollInterval"));
  return info;
}

bool DeclaresTaskToolCalls(const rapidjson::Value& initialize_result) {
  const rapidjson::Value* v = Member(initialize_result, "capabilities");
  for (const char* key : {"tasks", "requests", "tools", "call"}) {
    if (v == nullptr) return false;
    v = Member(*v, key);
  }
  return v != nullptr && v->IsObject();
}

const rapidjson::Value* CreatedTask(const rapidjson::Value& result) {
  return Member(result, "task");
}

// --- building ----------------------------------------------------------------

std::string TaskCallParams(std::string_view tool, std::string_view arguments_json, int64_t ttl_ms) {
  std::string out = "{\"name\":";
  base::AppendJsonString(&out, tool);
  out += ",\"arguments\":";
  out += arguments_json;
  out += ",\"task\":{\"ttl\":";
  out += std::to_string(std::max<int64_t>(ttl_ms, 1));
  out += "}}";
  return out;
}

std::string TaskIdParams(std::string_view task_id) {
  std::string out = "{\"taskId\":";
  base::AppendJsonString(&out, task_id);
  out += "}";
  return out;
}

// --- telling ----------------------------------------------------------------------

std::string InputRequiredTaskText(const TaskInfo& task) {
  std::string out =
      "the server needs input for this task (status input_required) that the gateway cannot "
      "give: it declares no client capabilities, so it cannot answer the server's questions; "
      "the task was cancelled";
  if (!task.status_message.empty()) out += " (the server said: " + task.status_message + ")";
  return out;
}

std::string CancelledTaskText(const TaskInfo& task) {
  std::string out = "the server cancelled the task";
  if (!task.status_message.empty()) out += ": " + task.status_message;
  return out;
}

}  // namespace mcpgw::mcp
