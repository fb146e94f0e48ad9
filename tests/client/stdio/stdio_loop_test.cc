// `mcpgw stdio` end to end in one process: the StdioLoop on a thread of its own, stdin and
// stdout as pipes the test holds, libmcpgw's pollable interface, and the fake daemon (the
// real IpcServer with a scripted handler).
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "client/lib/libmcpgw_fixture.h"
#include "client/stdio/stdio_bridge.h"
#include "client/stdio/stdio_loop.h"

namespace mcpgw::cli {
namespace {

using testing::Daemon;
using testing::FakeHandler;
using testing::TempDir;
using namespace std::chrono_literals;

// LibAsyncDaemonApi, as `mcpgw stdio` makes it, counting the cancels asked of it.
class CountingApi : public AsyncDaemonApi {
 public:
  CountingApi(const std::string& socket, std::atomic<int>* cancels)
      : api_(socket), cancels_(cancels) {}
  RequestId StartGetDynamicTools(const ToolsRequest& request, Done done) override {
    return api_.StartGetDynamicTools(request, std::move(done));
  }
  RequestId StartCallDynamicTool(const std::string& ns, const std::string& tool,
                                 std::string_view arguments_json, long long max_text_bytes,
                                 Done done) override {
    return api_.StartCallDynamicTool(ns, tool, arguments_json, max_text_bytes, std::move(done));
  }
  void Cancel(RequestId id) override {
    ++*cancels_;
    api_.Cancel(id);
  }
  base::Status Connect() override { return api_.Connect(); }
  int fd() override { return api_.fd(); }
  long timeout_ms() override { return api_.timeout_ms(); }
  void Process() override { api_.Process(); }

 private:
  LibAsyncDaemonApi api_;
  std::atomic<int>* cancels_;
};

// The loop on its thread, with the test's ends of its stdin and stdout.
class Bridge {
 public:
  explicit Bridge(const std::string& socket) {
    REQUIRE(pipe(in_) == 0);
    REQUIRE(pipe(out_) == 0);
    fcntl(out_[0], F_SETFL, O_NONBLOCK);
    result_ = std::async(std::launch::async, [this, socket] {
      CountingApi api(socket, &cancels_);
      StdioLoop loop(api, in_[0], out_[1], [this](const std::string& line) {
        std::lock_guard lock(mu_);
        notes_.push_back(line);
      });
      return loop.Run();
    });
  }
  ~Bridge() {
    CloseInput();
    if (result_.valid()) result_.wait_for(10s);
    for (int fd : {in_[0], out_[0], out_[1]}) close(fd);
  }

  void Write(const std::string& line) { WriteRaw(line + "\n"); }
  void WriteRaw(const std::string& bytes) {
    REQUIRE(write(in_[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  // Writes without waiting; false when stdin's pipe is full.
  bool TryWrite(const std::string& line) {
    const std::string bytes = line + "\n";
    pollfd p{in_[1], POLLOUT, 0};
    if (poll(&p, 1, 2000) != 1) return false;
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(in_[1], bytes.data() + done, bytes.size() - done);
      REQUIRE(n > 0);
      done += static_cast<size_t>(n);
    }
    return true;
  }
  void CloseInput() {
    if (in_[1] >= 0) close(in_[1]);
    in_[1] = -1;
  }
  // The next line the bridge wrote, within `timeout`; "" when none came.
  std::string ReadLine(std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (const size_t nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{out_[0], POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) return "";
      char chunk[65536];
      const ssize_t n = read(out_[0], chunk, sizeof(chunk));
      if (n <= 0) return "";
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }
  // The loop's exit code, or -1 if it has not returned within `timeout`.
  int Wait(std::chrono::milliseconds timeout = 10s) {
    if (result_.wait_for(timeout) != std::future_status::ready) return -1;
    return result_.get();
  }
  bool running() { return result_.wait_for(0ms) != std::future_status::ready; }
  // How often the bridge cancelled a request; final once Wait() has returned.
  int cancels() const { return cancels_; }
  std::vector<std::string> notes() {
    std::lock_guard lock(mu_);
    return notes_;
  }

 private:
  int in_[2] = {-1, -1};
  int out_[2] = {-1, -1};
  std::string buf_;
  std::future<int> result_;
  std::mutex mu_;
  std::vector<std::string> notes_;
  std::atomic<int> cancels_{0};
};

std::string CallLine(int id, const std::string& tool, const std::string& arguments) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" + arguments +
         "}}";
}

rapidjson::Document Json(const std::string& line) {
  rapidjson::Document doc;
  doc.Parse(line.c_str());
  INFO(line);
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

std::string Text(const rapidjson::Document& doc) {
  return doc["result"]["content"][0]["text"].GetString();
}

size_t ThreadCount() {
  size_t n = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* e = readdir(dir)) n += e->d_name[0] != '.';
    closedir(dir);
  }
  return n;
}

TEST_CASE("stdio: calls read before stdin closed are all answered, then the bridge exits",
          "[stdio]") {
  Daemon d;
  Bridge bridge(d.path);
  bridge.Write(CallLine(1, "call_dynamic_tool", R"({"namespace":"slow","toolName":"a"})"));
  bridge.Write(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  // The last line has no newline and still counts.
  const std::string last =
      CallLine(3, "call_dynamic_tool", R"({"namespace":"slow","toolName":"b"})");
  bridge.WriteRaw(last);
  bridge.CloseInput();
  CHECK(Json(bridge.ReadLine())["id"].GetInt() == 2);
  // The last call goes out once the end of stdin is read.
  REQUIRE(d.handler.WaitRequests(2));
  // The daemon answers one call, then the other: the bridge, past the end of
  // its input, passes each answer on. After the first it still waits for
  // the second, and it cancelled nothing at the end of stdin (its cancels
  // are counted as it makes them, before it read that answer).
  std::set<int> ids;
  for (const auto& r : d.handler.requests()) {
    d.server->Run([&](IpcServer& s) { s.ReplyText(r.ticket, "late " + r.params); });
    const auto doc = Json(bridge.ReadLine());
    ids.insert(doc["id"].GetInt());
    CHECK(Text(doc).rfind("late ", 0) == 0);
    if (ids.size() == 1) {
      CHECK(bridge.running());
      CHECK(bridge.cancels() == 0);
    }
  }
  CHECK(ids == std::set<int>{1, 3});
  CHECK(bridge.Wait() == 0);
  // Its loop has returned, so every cancel it made is counted; once the
  // daemon has read its connection to the end, every cancel sent is seen.
  CHECK(bridge.cancels() == 0);
  const auto connections = [&] {
    size_t n = 0;
    d.server->Run([&](IpcServer& s) { n = s.connections(); });
    return n;
  };
  for (int i = 0; i < 500 && connections() > 0; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(connections() == 0);
  CHECK(d.handler.cancels().empty());
}

TEST_CASE("stdio: a host that stops reading stops the bridge reading, and loses nothing",
          "[stdio]") {
  Daemon d;
  const std::string big(64 * 1024, 'r');
  d.handler.on_request = [&](const FakeHandler::Request& r) {
    d.handler.server->ReplyText(r.ticket, big);
  };
  Bridge bridge(d.path);
  // One request at a time, each answered with 64 KiB the host never reads: once 1 MiB of
  // answers waits, a request stays unread in stdin's pipe.
  int sent = 0;
  bool stalled = false;
  while (!stalled && sent < 200) {
    bridge.Write(CallLine(sent, "call_dynamic_tool", R"({"namespace":"n","toolName":"t"})"));
    ++sent;
    stalled = !d.handler.WaitRequests(static_cast<size_t>(sent));
  }
  CHECK(stalled);
  CHECK(sent > 16);  // it stopped only past the bound
  std::set<int> ids;
  while (static_cast<int>(ids.size()) < sent) {
    const std::string line = bridge.ReadLine();
    REQUIRE(!line.empty());
    const auto doc = Json(line);
    CHECK(Text(doc) == big);
    ids.insert(doc["id"].GetInt());
  }
  CHECK(d.handler.requests().size() == static_cast<size_t>(sent));
  bridge.CloseInput();
  CHECK(bridge.Wait() == 0);
}

TEST_CASE("stdio: no thread per call: many calls in flight on the one loop thread", "[stdio]") {
  Daemon d;
  Bridge bridge(d.path);
  bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"ping"})");
  REQUIRE(!bridge.ReadLine().empty());
  const size_t threads = ThreadCount();
  for (int i = 1; i <= 50; ++i) {
    bridge.Write(CallLine(i, "call_dynamic_tool", R"({"namespace":"slow","toolName":"t"})"));
  }
  REQUIRE(d.handler.WaitRequests(50));
  CHECK(ThreadCount() == threads);
  bridge.Write(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})");
  REQUIRE(d.handler.WaitCancels(1));
  // The daemon goes away: the 49 calls left end as unavailable, and so does the bridge.
  bridge.CloseInput();
  d.Stop();
  for (int i = 0; i < 49; ++i) {
    const auto doc = Json(bridge.ReadLine());
    CHECK(Text(doc).rfind("unavailable: lost the connection", 0) == 0);
  }
  CHECK(bridge.Wait() == 0);
}

// The daemon owns the call deadline (limits.call_timeout_s may be a day). The bridge used to
// give up on a call after 5 min 30 s of its own, cutting short calls the daemon was still
// running: now a call in flight leaves its poll loop nothing to wake up for but the daemon.
TEST_CASE("stdio: the bridge never cuts a call short: the daemon's answer ends it, however late",
          "[stdio][deadline]") {
  Daemon d;
  LibAsyncDaemonApi api(d.path);  // the one way `mcpgw stdio` opens the daemon
  std::vector<std::string> answers;
  StdioBridge bridge(api, [&](std::string message) { answers.push_back(std::move(message)); });
  bridge.HandleLine(CallLine(1, "call_dynamic_tool", R"({"namespace":"slow","toolName":"t"})"));
  REQUIRE(d.handler.WaitRequests(1));
  // No deadline on this side: the loop may sleep for as long as the daemon runs the call.
  CHECK(api.timeout_ms() == -1);
  api.Process();
  CHECK(api.timeout_ms() == -1);
  CHECK(bridge.in_flight() == 1);

  // The daemon answers, whenever it does: the host gets that answer.
  const auto requests = d.handler.requests();
  d.server->Run([&](IpcServer& s) { s.ReplyText(requests[0].ticket, "done at last"); });
  for (int i = 0; i < 500 && answers.empty(); ++i) {
    pollfd p{api.fd(), POLLIN, 0};
    poll(&p, 1, 20);
    api.Process();
  }
  REQUIRE(answers.size() == 1);
  const auto doc = Json(answers[0]);
  CHECK(doc["id"].GetInt() == 1);
  CHECK_FALSE(doc["result"]["isError"].GetBool());
  CHECK(Text(doc) == "done at last");
  CHECK(bridge.in_flight() == 0);
}

TEST_CASE("stdio: an unreachable daemon is reported on stderr at start and at the first failure",
          "[stdio]") {
  TempDir dir;
  const std::string path = dir.path() + "/none.sock";
  Bridge bridge(path);
  bridge.Write(CallLine(1, "get_dynamic_tools", "{}"));
  const auto doc = Json(bridge.ReadLine());
  CHECK(doc["result"]["isError"].GetBool());
  CHECK(Text(doc).rfind("unavailable: ", 0) == 0);
  const auto notes = bridge.notes();
  REQUIRE(notes.size() == 2);
  for (const std::string& note : notes) {
    CHECK(note.rfind("mcpgw stdio: cannot reach mcpgwd", 0) == 0);
    CHECK(note.find(path) != std::string::npos);
    CHECK(note.find("start it with `mcpgwd --config FILE`") != std::string::npos);
  }
  bridge.CloseInput();
  CHECK(bridge.Wait() == 0);
}

}  // namespace
}  // namespace mcpgw::cli
