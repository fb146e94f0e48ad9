// A local server's session (BEHAVIOR.md §17) driven through its face, as the
// daemon drives it, with a fake clock and no process: what it asks of its
// driver (SpawnProcess, WriteInput, StopProcess) is recorded, and what the
// process would write on stdout is fed to it by hand, in any split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "daemon/mcp/session.h"

namespace mcpgw::mcp {
namespace {

using namespace std::chrono_literals;

std::string Result(int64_t id, const std::string& result) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":)" + result + "}";
}

std::string Error(int64_t id, int code, const std::string& message) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"error":{"code":)" +
         std::to_string(code) + R"(,"message":")" + message + "\"}}";
}

std::string InitResult() {
  return R"({"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},)"
         R"("serverInfo":{"name":"fake-stdio","version":"1.0"}})";
}

std::string ToolsPage(const std::vector<std::string>& names) {
  std::string out = R"({"tools":[)";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ",";
    out += R"({"name":")" + names[i] + R"(","inputSchema":{"type":"object"}})";
  }
  return out + "]}";
}

std::string CallResult(const std::string& text) {
  return R"({"content":[{"type":"text","text":")" + text + R"("}],"isError":false})";
}

// One line written to the process's stdin, parsed.
struct Written {
  std::string line;  // as written, with its "\n"
  rapidjson::Document doc;

  std::string method() const {
    if (!doc.IsObject() || !doc.HasMember("method") || !doc["method"].IsString()) return "";
    return doc["method"].GetString();
  }
  int64_t id() const {
    REQUIRE(doc.HasMember("id"));
    REQUIRE(doc["id"].IsInt64());
    return doc["id"].GetInt64();
  }
};

enum class Did { kSpawn, kWrite, kStop };

// The driver of a local server's session: a fake clock, a pretend process.
class StdioRig {
 public:
  explicit StdioRig(SessionLimits limits = {}) : session("local", limits) {}

  void Pump() {
    for (Action& a : session.TakeActions()) {
      if (std::holds_alternative<SpawnProcess>(a)) {
        did.push_back(Did::kSpawn);
        ++spawns;
      } else if (auto* w = std::get_if<WriteInput>(&a)) {
        did.push_back(Did::kWrite);
        // One message a line: exactly one newline, at its end.
        INFO(w->bytes);
        REQUIRE(!w->bytes.empty());
        CHECK(w->bytes.back() == '\n');
        CHECK(std::count(w->bytes.begin(), w->bytes.end(), '\n') == 1);
        CHECK(w->bytes.find('\r') == std::string::npos);
        Written written;
        written.line = w->bytes;
        written.doc.Parse(w->bytes.c_str(), w->bytes.size());
        REQUIRE_FALSE(written.doc.HasParseError());
        writes.push_back(std::move(written));
      } else if (std::holds_alternative<StopProcess>(a)) {
        did.push_back(Did::kStop);
        ++stops;
      } else if (auto* f = std::get_if<CallFinished>(&a)) {
        finished.push_back(std::move(*f));
      } else if (auto* l = std::get_if<LogLine>(&a)) {
        logs.push_back(l->text);
      } else if (std::holds_alternative<StateChanged>(a)) {
        ++state_changes;
      } else {
        FAIL("a local server's session asked for an HTTP action");
      }
    }
  }

  // Removes and returns the first line written whose method is `method` ("" for a reply).
  Written Take(const std::string& method) {
    Pump();
    for (auto it = writes.begin(); it != writes.end(); ++it) {
      if (it->method() == method) {
        Written w = std::move(*it);
        writes.erase(it);
        return w;
      }
    }
    std::string seen;
    for (const Written& w : writes) seen += w.line;
    FAIL("nothing with method \"" << method << "\" was written; written: " << seen);
    return {};
  }
  bool Wrote(const std::string& method) {
    Pump();
    return std::any_of(writes.begin(), writes.end(),
                       [&](const Written& w) { return w.method() == method; });
  }

  // What the process writes on stdout.
  void Out(const std::string& bytes) {
    session.OnProcessOutput(bytes, now);
    Pump();
  }
  void Line(const std::string& json) { Out(json + "\n"); }
  void Advance(Duration d) {
    now += d;
    session.OnTimer(now);
    Pump();
  }

  // Start → server/discover (refused the 2025 way) → initialize →
  // notifications/initialized → tools/list → ready.
  void BringUp(const std::vector<std::string>& tools = {"echo"}) {
    session.Start(now);
    Pump();
    REQUIRE(spawns == 1);
    Line(Error(Take("server/discover").id(), -32601, "Method not found"));
    Line(Result(Take("initialize").id(), InitResult()));
    Take("notifications/initialized");
    Line(Result(Take("tools/list").id(), ToolsPage(tools)));
    REQUIRE(session.status() == Status::kReady);
    state_changes = 0;
  }

  std::vector<std::string> Tools() const {
    std::vector<std::string> out;
    for (const Tool& t : *session.tools()) out.emplace_back(t.name);
    std::sort(out.begin(), out.end());
    return out;
  }

  TimePoint now = TimePoint{} + std::chrono::hours(1);
  Session session;
  std::vector<Did> did;
  std::deque<Written> writes;
  int spawns = 0;
  int stops = 0;
  std::vector<CallFinished> finished;
  std::vector<std::string> logs;
  int state_changes = 0;
};

TEST_CASE("stdio: the handshake over stdin and stdout, one line a message", "[stdio_wire][local]") {
  StdioRig r;
  r.session.Start(r.now);
  r.Pump();
  // The process first, then the era probe written to it.
  REQUIRE(r.did.size() >= 2);
  CHECK(r.did[0] == Did::kSpawn);
  CHECK(r.did[1] == Did::kWrite);
  CHECK(r.spawns == 1);
  CHECK(r.session.status() == Status::kLoading);
  const Written discover = r.Take("server/discover");
  CHECK(r.writes.empty());

  // A 2025 server refuses the probe: it is initialized next.
  r.Line(Error(discover.id(), -32601, "Method not found"));
  const Written init = r.Take("initialize");
  CHECK(std::string(init.doc["params"]["protocolVersion"].GetString()) == "2025-11-25");
  CHECK_FALSE(r.Wrote("tools/list"));  // nothing before the handshake's end

  // Its answer: notifications/initialized, then tools/list, in that order.
  r.Line(Result(init.id(), InitResult()));
  REQUIRE(r.writes.size() == 2);
  CHECK(r.writes[0].method() == "notifications/initialized");
  CHECK_FALSE(r.writes[0].doc.HasMember("id"));
  CHECK(r.writes[1].method() == "tools/list");
  r.Take("notifications/initialized");
  const Written list = r.Take("tools/list");

  r.Line(Result(list.id(), ToolsPage({"echo", "add"})));
  CHECK(r.session.status() == Status::kReady);
  CHECK(r.Tools() == std::vector<std::string>{"add", "echo"});
  CHECK(r.session.protocol_version() == "2025-11-25");
  CHECK(r.state_changes >= 1);
  CHECK(r.spawns == 1);
  CHECK(r.stops == 0);
  CHECK(r.session.skipped_lines() == 0);
}

TEST_CASE("stdio: an answer split anywhere across reads is read whole", "[stdio_wire][local]") {
  SECTION("every two-way split of the initialize answer") {
    StdioRig probe;
    probe.session.Start(probe.now);
    const int64_t discover_id = probe.Take("server/discover").id();
    probe.Line(Error(discover_id, -32601, "Method not found"));
    const int64_t init_id = probe.Take("initialize").id();
    const std::string answer = Result(init_id, InitResult()) + "\n";
    for (size_t cut = 0; cut <= answer.size(); ++cut) {
      INFO("cut at " << cut);
      StdioRig r;
      r.session.Start(r.now);
      REQUIRE(r.Take("server/discover").id() == discover_id);
      r.Line(Error(discover_id, -32601, "Method not found"));
      REQUIRE(r.Take("initialize").id() == init_id);
      r.Out(answer.substr(0, cut));
      if (cut < answer.size()) {
        CHECK_FALSE(r.Wrote("notifications/initialized"));
        r.Out(answer.substr(cut));
      }
      CHECK(r.Wrote("notifications/initialized"));
      CHECK(r.Wrote("tools/list"));
      CHECK(r.session.skipped_lines() == 0);
    }
  }

  SECTION("the whole bring-up fed one byte at a time, CRLF line ends") {
    StdioRig r;
    r.session.Start(r.now);
    auto bytewise = [&](const std::string& text) {
      for (char c : text) r.Out(std::string(1, c));
    };
    bytewise(Error(r.Take("server/discover").id(), -32601, "Method not found") + "\r\n");
    bytewise(Result(r.Take("initialize").id(), InitResult()) + "\r\n");
    r.Take("notifications/initialized");
    bytewise(Result(r.Take("tools/list").id(), ToolsPage({"echo"})) + "\r\n");
    CHECK(r.session.status() == Status::kReady);
    CHECK(r.Tools() == std::vector<std::string>{"echo"});
    CHECK(r.session.skipped_lines() == 0);
  }

  SECTION("two answers in one stream, cut at every byte") {
    StdioRig probe;
    probe.BringUp();
    probe.session.Call(1, "echo", "{}", probe.now);
    probe.session.Call(2, "echo", "{}", probe.now);
    const int64_t first = probe.Take("tools/call").id();
    const int64_t second = probe.Take("tools/call").id();
    const std::string stream =
        Result(first, CallResult("one")) + "\n" + Result(second, CallResult("two")) + "\n";
    for (size_t cut = 0; cut <= stream.size(); ++cut) {
      INFO("cut at " << cut);
      StdioRig r;
      r.BringUp();
      r.session.Call(1, "echo", "{}", r.now);
      r.session.Call(2, "echo", "{}", r.now);
      REQUIRE(r.Take("tools/call").id() == first);
      REQUIRE(r.Take("tools/call").id() == second);
      r.Out(stream.substr(0, cut));
      r.Out(stream.substr(cut));
      REQUIRE(r.finished.size() == 2);
      CHECK(r.finished[0].id == 1);
      CHECK(r.finished[0].outcome.text == "one");
      CHECK(r.finished[1].id == 2);
      CHECK(r.finished[1].outcome.text == "two");
    }
  }
}

TEST_CASE("stdio: a server logging to stdout is skipped and counted", "[stdio_wire][local]") {
  StdioRig r;
  r.session.Start(r.now);
  const Written discover = r.Take("server/discover");
  r.Out("Server started on stdio\n");
  CHECK(r.session.skipped_lines() == 1);
  CHECK(r.session.status() == Status::kLoading);
  CHECK(r.stops == 0);
  CHECK(r.spawns == 1);
  CHECK(std::any_of(r.logs.begin(), r.logs.end(), [](const std::string& l) {
    return l.find("Server started on stdio") != std::string::npos;
  }));
  r.Line(Error(discover.id(), -32601, "Method not found"));
  r.Out("[info] connected\n{not json at all}\n");
  CHECK(r.session.skipped_lines() == 3);
  r.Line(Result(r.Take("initialize").id(), InitResult()));
  r.Take("notifications/initialized");
  r.Line(Result(r.Take("tools/list").id(), ToolsPage({"echo"})));
  CHECK(r.session.status() == Status::kReady);
  CHECK(r.session.skipped_lines() == 3);
  CHECK(r.session.reason().empty());
}

TEST_CASE("stdio: an answer to an id never sent is ignored", "[stdio_wire][local]") {
  StdioRig r;
  r.BringUp();
  r.session.Call(5, "echo", "{}", r.now);
  const int64_t id = r.Take("tools/call").id();
  r.Line(Result(id + 1000, CallResult("stray")));
  r.Line(Result(id - 1, CallResult("old")));  // the tools/list answered already
  CHECK(r.finished.empty());
  CHECK(r.session.status() == Status::kReady);
  CHECK(r.stops == 0);
  r.Line(Result(id, CallResult("mine")));
  REQUIRE(r.finished.size() == 1);
  CHECK(r.finished[0].id == 5);
  CHECK(r.finished[0].outcome.kind == CallErrorKind::kNone);
  CHECK(r.finished[0].outcome.text == "mine");
}

TEST_CASE("stdio: a call is one tools/call line with the daemon's own id", "[stdio_wire][local]") {
  StdioRig r;
  r.BringUp();
  const CallId host_id = 987654321;
  // A host's arguments with raw line breaks between tokens (pretty-printed).
  const std::string args = "{\n  \"text\": \"a\\nb\",\r\n  \"n\": [1,\n 2]\n}";
  r.session.Call(host_id, "echo", args, r.now);
  const Written call = r.Take("tools/call");
  CHECK(call.line.find(std::to_string(host_id)) == std::string::npos);
  CHECK(call.id() != static_cast<int64_t>(host_id));
  CHECK(std::string(call.doc["params"]["name"].GetString()) == "echo");
  const rapidjson::Value& sent = call.doc["params"]["arguments"];
  CHECK(std::string(sent["text"].GetString()) == "a\nb");  // the escaped one is kept
  REQUIRE(sent["n"].IsArray());
  CHECK(sent["n"].Size() == 2);

  r.Line(Result(call.id(), CallResult("hello")));
  REQUIRE(r.finished.size() == 1);
  CHECK(r.finished[0].id == host_id);
  CHECK(r.finished[0].outcome.kind == CallErrorKind::kNone);
  CHECK(r.finished[0].outcome.text == "hello");
}

TEST_CASE("stdio: a line past max_response_bytes fails its call, the next line is read",
          "[stdio_wire][local]") {
  SessionLimits limits;
  limits.max_response_bytes = 2048;
  StdioRig r(limits);
  r.BringUp();
  r.session.Call(1, "echo", "{}", r.now);
  r.session.Call(2, "echo", "{}", r.now);
  const int64_t big = r.Take("tools/call").id();
  const int64_t small = r.Take("tools/call").id();
  const std::string huge = Result(big, CallResult(std::string(10000, 'x')));
  const std::string stream = huge + "\n" + Result(small, CallResult("fine")) + "\n";
  // In pieces, so that the bound is crossed mid-read.
  for (size_t at = 0; at < stream.size(); at += 700) r.Out(stream.substr(at, 700));
  REQUIRE(r.finished.size() == 2);
  CHECK(r.finished[0].id == 1);
  CHECK(r.finished[0].outcome.kind != CallErrorKind::kNone);
  CHECK(r.finished[0].outcome.text.find("max_response_bytes") != std::string::npos);
  CHECK(r.finished[1].id == 2);
  CHECK(r.finished[1].outcome.kind == CallErrorKind::kNone);
  CHECK(r.finished[1].outcome.text == "fine");
  CHECK(r.session.status() == Status::kReady);
  CHECK(r.stops == 0);
}

TEST_CASE("stdio: an answer nested past max_json_depth fails its call", "[stdio_wire][local]") {
  SessionLimits limits;
  limits.max_json_depth = 16;
  StdioRig r(limits);
  r.BringUp();
  r.session.Call(1, "echo", "{}", r.now);
  const int64_t id = r.Take("tools/call").id();
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += R"({"a":)";
  deep += "1";
  for (int i = 0; i < 40; ++i) deep += "}";
  r.Line(Result(id, deep));
  REQUIRE(r.finished.size() == 1);
  CHECK(r.finished[0].id == 1);
  CHECK(r.finished[0].outcome.kind != CallErrorKind::kNone);
  CHECK_FALSE(r.finished[0].outcome.text.empty());
  // The server goes on serving.
  r.session.Call(2, "echo", "{}", r.now);
  r.Line(Result(r.Take("tools/call").id(), CallResult("ok")));
  REQUIRE(r.finished.size() == 2);
  CHECK(r.finished[1].outcome.text == "ok");
}

// The official TypeScript SDK (shared/protocol.js) writes a result as
// {result, jsonrpc, id}: the id comes last, after the whole result.
std::string ResultIdLast(int64_t id, const std::string& result) {
  return R"({"result":)" + result + R"(,"jsonrpc":"2.0","id":)" + std::to_string(id) + "}";
}

TEST_CASE("stdio: an oversized answer of a TypeScript SDK server fails its call at once",
          "[stdio_wire][local]") {
  SessionLimits limits;
  limits.max_response_bytes = 2048;
  StdioRig r(limits);
  r.BringUp();
  r.session.Call(1, "echo", "{}", r.now);
  r.session.Call(2, "echo", "{}", r.now);
  const int64_t big = r.Take("tools/call").id();
  const int64_t small = r.Take("tools/call").id();
  r.Line(ResultIdLast(big, CallResult(std::string(10000, 'x'))));
  r.Line(ResultIdLast(small, CallResult("fine")));
  // The small one is read whatever became of the big one.
  REQUIRE_FALSE(r.finished.empty());
  CHECK(r.finished.back().id == 2);
  CHECK(r.finished.back().outcome.text == "fine");
  // The big one fails now, saying why, not at its deadline minutes later.
  REQUIRE(r.finished.size() == 2);
  CHECK(r.finished[0].id == 1);
  CHECK(r.finished[0].outcome.kind != CallErrorKind::kNone);
  CHECK(r.finished[0].outcome.text.find("max_response_bytes") != std::string::npos);
}

TEST_CASE("stdio: an oversized answer written with spaces (Python's json) fails its call at once",
          "[stdio_wire][local]") {
  SessionLimits limits;
  limits.max_response_bytes = 2048;
  StdioRig r(limits);
  r.BringUp();
  r.session.Call(1, "echo", "{}", r.now);
  const int64_t id = r.Take("tools/call").id();
  r.Line("{\"jsonrpc\": \"2.0\", \"id\": " + std::to_string(id) +
         ", \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"" +
         std::string(10000, 'y') + "\"}]}}");
  REQUIRE(r.finished.size() == 1);
  CHECK(r.finished[0].id == 1);
  CHECK(r.finished[0].outcome.text.find("max_response_bytes") != std::string::npos);
}

TEST_CASE("stdio: a too deep answer of a TypeScript SDK server fails its call at once",
          "[stdio_wire][local]") {
  SessionLimits limits;
  limits.max_json_depth = 16;
  StdioRig r(limits);
  r.BringUp();
  r.session.Call(1, "echo", "{}", r.now);
  const int64_t id = r.Take("tools/call").id();
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += R"({"a":)";
  deep += "1";
  for (int i = 0; i < 40; ++i) deep += "}";
  r.Line(ResultIdLast(id, deep));
  REQUIRE(r.finished.size() == 1);
  CHECK(r.finished[0].id == 1);
  CHECK(r.finished[0].outcome.kind != CallErrorKind::kNone);
}

TEST_CASE("stdio: an oversized answer never fails another request whose id it contains",
          "[stdio_wire][local]") {
  SessionLimits limits;
  limits.max_response_bytes = 2048;
  StdioRig r(limits);
  r.BringUp();
  r.session.Call(1, "echo", "{}", r.now);
  r.session.Call(2, "echo", "{}", r.now);
  const int64_t first = r.Take("tools/call").id();
  const int64_t second = r.Take("tools/call").id();
  // The answer to the second call, in the TypeScript SDK's key order, whose
  // structured result begins with an "id" that is the first call's.
  const std::string result = R"({"structuredContent":{"id":)" + std::to_string(first) +
                             R"(,"blob":")" + std::string(10000, 'y') +
                             R"("},"content":[{"type":"text","text":"big"}]})";
  r.Line(ResultIdLast(second, result));
  // Whatever becomes of the second call, the first is not failed by it.
  for (const CallFinished& f : r.finished) CHECK(f.id != 1);
  r.Line(Result(first, CallResult("first is fine")));
  bool first_done = false;
  for (const CallFinished& f : r.finished) {
    if (f.id == 1) {
      first_done = true;
      CHECK(f.outcome.kind == CallErrorKind::kNone);
      CHECK(f.outcome.text == "first is fine");
    }
  }
  CHECK(first_done);
}

TEST_CASE("stdio: a cancelled call is named in notifications/cancelled", "[stdio_wire][local]") {
  StdioRig r;
  r.BringUp();
  r.session.Call(3, "echo", "{}", r.now);
  const int64_t id = r.Take("tools/call").id();
  r.session.Cancel(3, r.now);
  const Written cancelled = r.Take("notifications/cancelled");
  CHECK(cancelled.doc["params"]["requestId"].GetInt64() == id);
  CHECK_FALSE(cancelled.doc.HasMember("id"));
  // Its late answer finishes nothing; the process keeps running.
  r.Line(Result(id, CallResult("late")));
  CHECK(r.finished.empty());
  CHECK(r.stops == 0);
  CHECK(r.session.status() == Status::kReady);
}

TEST_CASE("stdio: a process that ends fails its call as may-have-run and is started again",
          "[stdio_wire][local]") {
  StdioRig r;
  r.BringUp();
  r.session.Call(9, "echo", R"({"once":true})", r.now);
  const int64_t call_id = r.Take("tools/call").id();
  r.session.OnProcessExited("exited with code 1", r.now);
  r.Pump();

  REQUIRE(r.finished.size() == 1);
  CHECK(r.finished[0].id == 9);
  CHECK(r.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(r.finished[0].outcome.text.find("may have run") != std::string::npos);
  CHECK(r.finished[0].outcome.text.find("exited with code 1") != std::string::npos);
  CHECK(r.session.status() == Status::kError);
  CHECK(r.session.reason().find("exited with code 1") != std::string::npos);
  REQUIRE(r.session.NextWakeup().has_value());
  const Duration wait = *r.session.NextWakeup() - r.now;
  CHECK(wait >= 500ms);
  CHECK(wait <= 2s);
  CHECK(r.spawns == 1);

  // What the ended process still wrote finishes nothing; no process is
  // started before the back-off is over.
  r.Line(Result(call_id, CallResult("late")));
  CHECK(r.finished.size() == 1);
  r.Advance(wait / 2);
  CHECK(r.spawns == 1);
  r.Advance(wait - wait / 2);
  CHECK(r.spawns == 2);
  // Known to speak 2025-11-25 by now, it may be initialized without a probe.
  if (r.Wrote("server/discover")) {
    r.Line(Error(r.Take("server/discover").id(), -32601, "Method not found"));
  }
  r.Line(Result(r.Take("initialize").id(), InitResult()));
  r.Take("notifications/initialized");
  r.Line(Result(r.Take("tools/list").id(), ToolsPage({"echo"})));
  CHECK(r.session.status() == Status::kReady);
  CHECK(r.session.reason().empty());
  // The call that may have run is not sent to the new process.
  r.Pump();
  CHECK_FALSE(r.Wrote("tools/call"));
  CHECK(r.finished.size() == 1);
}

TEST_CASE("stdio: shutdown stops the process", "[stdio_wire][local]") {
  StdioRig r;
  r.BringUp();
  r.session.Call(1, "echo", "{}", r.now);
  r.Take("tools/call");
  r.session.Shutdown(r.now);
  r.Pump();
  CHECK(r.stops == 1);
  REQUIRE(r.finished.size() == 1);
  CHECK(r.finished[0].outcome.kind == CallErrorKind::kTransport);
  CHECK(r.finished[0].outcome.text.find(std::string(kShuttingDown)) != std::string::npos);
  // Nothing is written to, or asked of, the stopped process after that.
  r.writes.clear();
  r.Line(Result(1, CallResult("late")));
  r.Advance(5s);
  CHECK(r.writes.empty());
  CHECK(r.spawns == 1);
  CHECK(r.finished.size() == 1);
}

TEST_CASE("stdio: the server's ping is answered on stdin", "[stdio_wire][local]") {
  StdioRig r;
  r.BringUp();
  r.Line(R"({"jsonrpc":"2.0","id":"p-1","method":"ping"})");
  const Written reply = r.Take("");
  REQUIRE(reply.doc.HasMember("id"));
  REQUIRE(reply.doc["id"].IsString());
  CHECK(std::string(reply.doc["id"].GetString()) == "p-1");
  REQUIRE(reply.doc.HasMember("result"));
  CHECK(reply.doc["result"].IsObject());
  CHECK(reply.doc["result"].ObjectEmpty());
  CHECK_FALSE(reply.doc.HasMember("error"));
}

TEST_CASE("stdio: tools/list_changed lists the tools again", "[stdio_wire][local]") {
  StdioRig r;
  r.BringUp({"echo"});
  CHECK_FALSE(r.Wrote("tools/list"));
  r.Line(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
  const Written list = r.Take("tools/list");
  r.Line(Result(list.id(), ToolsPage({"echo", "fresh"})));
  CHECK(r.Tools() == std::vector<std::string>{"echo", "fresh"});
  CHECK(r.session.status() == Status::kReady);
  CHECK(r.spawns == 1);
}

}  // namespace
}  // namespace mcpgw::mcp
