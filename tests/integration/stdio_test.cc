// `mcpgw stdio` as a script or a host runs it: the real binary between pipes, a real mcpgwd,
// and the official SDK's server upstream.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <set>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "integration/stdio_process.h"
#include "mcpgw.h"

using namespace mcpgw::testing;

namespace {

std::string CallLine(int id, const std::string& arguments) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"call_dynamic_tool","arguments":)" + arguments +
         "}}";
}

// The daemon's count of calls in flight to server `ns` (-1 when it is not
// listed), read in process so that the wait costs no process start.
int InFlight(mcpgw_client* c, const std::string& ns) {
  char* out = nullptr;
  const mcpgw_status st = mcpgw_status_json(c, nullptr, &out);
  const std::string text = st == MCPGW_OK && out ? out : "";
  mcpgw_free(out);
  rapidjson::Document doc = ParseJson(text);
  if (!doc.IsObject() || !doc.HasMember("servers")) return -1;
  for (const auto& s : doc["servers"].GetArray()) {
    if (ns == s["namespace"].GetString()) return s["in_flight"].GetInt();
  }
  return -1;
}

int Threads(pid_t pid) {
  const std::string status = ReadFile("/proc/" + std::to_string(pid) + "/status");
  const size_t at = status.find("Threads:");
  return at == std::string::npos ? -1 : std::atoi(status.c_str() + at + 8);
}

}  // namespace

TEST_CASE("mcpgw stdio: a script that closes stdin gets an answer to every request", "[stdio]") {
  TempDir dir;
  Upstream up(dir, "up");
  REQUIRE_UPSTREAM(up);
  Daemon d(dir, OneServer(up));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));

  StdioProcess bridge(d.socket());
  bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  bridge.Write(CallLine(1, R"({"namespace":"up","toolName":"slow","arguments":{"ms":700}})"));
  bridge.Write(CallLine(2, R"({"namespace":"up","toolName":"echo","arguments":{"text":"hi"}})"));
  bridge.Write(CallLine(3, R"({"namespace":"up","toolName":"slow","arguments":{"ms":300}})"));
  bridge.CloseInput();
  std::set<int> ids;
  std::string texts;
  for (int i = 0; i < 4; ++i) {
    const std::string line = bridge.ReadLine();
    REQUIRE(!line.empty());
    rapidjson::Document doc = ParseJson(line);
    REQUIRE(doc.IsObject());
    ids.insert(doc["id"].GetInt());
    if (doc["result"].HasMember("content")) {
      CHECK_FALSE(doc["result"]["isError"].GetBool());
      texts += std::string(doc["result"]["content"][0]["text"].GetString()) + ";";
    }
  }
  CHECK(ids == std::set<int>{0, 1, 2, 3});
  CHECK(texts.find("slept 700 ms;") != std::string::npos);
  CHECK(texts.find("slept 300 ms;") != std::string::npos);
  CHECK(texts.find("hi;") != std::string::npos);
  CHECK(bridge.Wait() == 0);
  CHECK(bridge.ReadLine(std::chrono::milliseconds(100)).empty());
}

TEST_CASE("mcpgw stdio: calls in flight run on the bridge's one thread", "[stdio]") {
  TempDir dir;
  Upstream up(dir, "up");
  REQUIRE_UPSTREAM(up);
  Daemon d(dir, OneServer(up));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));

  std::unique_ptr<mcpgw_client, decltype(&mcpgw_close)> status(mcpgw_open(d.socket().c_str()),
                                                               &mcpgw_close);
  StdioProcess bridge(d.socket());
  for (int i = 1; i <= 20; ++i) {
    bridge.Write(CallLine(i, R"({"namespace":"up","toolName":"slow","arguments":{"ms":1500}})"));
  }
  // The daemon has all 20: the bridge has read and sent every one of them.
  REQUIRE(WaitFor([&] { return InFlight(status.get(), "up") == 20; }));
  CHECK(Threads(bridge.pid()) == 1);
  bridge.CloseInput();
  for (int i = 0; i < 20; ++i) CHECK(bridge.ReadLine().find("slept 1500 ms") != std::string::npos);
  CHECK(bridge.Wait() == 0);
}

// The daemon owns the call deadline: what the host sees when a call runs past it is the
// daemon's answer, at the daemon's limits.call_timeout_s, whatever it is set to.
TEST_CASE("mcpgw stdio: a call past the daemon's deadline ends with the daemon's error",
          "[stdio][deadline]") {
  TempDir dir;
  Upstream up(dir, "up");
  REQUIRE_UPSTREAM(up);
  WriteFile(dir / "settings.json", R"({"limits": {"call_timeout_s": 1}})");
  Daemon d(dir, OneServer(up), {"--settings", dir / "settings.json"});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));

  StdioProcess bridge(d.socket());
  const auto start = std::chrono::steady_clock::now();
  bridge.Write(CallLine(1, R"({"namespace":"up","toolName":"slow","arguments":{"ms":4000}})"));
  const std::string line = bridge.ReadLine();
  const auto took = std::chrono::steady_clock::now() - start;
  rapidjson::Document doc = ParseJson(line);
  REQUIRE(doc.IsObject());
  CHECK(doc["result"]["isError"].GetBool());
  const std::string text = doc["result"]["content"][0]["text"].GetString();
  CHECK(text.rfind("transport: ", 0) == 0);
  CHECK(text.find("timed out") != std::string::npos);
  CHECK(took >= std::chrono::milliseconds(900));
  CHECK(took < std::chrono::milliseconds(3500));
  bridge.CloseInput();
  CHECK(bridge.Wait() == 0);
}
