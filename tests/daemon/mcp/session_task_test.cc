// Session calls made as tasks (BEHAVIOR.md §12), on the fake clock: the
// task-augmented tools/call and its ttl, polling at the bounded
// pollInterval, each status's outcome, reads asked again after transport
// failures, cancellation when the caller leaves, the deadline and shutdown;
// and tools that do not require tasks called byte for byte as before.
#include <algorithm>

#include "daemon/mcp/session_test_harness.h"

namespace mcpgw::mcp::testing {
namespace {

constexpr const char* kTaskId = "task-7f3c9e";

// A server declaring task-augmented tools/call (unless `declared` is false),
// with tools of each execution.taskSupport.
std::string TaskInitResult(bool declared = true) {
  const std::string tasks =
      declared ? R"("tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}})"
               : R"("tasks":{"list":{},"cancel":{}})";
  return R"({"protocolVersion":"2025-11-25","capabilities":{"tools":{},)" + tasks +
         R"(},"serverInfo":{"name":"fake","version":"1.0"}})";
}

std::string TaskToolsPage() {
  return R"({"tools":[)"
         R"({"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},)"
         R"({"name":"maybe","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},)"
         R"({"name":"never","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"}},)"
         R"({"name":"plain","inputSchema":{"type":"object"}}]})";
}

// A Task object; `poll_ms` < 0 leaves pollInterval out, an empty `message`
// statusMessage.
std::string Task(const std::string& status, int poll_ms = 1000, const std::string& message = "") {
  std::string out =
      std::string(R"({"taskId":")") + kTaskId + R"(","status":")" + status +
      R"(","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":300000)";
  if (poll_ms >= 0) out += ",\"pollInterval\":" + std::to_string(poll_ms);
  if (!message.empty()) out += ",\"statusMessage\":\"" + message + "\"";
  return out + "}";
}
std::string Created(const std::string& status = "working", int poll_ms = 1000,
                    const std::string& message = "") {
  return "{\"task\":" + Task(status, poll_ms, message) + "}";
}

std::string Blocks() {
  return R"({"content":[{"type":"text","text":"first"},{"type":"text","text":"second"},)"
         R"({"type":"image","data":"AA==","mimeType":"image/png"}],)"
         R"("_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-7f3c9e"}}})";
}

std::string RpcError(int64_t id, int code, const std::string& message) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
         ",\"error\":{\"code\":" + std::to_string(code) + ",\"message\":\"" + message + "\"}}";
}

// The taskId of a tasks/* request.
std::string TaskIdOf(const StartTransfer& t) {
  rapidjson::Document doc = ParseJson(t.body);
  return doc["params"]["taskId"].GetString();
}

class TaskHarness : public Harness {
 public:
  explicit TaskHarness(SessionLimits limits = {}, bool declared = true) : Harness(limits) {
    session.Start(now);
    RespondJson(NextPost("initialize"), TaskInitResult(declared), "sid-1");
    Accept202(NextPost("notifications/initialized").id);
    RespondJson(NextPost("tools/list"), TaskToolsPage());
    REQUIRE(session.status() == Status::kReady);
    listen = Next(HttpMethod::kGet);
    state_changes = 0;
  }

  bool HasPost(const std::string& rpc_method) {
    Pump();
    return std::any_of(starts.begin(), starts.end(), [&](const StartTransfer& t) {
      return t.method == HttpMethod::kPost && MethodOf(t) == rpc_method;
    });
  }
  // Calls `job` and answers its tools/call with a task of `poll_ms`.
  StartTransfer CallJob(CallId id = 1, int poll_ms = 1000) {
    session.Call(id, "job", R"({"env":"prod"})", now);
    StartTransfer call = NextPost("tools/call");
    RespondJson(call, Created("working", poll_ms));
    return call;
  }
  // Waits out the interval and answers the tasks/get it brings with `task`.
  StartTransfer Poll(Duration interval, const std::string& task) {
    Advance(interval);
    StartTransfer get = NextPost("tasks/get");
    RespondJson(get, task);
    return get;
  }
  const CallFinished& Only() {
    REQUIRE(finished.size() == 1);
    return finished[0];
  }
};

TEST_CASE("task: a required tool's tools/call carries task.ttl, at most once", "[session][task]") {
  TaskHarness h;
  h.session.Call(1, "job", R"({"env":"prod","n":1.50})", h.now);
  StartTransfer call = h.NextPost("tools/call");
  const std::string params =
      R"({"name":"job","arguments":{"env":"prod","n":1.50},"task":{"ttl":300000}})";
  CHECK(call.body == "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(RpcIdOf(call)) +
                         ",\"method\":\"tools/call\",\"params\":" + params + "}");
  CHECK(call.at_most_once);
  CHECK(HeaderOf(call, "Mcp-Session-Id") == "sid-1");

  SECTION("the ttl is what is left of the call's deadline when it is sent") {
    // 2 s later the server answers that the session expired: the call goes
    // once more, in a new session, with what is left.
    h.Advance(2s);
    h.Respond(call.id, 404, "text/plain", "");
    h.RespondJson(h.NextPost("initialize"), TaskInitResult(), "sid-2");
    h.Accept202(h.NextPost("notifications/initialized").id);
    h.Advance(500ms);
    h.RespondJson(h.NextPost("tools/list"), TaskToolsPage());
    StartTransfer again = h.NextPost("tools/call");
    CHECK(ParseJson(again.body)["params"]["task"]["ttl"].GetInt64() == 297500);
    CHECK(again.at_most_once);
  }
  SECTION("a connection lost after the request was sent is never sent again") {
    h.Done(call.id, "connection reset by peer");
    const CallFinished& done = h.Only();
    CHECK(done.outcome.kind == CallErrorKind::kTransport);
    CHECK(done.outcome.text ==
          "connection reset by peer; the tool may have run, and calling it again may run it again");
    h.Advance(1min);
    CHECK_FALSE(h.HasPost("tools/call"));
    CHECK_FALSE(h.HasPost("tasks/get"));
  }
}

TEST_CASE("task: the call deadline sets the ttl", "[session][task]") {
  SessionLimits limits;
  limits.call_deadline = 90s;
  TaskHarness h(limits);
  h.session.Call(1, "job", "{}", h.now);
  CHECK(ParseJson(h.NextPost("tools/call").body)["params"]["task"]["ttl"].GetInt64() == 90000);
}

TEST_CASE("task: polled at the server's pollInterval, bounded to 0.5-10 s", "[session][task]") {
  struct Row {
    int poll_ms;  // < 0: none named
    Duration interval;
  };
  const Row rows[] = {{100, 500ms}, {2500, 2500ms}, {60000, 10s}, {-1, 1s}};
  for (const Row& row : rows) {
    INFO(row.poll_ms);
    TaskHarness h;
    h.CallJob(1, row.poll_ms);
    CHECK(h.session.NextWakeup() == h.now + row.interval);
    h.Advance(row.interval - 1ms);
    CHECK_FALSE(h.HasPost("tasks/get"));
    h.Advance(1ms);
    StartTransfer get = h.NextPost("tasks/get");
    CHECK(TaskIdOf(get) == kTaskId);
    CHECK(get.body == "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(RpcIdOf(get)) +
                          R"(,"method":"tasks/get","params":{"taskId":"task-7f3c9e"}})");
    CHECK_FALSE(get.at_most_once);
    CHECK(HeaderOf(get, "Mcp-Session-Id") == "sid-1");
    // Each answer's pollInterval sets the next wait; one that names none
    // keeps the last.
    h.RespondJson(get, Task("working", 3000));
    CHECK(h.session.NextWakeup() == h.now + 3s);
    h.Advance(3s);
    h.RespondJson(h.NextPost("tasks/get"), Task("working", -1));
    CHECK(h.session.NextWakeup() == h.now + 3s);
    CHECK(h.finished.empty());
  }
}

TEST_CASE("task: completed: tasks/result's result is the call's text", "[session][task]") {
  TaskHarness h;
  StartTransfer call = h.CallJob();
  h.Poll(1s, Task("working"));
  h.Poll(1s, Task("working"));
  h.Poll(1s, Task("completed"));
  StartTransfer result = h.NextPost("tasks/result");
  CHECK(TaskIdOf(result) == kTaskId);
  CHECK_FALSE(result.at_most_once);
  CHECK(h.finished.empty());
  const std::string answer = Result(RpcIdOf(result), Blocks());
  h.Respond(result.id, 200, "application/json", answer);
  const CallFinished& done = h.Only();
  CHECK(done.id == 1);
  CHECK(done.outcome.kind == CallErrorKind::kNone);
  CHECK(done.outcome.text == "first\n\nsecond\n\n[image omitted: image/png]");
  // The call log sees the tools/call's params and every request's bytes.
  CHECK(done.outcome.request_params ==
        R"({"name":"job","arguments":{"env":"prod"},"task":{"ttl":300000}})");
  CHECK(done.outcome.bytes_out > call.body.size() + result.body.size());
  CHECK(done.outcome.bytes_in > answer.size());
  h.Advance(1min);  // nothing more to poll
  CHECK_FALSE(h.HasPost("tasks/get"));
  // The task id never reaches a log line.
  for (const std::string& line : h.logs) CHECK(line.find(kTaskId) == std::string::npos);
  CHECK(h.Logged("a task call ended after 3 tasks/get"));
}

TEST_CASE("task: each status's outcome", "[session][task]") {
  TaskHarness h;
  h.CallJob();
  SECTION("completed with isError is backend") {
    h.Poll(1s, Task("completed"));
    StartTransfer result = h.NextPost("tasks/result");
    h.RespondJson(result,
                  R"({"content":[{"type":"text","text":"no such branch"}],"isError":true})");
    CHECK(h.Only().outcome.kind == CallErrorKind::kBackend);
    CHECK(h.Only().outcome.text == "no such branch");
  }
  SECTION("failed with a statusMessage is backend with it, no result fetched") {
    h.Poll(1s, Task("failed", 1000, "disk quota exceeded"));
    CHECK(h.Only().outcome.kind == CallErrorKind::kBackend);
    CHECK(h.Only().outcome.text == "disk quota exceeded");
    CHECK_FALSE(h.HasPost("tasks/result"));
    CHECK_FALSE(h.HasPost("tasks/cancel"));
  }
  SECTION("failed without one: the result's text, as backend whatever isError says") {
    h.Poll(1s, Task("failed"));
    h.RespondJson(h.NextPost("tasks/result"),
                  R"({"content":[{"type":"text","text":"the API refused the job"}]})");
    CHECK(h.Only().outcome.kind == CallErrorKind::kBackend);
    CHECK(h.Only().outcome.text == "the API refused the job");
  }
  SECTION("failed, and tasks/result answers the request's JSON-RPC error: backend") {
    h.Poll(1s, Task("failed"));
    StartTransfer result = h.NextPost("tasks/result");
    h.Respond(result.id, 200, "application/json",
              RpcError(RpcIdOf(result), -32603, "rate limit exceeded"));
    CHECK(h.Only().outcome.kind == CallErrorKind::kBackend);
    CHECK(h.Only().outcome.text == "error -32603: rate limit exceeded");
  }
  SECTION("cancelled by the server is transport") {
    h.Poll(1s, Task("cancelled", 1000, "an operator stopped it"));
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text == "the server cancelled the task: an operator stopped it");
    CHECK_FALSE(h.HasPost("tasks/cancel"));
  }
  SECTION("input_required ends the call at once as backend, and the task is cancelled") {
    h.Poll(1s, Task("input_required", 1000, "Which branch?"));
    const CallFinished& done = h.Only();
    CHECK(done.outcome.kind == CallErrorKind::kBackend);
    CHECK(done.outcome.text.find("cannot answer the server's questions") != std::string::npos);
    CHECK(done.outcome.text.find("Which branch?") != std::string::npos);
    StartTransfer cancel = h.NextPost("tasks/cancel");
    CHECK(TaskIdOf(cancel) == kTaskId);
    CHECK(HeaderOf(cancel, "Mcp-Session-Id") == "sid-1");
    CHECK_FALSE(h.HasPost("tasks/result"));
    h.Advance(10s);
    CHECK_FALSE(h.HasPost("tasks/get"));
  }
  SECTION("a JSON-RPC error to tasks/get is transport") {
    h.Advance(1s);
    StartTransfer get = h.NextPost("tasks/get");
    h.Respond(get.id, 200, "application/json",
              RpcError(RpcIdOf(get), -32602, "Failed to retrieve task: Task not found"));
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text ==
          "tasks/get failed: error -32602: Failed to retrieve task: Task not found; the tool may "
          "have run, and calling it again may run it again");
    h.Advance(10s);
    CHECK_FALSE(h.HasPost("tasks/get"));
  }
  SECTION("a JSON-RPC error to tasks/result of a completed task is transport") {
    h.Poll(1s, Task("completed"));
    StartTransfer result = h.NextPost("tasks/result");
    h.Respond(result.id, 200, "application/json",
              RpcError(RpcIdOf(result), -32602, "Task not found"));
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text.rfind("tasks/result failed: error -32602: Task not found; ", 0) ==
          0);
  }
  SECTION("an answer that is no task is transport, and the task is cancelled") {
    h.Poll(1s, R"({"status":"working"})");
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text.rfind("invalid tasks/get result from server", 0) == 0);
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
  }
}

TEST_CASE("task: what the tools/call itself may answer", "[session][task]") {
  TaskHarness h;
  h.session.Call(1, "job", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  SECTION("a plain CallToolResult is converted as an ordinary call's") {
    h.RespondJson(call, R"({"content":[{"type":"text","text":"done at once"}]})");
    CHECK(h.Only().outcome.kind == CallErrorKind::kNone);
    CHECK(h.Only().outcome.text == "done at once");
    CHECK_FALSE(h.HasPost("tasks/get"));
  }
  SECTION("a JSON-RPC error is backend") {
    h.Respond(call.id, 200, "application/json",
              RpcError(RpcIdOf(call), -32601, "tasks not supported"));
    CHECK(h.Only().outcome.kind == CallErrorKind::kBackend);
    CHECK(h.Only().outcome.text == "error -32601: tasks not supported");
  }
  SECTION("a task already completed is fetched at once") {
    h.RespondJson(call, Created("completed"));
    h.RespondJson(h.NextPost("tasks/result"), Blocks());
    CHECK(h.Only().outcome.text == "first\n\nsecond\n\n[image omitted: image/png]");
  }
  SECTION("a task already needing input is cancelled at once") {
    h.RespondJson(call, Created("input_required"));
    CHECK(h.Only().outcome.kind == CallErrorKind::kBackend);
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
  }
  SECTION("a CreateTaskResult without a usable task is transport") {
    h.RespondJson(call, R"({"task":{"status":"working"}})");
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text.rfind("invalid CreateTaskResult from server: ", 0) == 0);
  }
  SECTION("over SSE, like any answer") {
    h.Head(call.id, 200, "text/event-stream");
    h.Data(call.id, SseMessage(Result(RpcIdOf(call), Created("working", 700)), "e1"));
    h.Done(call.id);
    CHECK(h.finished.empty());
    h.Advance(700ms);
    CHECK(TaskIdOf(h.NextPost("tasks/get")) == kTaskId);
  }
}

TEST_CASE("task: a poll that fails at the transport level is asked again", "[session][task]") {
  TaskHarness h;
  h.CallJob();
  h.Advance(1s);
  StartTransfer get = h.NextPost("tasks/get");
  SECTION("a connection lost, then HTTP 503, then an answer") {
    h.Done(get.id, "connection reset by peer");
    CHECK(h.finished.empty());
    CHECK(h.session.NextWakeup() == h.now + 1s);
    h.Advance(1s);
    StartTransfer second = h.NextPost("tasks/get");
    h.Respond(second.id, 503, "text/plain", "busy");
    CHECK(h.finished.empty());
    h.Poll(1s, Task("completed"));
    h.RespondJson(h.NextPost("tasks/result"), Blocks());
    CHECK(h.Only().outcome.kind == CallErrorKind::kNone);
    CHECK(h.Logged("tasks/get failed: HTTP 503 from server; asking again in 1 s"));
  }
  SECTION("a poll that hangs is asked again after its own bound") {
    h.Advance(2min);
    CHECK(h.Aborted(get.id));
    CHECK(h.finished.empty());
    h.Poll(1s, Task("completed"));
    h.RespondJson(h.NextPost("tasks/result"), Blocks());
    CHECK(h.Only().outcome.kind == CallErrorKind::kNone);
  }
  SECTION("a refusal that is no passing trouble ends the call") {
    h.Respond(get.id, 403, "text/plain", "forbidden");
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text.rfind("tasks/get failed: HTTP 403 from server", 0) == 0);
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
  }
  SECTION("failures until the deadline end it there, naming the last") {
    h.Done(get.id, "connection refused", /*request_sent=*/false);
    for (int i = 0; i < 400 && h.finished.empty(); ++i) {
      h.Advance(1s);
      if (h.HasPost("tasks/get")) h.Done(h.NextPost("tasks/get").id, "connection refused", false);
    }
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text ==
          "timed out after 5 min (last: tasks/get failed: connection refused)");
  }
}

TEST_CASE("task: tasks/result is asked again once", "[session][task]") {
  TaskHarness h;
  h.CallJob();
  h.Poll(1s, Task("completed"));
  h.Done(h.NextPost("tasks/result").id, "connection reset by peer");
  CHECK(h.finished.empty());
  h.Advance(1s);
  StartTransfer again = h.NextPost("tasks/result");
  SECTION("and answered") {
    h.RespondJson(again, Blocks());
    CHECK(h.Only().outcome.kind == CallErrorKind::kNone);
  }
  SECTION("not a third time") {
    h.Done(again.id, "connection reset by peer");
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text.rfind("tasks/result failed: connection reset by peer", 0) == 0);
    h.Advance(10s);
    CHECK_FALSE(h.HasPost("tasks/result"));
    CHECK_FALSE(h.HasPost("tasks/cancel"));  // the task ended: nothing to cancel
  }
}

TEST_CASE("task: dropping the call cancels its task", "[session][task]") {
  TaskHarness h;
  SECTION("between polls") {
    h.CallJob();
    h.Poll(1s, Task("working"));
    h.session.Cancel(1, h.now);
    StartTransfer cancel = h.NextPost("tasks/cancel");
    CHECK(TaskIdOf(cancel) == kTaskId);
    CHECK(HeaderOf(cancel, "Mcp-Session-Id") == "sid-1");
    CHECK_FALSE(h.HasPost("notifications/cancelled"));
    h.Respond(cancel.id, 200, "application/json",
              Result(RpcIdOf(cancel), Task("cancelled", 1000, "Client cancelled")));
    h.Advance(1min);
    CHECK_FALSE(h.HasPost("tasks/get"));
    CHECK(h.finished.empty());
  }
  SECTION("while a tasks/get is out: it is aborted") {
    h.CallJob();
    h.Advance(1s);
    StartTransfer get = h.NextPost("tasks/get");
    h.session.Cancel(1, h.now);
    CHECK(h.Aborted(get.id));
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
    h.RespondJson(get, Task("completed"));  // late: ignored
    CHECK_FALSE(h.HasPost("tasks/result"));
    CHECK(h.finished.empty());
  }
  SECTION("while the tools/call is out: notifications/cancelled, then the task it made") {
    h.session.Call(1, "job", "{}", h.now);
    StartTransfer call = h.NextPost("tools/call");
    h.Head(call.id, 200, "text/event-stream");
    h.session.Cancel(1, h.now);
    StartTransfer told = h.NextPost("notifications/cancelled");
    CHECK(ParseJson(told.body)["params"]["requestId"].GetInt64() == RpcIdOf(call));
    CHECK_FALSE(h.Aborted(call.id));  // its answer may name the task
    h.Data(call.id, SseMessage(Result(RpcIdOf(call), Created("working"))));
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
    h.Done(call.id);
    h.Advance(1min);
    CHECK_FALSE(h.HasPost("tasks/get"));
    CHECK(h.finished.empty());
  }
  SECTION("while the tools/call is out, and no task comes: given up after 30 s") {
    h.session.Call(1, "job", "{}", h.now);
    StartTransfer call = h.NextPost("tools/call");
    h.session.Cancel(1, h.now);
    h.NextPost("notifications/cancelled");
    h.Advance(30s);
    CHECK(h.Aborted(call.id));
    CHECK_FALSE(h.HasPost("tasks/cancel"));
    CHECK(h.finished.empty());
    h.Advance(5min);
    CHECK_FALSE(h.HasPost("tools/call"));
    CHECK_FALSE(h.HasPost("tasks/get"));
  }
  SECTION("while the tools/call is out, and it is refused 404: never sent again") {
    h.session.Call(1, "job", "{}", h.now);
    StartTransfer call = h.NextPost("tools/call");
    h.session.Cancel(1, h.now);
    h.NextPost("notifications/cancelled");
    h.Respond(call.id, 404, "text/plain", "");
    h.RespondJson(h.NextPost("initialize"), TaskInitResult(), "sid-2");
    h.Accept202(h.NextPost("notifications/initialized").id);
    h.RespondJson(h.NextPost("tools/list"), TaskToolsPage());
    CHECK_FALSE(h.HasPost("tools/call"));
    CHECK(h.finished.empty());
  }
  SECTION("before the tools/call went out: nothing is sent") {
    // Credentials are awaited: the call queues.
    h.answer_authorization = false;
    h.session.Call(9, "plain", "{}", h.now);
    h.Respond(h.NextPost("tools/call").id, 401, "application/json", "{}");
    h.session.Call(1, "job", "{}", h.now);
    h.session.Cancel(1, h.now);
    h.session.OnAuthorized(h.now);
    h.Pump();
    StartTransfer resent = h.NextPost("tools/call");
    CHECK(ParseJson(resent.body)["params"]["name"].GetString() == std::string("plain"));
    CHECK_FALSE(h.HasPost("tools/call"));
    CHECK_FALSE(h.HasPost("notifications/cancelled"));
  }
  SECTION("while its result is fetched: nothing to cancel") {
    h.CallJob();
    h.Poll(1s, Task("completed"));
    StartTransfer result = h.NextPost("tasks/result");
    h.session.Cancel(1, h.now);
    CHECK(h.Aborted(result.id));
    CHECK_FALSE(h.HasPost("tasks/cancel"));
  }
}

TEST_CASE("task: the call's deadline cancels its task", "[session][task]") {
  TaskHarness h;
  SECTION("while polling") {
    h.CallJob();
    for (int i = 0; i < 299; ++i) h.Poll(1s, Task("working"));
    CHECK(h.finished.empty());
    h.Advance(1s);  // 5 min after the call
    CHECK(h.Only().outcome.kind == CallErrorKind::kTransport);
    CHECK(h.Only().outcome.text == "timed out after 5 min");
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
    CHECK_FALSE(h.HasPost("tasks/get"));
  }
  SECTION("while a poll is out: it is aborted") {
    h.CallJob(1, 10000);
    for (int i = 0; i < 28; ++i) h.Poll(10s, Task("working", 10000));
    h.Poll(10s, Task("working", 5000));  // 4 min 50 s: the next poll at 4 min 55 s
    h.Advance(5s);
    StartTransfer get = h.NextPost("tasks/get");
    CHECK(h.finished.empty());
    h.Advance(5s);
    CHECK(h.Only().outcome.text == "timed out after 5 min");
    CHECK(h.Aborted(get.id));
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
  }
  SECTION("while the tools/call is out: notifications/cancelled, then the task it made") {
    h.session.Call(1, "job", "{}", h.now);
    StartTransfer call = h.NextPost("tools/call");
    h.Head(call.id, 200, "text/event-stream");
    h.Advance(5min);
    CHECK(h.Only().outcome.text == "timed out after 5 min");
    StartTransfer told = h.NextPost("notifications/cancelled");
    CHECK(ParseJson(told.body)["params"]["reason"].GetString() == std::string("timed out"));
    h.Data(call.id, SseMessage(Result(RpcIdOf(call), Created("working"))));
    CHECK(TaskIdOf(h.NextPost("tasks/cancel")) == kTaskId);
    CHECK(h.finished.size() == 1);
  }
}

TEST_CASE("task: shutdown cancels running tasks before the DELETE", "[session][task]") {
  TaskHarness h;
  h.CallJob(1);
  h.CallJob(2);
  h.Advance(1s);
  StartTransfer get1 = h.NextPost("tasks/get");
  StartTransfer get2 = h.NextPost("tasks/get");
  h.RespondJson(get2, Task("completed"));
  StartTransfer result2 = h.NextPost("tasks/result");
  h.session.Shutdown(h.now);
  h.Pump();
  CHECK(h.Aborted(get1.id));
  CHECK(h.Aborted(result2.id));
  REQUIRE(h.finished.size() == 2);
  for (const CallFinished& f : h.finished) {
    CHECK(f.outcome.kind == CallErrorKind::kTransport);
    CHECK(f.outcome.text == "gateway shutting down");
  }
  // Only the running task is cancelled (the other one ended); the DELETE
  // waits for that.
  StartTransfer cancel = h.NextPost("tasks/cancel");
  CHECK(HeaderOf(cancel, "Mcp-Session-Id") == "sid-1");
  CHECK_FALSE(h.HasPost("tasks/cancel"));
  CHECK_FALSE(h.HasStart(HttpMethod::kDelete));
  h.Respond(cancel.id, 200, "application/json", Result(RpcIdOf(cancel), Task("cancelled")));
  StartTransfer del = h.Next(HttpMethod::kDelete);
  CHECK(HeaderOf(del, "Mcp-Session-Id") == "sid-1");
  CHECK_FALSE(h.session.NextWakeup().has_value());
}

TEST_CASE("task: shutdown with no running task deletes at once", "[session][task]") {
  TaskHarness h;
  h.session.Call(1, "job", "{}", h.now);
  StartTransfer call = h.NextPost("tools/call");
  h.session.Shutdown(h.now);
  h.Pump();
  CHECK(h.Aborted(call.id));
  CHECK(h.Only().outcome.text == "gateway shutting down");
  CHECK_FALSE(h.HasPost("tasks/cancel"));
  CHECK(h.HasStart(HttpMethod::kDelete));
}

TEST_CASE("task: optional, forbidden and plain tools are called as before, byte for byte",
          "[session][task]") {
  TaskHarness h;
  for (const char* tool : {"maybe", "never", "plain", "unlisted"}) {
    INFO(tool);
    h.session.Call(1, tool, R"({"a": 1})", h.now);
    StartTransfer call = h.NextPost("tools/call");
    CHECK(call.body == "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(RpcIdOf(call)) +
                           ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool +
                           "\",\"arguments\":{\"a\": 1}}}");
    CHECK(call.at_most_once);
    h.RespondJson(call, R"({"content":[{"type":"text","text":"ok"}]})");
    CHECK(h.finished.back().outcome.text == "ok");
    h.finished.clear();
  }
}

TEST_CASE("task: a server that does not declare tasks.requests.tools.call", "[session][task]") {
  // The tool requires a task: it is called as one anyway, and the log says so.
  TaskHarness h({}, /*declared=*/false);
  h.session.Call(1, "job", "{}", h.now);
  CHECK(ParseJson(h.NextPost("tools/call").body)["params"].HasMember("task"));
  CHECK(h.Logged("does not declare tasks.requests.tools.call"));
}

TEST_CASE("task: on the 2026-07-28 wire a required tool fails, nothing sent", "[session][task]") {
  Harness h({}, /*era_hint=*/"");
  h.session.Start(h.now);
  StartTransfer discover = h.NextPost("server/discover");
  h.RespondJson(discover, R"({"resultType":"complete","supportedVersions":["2026-07-28"],)"
                          R"("capabilities":{"tools":{}},"ttlMs":0})");
  h.RespondJson(h.NextPost("tools/list"), TaskToolsPage());
  REQUIRE(h.session.status() == Status::kReady);
  h.Pump();
  h.starts.clear();
  h.session.Call(1, "job", "{}", h.now);
  h.Pump();
  REQUIRE(h.finished.size() == 1);
  CHECK(h.finished[0].outcome.kind == CallErrorKind::kBackend);
  CHECK(h.finished[0].outcome.text.find("2025-11-25 wire only") != std::string::npos);
  CHECK(h.starts.empty());

  SECTION("an answer with resultType task is refused clearly") {
    h.session.Call(2, "plain", "{}", h.now);
    StartTransfer call = h.NextPost("tools/call");
    h.RespondJson(call, R"({"resultType":"task","taskId":"t","status":"working"})");
    REQUIRE(h.finished.size() == 2);
    CHECK(h.finished[1].outcome.kind == CallErrorKind::kTransport);
    CHECK(h.finished[1].outcome.text.find("resultType \"task\"") != std::string::npos);
  }
}

}  // namespace
}  // namespace mcpgw::mcp::testing
