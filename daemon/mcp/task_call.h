// TaskCall: one call of a tool whose execution.taskSupport is "required",
// made as a task (revision 2025-11-25, basic/utilities/tasks; BEHAVIOR.md
// §12). The tools/call carries `task` ({"ttl": the call's remaining deadline})
// and is answered at once with a CreateTaskResult; the session then polls
// tasks/get at the server's pollInterval (bounded to 0.5–10 s) until the
// task ends, fetches what tasks/result holds, and turns it into text as it
// does an ordinary call's result. A call that ends while its task still runs
// (dropped, its deadline, input the gateway cannot give, shutdown) sends
// tasks/cancel.
//
// Passive, like AuthHold: TaskCalls (task_calls.h) reports events
// and reads the state; every move is in the table in task_call.cc. Beside
// the machine: pure functions that read a server's task and build the
// requests' params. Incoming values are untrusted and may have any shape.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <rapidjson/document.h>

namespace mcpgw::mcp {

enum class TaskState {
  kCreating,    // the task-augmented tools/call is out: at most once, like any call
  kPolling,     // the task runs at the server: tasks/get at its pollInterval
  kFetching,    // the task ended (completed, or failed without a statusMessage):
                // tasks/result is out
  kCancelling,  // the call left (dropped, or its deadline passed) while the
                // tools/call was out: its answer is awaited, for a while, to
                // learn the task to cancel
  kDone,        // the call has its outcome; a task still running was cancelled
};
std::string_view TaskStateName(TaskState s);

enum class TaskEvent {
  kWorking,   // the server says working (CreateTaskResult or tasks/get)
  kEnded,     // the server says completed, or failed without a statusMessage:
              // its result is fetched
  kSettled,   // the call has its outcome: failed with a statusMessage,
              // cancelled, input_required (tasks/cancel), a plain CallToolResult,
              // the result fetched, an error answer, a failure not retried
  kRetry,     // a tasks/get or tasks/result failed at the transport level and
              // is asked again at the next interval
  kLeft,      // the caller dropped the call, or its deadline passed
  kShutdown,  // the server is shut down or retired
};
std::string_view TaskEventName(TaskEvent e);

class TaskCall {
 public:
  TaskState state() const { return state_; }
  bool done() const { return state_ == TaskState::kDone; }

  // Makes the move the table gives for `event` from the current state and
  // returns true; returns false and changes nothing when it gives none.
  bool On(TaskEvent event);

  // tasks/result may be asked once more after a transport failure (it is a
  // read); true the first time only.
  bool RetryFetch();

 private:
  TaskState state_ = TaskState::kCreating;
  bool fetch_retried_ = false;
};

// --- what a server says about its task --------------------------------------

enum class TaskStatus { kWorking, kInputRequired, kCompleted, kFailed, kCancelled };

// The pollInterval bounds, and the interval when the server names none.
inline constexpr std::chrono::milliseconds kMinPollInterval{500};
inline constexpr std::chrono::milliseconds kMaxPollInterval{10'000};
inline constexpr std::chrono::milliseconds kDefaultPollInterval{1'000};
// A task id longer than this is refused (it travels in every poll).
inline constexpr size_t kMaxTaskIdBytes = 1024;

struct TaskInfo {
  std::string id;  // the server's taskId: may be a bearer token, never logged
  TaskStatus status = TaskStatus::kWorking;
  std::string status_message;  // cleaned server text; empty when absent
  // Its pollInterval, bounded; nullopt when it names none (or not a number).
  std::optional<std::chrono::milliseconds> poll_interval;
};

// A Task object (a CreateTaskResult's `task`, or a tasks/get result itself),
// or why it is none: taskId not a non-empty string within kMaxTaskIdBytes,
// status not one of the five.
std::variant<TaskInfo, std::string> ReadTask(const rapidjson::Value& task);

// The `task` member of a tools/call result: present means a CreateTaskResult
// (a plain CallToolResult has none); null when absent.
const rapidjson::Value* CreatedTask(const rapidjson::Value& result);

// Whether an initialize result's capabilities declare task-augmented
// tools/call (capabilities.tasks.requests.tools.call is an object).
bool DeclaresTaskToolCalls(const rapidjson::Value& initialize_result);

// A server's pollInterval in ms bounded to kMinPollInterval..kMaxPollInterval;
// nullopt when absent, not a number or negative (the caller keeps the last
// one named, else kDefaultPollInterval).
std::optional<std::chrono::milliseconds> BoundPollInterval(const rapidjson::Value* poll_interval);

// --- what the gateway sends -------------------------------------------------

// The params of a task-augmented tools/call:
// {"name":<tool>,"arguments":<arguments_json>,"task":{"ttl":<ttl_ms>}}, the
// arguments spliced in as is. `ttl_ms` is at least 1.
std::string TaskCallParams(std::string_view tool, std::string_view arguments_json, int64_t ttl_ms);
// The params of tasks/get, tasks/result and tasks/cancel: {"taskId":<id>}.
std::string TaskIdParams(std::string_view task_id);

// --- what the caller is told ------------------------------------------------

// input_required: the gateway cannot answer the server's questions.
std::string InputRequiredTaskText(const TaskInfo& task);
// The server cancelled the task.
std::string CancelledTaskText(const TaskInfo& task);

}  // namespace mcpgw::mcp
