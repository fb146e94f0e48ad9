// The task call's machine (daemon/mcp/task_call.h), walked through its table,
// and the task's wire shapes: reading a server's task, the bounded
// pollInterval, the params of the requests the gateway sends.
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "daemon/mcp/task_call.h"

namespace mcpgw::mcp {
namespace {

using namespace std::chrono_literals;

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

TEST_CASE("task call: moves", "[task_call]") {
  using E = TaskEvent;
  using S = TaskState;
  struct Row {
    const char* path;
    std::vector<TaskEvent> events;
    TaskState state;
    bool last_moved;  // false: the event changed nothing
  };
  const Row rows[] = {
      {"created working: polled", {E::kWorking}, S::kPolling, true},
      {"polled working again", {E::kWorking, E::kWorking, E::kWorking}, S::kPolling, true},
      {"a poll failed at the transport level: polled again",
       {E::kWorking, E::kRetry},
       S::kPolling,
       true},
      {"completed while polled: its result fetched", {E::kWorking, E::kEnded}, S::kFetching, true},
      {"created completed: its result fetched at once", {E::kEnded}, S::kFetching, true},
      {"the result fetched", {E::kWorking, E::kEnded, E::kSettled}, S::kDone, true},
      {"tasks/result asked again", {E::kEnded, E::kRetry}, S::kFetching, true},
      {"a plain result, an error, or a failure of the tools/call", {E::kSettled}, S::kDone, true},
      {"failed, cancelled or input_required while polled",
       {E::kWorking, E::kSettled},
       S::kDone,
       true},
      {"the caller left while the tools/call was out", {E::kLeft}, S::kCancelling, true},
      {"the tools/call's answer after the caller left", {E::kLeft, E::kSettled}, S::kDone, true},
      {"the caller left while polling: cancelled", {E::kWorking, E::kLeft}, S::kDone, true},
      {"the caller left while fetching", {E::kEnded, E::kLeft}, S::kDone, true},
      {"shutdown in every state", {E::kWorking, E::kShutdown}, S::kDone, true},
      {"shutdown while creating", {E::kShutdown}, S::kDone, true},
      {"shutdown while cancelling", {E::kLeft, E::kShutdown}, S::kDone, true},
      {"a retry of the tools/call is no move (at most once)", {E::kRetry}, S::kCreating, false},
      {"working after the result was asked for is no move",
       {E::kEnded, E::kWorking},
       S::kFetching,
       false},
      {"nothing moves a call that is done", {E::kSettled, E::kWorking}, S::kDone, false},
      {"leaving twice", {E::kLeft, E::kLeft}, S::kCancelling, false},
      {"the status of a task whose caller left", {E::kLeft, E::kWorking}, S::kCancelling, false},
  };
  for (const Row& row : rows) {
    INFO(row.path);
    TaskCall call;
    bool moved = false;
    for (TaskEvent e : row.events) moved = call.On(e);
    CHECK(TaskStateName(call.state()) == TaskStateName(row.state));
    CHECK(call.done() == (row.state == TaskState::kDone));
    CHECK(moved == row.last_moved);
  }
}

TEST_CASE("task call: tasks/result is asked again once", "[task_call]") {
  TaskCall call;
  CHECK_FALSE(call.RetryFetch());  // not fetching yet
  call.On(TaskEvent::kEnded);
  CHECK(call.RetryFetch());
  CHECK_FALSE(call.RetryFetch());
}

TEST_CASE("task call: names", "[task_call]") {
  CHECK(TaskStateName(TaskState::kCreating) == "creating");
  CHECK(TaskStateName(TaskState::kCancelling) == "cancelling");
  CHECK(TaskEventName(TaskEvent::kLeft) == "left");
  CHECK(TaskEventName(TaskEvent::kShutdown) == "shutdown");
}

TEST_CASE("task call: the pollInterval is bounded to 0.5-10 s", "[task_call]") {
  struct Row {
    const char* json;
    std::optional<std::chrono::milliseconds> bounded;
  };
  const Row rows[] = {
      {"100", 500ms},         {"500", 500ms},
      {"2500", 2500ms},       {"10000", 10s},
      {"60000", 10s},         {"1e300", 10s},
      {"0", 500ms},           {"750.9", 750ms},
      {"-5", std::nullopt},   {"\"5000\"", std::nullopt},
      {"null", std::nullopt}, {"{}", std::nullopt},
  };
  for (const Row& row : rows) {
    INFO(row.json);
    rapidjson::Document doc = Parse(row.json);
    CHECK(BoundPollInterval(&doc) == row.bounded);
  }
  CHECK(BoundPollInterval(nullptr) == std::nullopt);
  CHECK(kDefaultPollInterval == 1s);
}

TEST_CASE("task call: reading a task", "[task_call]") {
  SECTION("every field") {
    rapidjson::Document doc =
        Parse(R"({"taskId":"786512e2","status":"working","statusMessage":"In progress\u0007.",)"
              R"("createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z",)"
              R"("ttl":60000,"pollInterval":5000})");
    auto read = ReadTask(doc);
    REQUIRE(std::holds_alternative<TaskInfo>(read));
    const TaskInfo& task = std::get<TaskInfo>(read);
    CHECK(task.id == "786512e2");
    CHECK(task.status == TaskStatus::kWorking);
    CHECK(task.status_message == "In progress.");  // server text is cleaned
    CHECK(task.poll_interval == 5s);
  }
  SECTION("the five statuses") {
    const std::pair<const char*, TaskStatus> statuses[] = {
        {"working", TaskStatus::kWorking},     {"input_required", TaskStatus::kInputRequired},
        {"completed", TaskStatus::kCompleted}, {"failed", TaskStatus::kFailed},
        {"cancelled", TaskStatus::kCancelled},
    };
    for (const auto& [name, status] : statuses) {
      INFO(name);
      rapidjson::Document doc = Parse(std::string(R"({"taskId":"t","status":")") + name + R"("})");
      auto read = ReadTask(doc);
      REQUIRE(std::holds_alternative<TaskInfo>(read));
      CHECK(std::get<TaskInfo>(read).status == status);
      CHECK_FALSE(std::get<TaskInfo>(read).poll_interval.has_value());
    }
  }
  SECTION("what is no task") {
    const std::string long_id(kMaxTaskIdBytes + 1, 'x');
    for (const std::string& json :
         {std::string("[]"), std::string(R"({"status":"working"})"),
          std::string(R"({"taskId":"","status":"working"})"),
          std::string(R"({"taskId":7,"status":"working"})"),
          std::string(R"({"taskId":")") + long_id + R"(","status":"working"})",
          std::string(R"({"taskId":"t"})"), std::string(R"({"taskId":"t","status":"done"})"),
          std::string(R"({"taskId":"t","status":1})")}) {
      INFO(json);
      rapidjson::Document doc = Parse(json);
      CHECK(std::holds_alternative<std::string>(ReadTask(doc)));
    }
  }
}

TEST_CASE("task call: a CreateTaskResult and the server's capability", "[task_call]") {
  rapidjson::Document created = Parse(R"({"task":{"taskId":"t","status":"working"}})");
  REQUIRE(CreatedTask(created) != nullptr);
  CHECK(CreatedTask(*CreatedTask(created)) == nullptr);
  rapidjson::Document plain = Parse(R"({"content":[{"type":"text","text":"hi"}]})");
  CHECK(CreatedTask(plain) == nullptr);

  CHECK(DeclaresTaskToolCalls(
      Parse(R"({"capabilities":{"tasks":{"list":{},"requests":{"tools":{"call":{}}}}}})")));
  CHECK_FALSE(DeclaresTaskToolCalls(Parse(R"({"capabilities":{"tasks":{"list":{}}}})")));
  CHECK_FALSE(DeclaresTaskToolCalls(
      Parse(R"({"capabilities":{"tasks":{"requests":{"tools":{"call":true}}}}})")));
  CHECK_FALSE(DeclaresTaskToolCalls(Parse(R"({"capabilities":{}})")));
  CHECK_FALSE(DeclaresTaskToolCalls(Parse("[]")));
}

TEST_CASE("task call: the params sent", "[task_call]") {
  // The arguments are spliced in as the host sent them.
  CHECK(TaskCallParams("deploy", R"({"b":2,"a":1.50})", 300000) ==
        R"({"name":"deploy","arguments":{"b":2,"a":1.50},"task":{"ttl":300000}})");
  CHECK(TaskCallParams("x", "{}", 0) == R"({"name":"x","arguments":{},"task":{"ttl":1}})");
  CHECK(TaskIdParams("a\"b") == R"({"taskId":"a\"b"})");
}

TEST_CASE("task call: what the caller is told", "[task_call]") {
  TaskInfo task;
  task.id = "secret-task-id";
  task.status_message = "Which branch?";
  const std::string input = InputRequiredTaskText(task);
  CHECK(input.find("input_required") != std::string::npos);
  CHECK(input.find("cannot answer the server's questions") != std::string::npos);
  CHECK(input.find("the task was cancelled") != std::string::npos);
  CHECK(input.find("Which branch?") != std::string::npos);
  CHECK(input.find("secret-task-id") == std::string::npos);
  CHECK(CancelledTaskText(task) == "the server cancelled the task: Which branch?");
  task.status_message.clear();
  CHECK(CancelledTaskText(task) == "the server cancelled the task");
}

}  // namespace
}  // namespace mcpgw::mcp
