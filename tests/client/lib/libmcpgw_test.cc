// libmcpgw against an in-process fake daemon: the real IpcServer on a loop
// thread with a scripted handler.
#include <atomic>
#include <cstring>
#include <thread>

#include <catch2/catch.hpp>

#include "client/lib/libmcpgw_fixture.h"
#include "mcpgw.h"
#include "mcpgw.hpp"

namespace mcpgw {
namespace {

using testing::Daemon;
using testing::TempDir;
using namespace std::chrono_literals;

struct Reply {
  mcpgw_status status;
  std::string text;
};

Reply Take(mcpgw_status status, char* out) {
  Reply r{status, out ? out : "(null)"};
  mcpgw_free(out);
  return r;
}

Reply Tools(mcpgw_client* c, const char* ns = nullptr, const char* tool = nullptr,
            mcpgw_cancel* cancel = nullptr) {
  char* out = nullptr;
  mcpgw_status s = mcpgw_get_dynamic_tools(c, ns, tool, cancel, &out);
  return Take(s, out);
}

Reply CallTool(mcpgw_client* c, const char* ns, const char* tool, const char* args,
               mcpgw_cancel* cancel = nullptr) {
  char* out = nullptr;
  mcpgw_status s = mcpgw_call_dynamic_tool(c, ns, tool, args, cancel, &out);
  return Take(s, out);
}

TEST_CASE("libmcpgw: the three calls reach the daemon and return its answers", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  REQUIRE(c != nullptr);
  Reply all = Tools(c);
  CHECK(all.status == MCPGW_OK);
  CHECK(all.text == "get_dynamic_tools {}");
  Reply one = Tools(c, "alpha", "add");
  CHECK(one.text == R"(get_dynamic_tools {"namespace":"alpha","toolName":"add"})");
  Reply call = CallTool(c, "alpha", "add", "{\n  \"a\": [1, 2]\n}");
  CHECK(call.status == MCPGW_OK);
  CHECK(call.text ==
        R"(call_dynamic_tool {"namespace":"alpha","toolName":"add","arguments":{"a":[1,2]}})");
  char* out = nullptr;
  CHECK(mcpgw_status_json(c, nullptr, &out) == MCPGW_OK);
  CHECK(std::string(out) == R"({"daemon":{"version":"0.1.0"},"servers":[]})");
  mcpgw_free(out);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw: every error kind maps to its status", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  struct {
    const char* ns;
    mcpgw_status status;
  } cases[] = {{"err_invalid_request", MCPGW_INVALID_REQUEST},
               {"err_not_ready", MCPGW_NOT_READY},
               {"err_backend", MCPGW_BACKEND},
               {"err_transport", MCPGW_TRANSPORT},
               {"err_denied", MCPGW_DENIED}};
  for (auto& k : cases) {
    Reply r = CallTool(c, k.ns, "t", nullptr);
    INFO(k.ns);
    CHECK(r.status == k.status);
    CHECK(r.text == std::string("scripted ") + (k.ns + 4));
  }
  // Bad arguments are refused before anything is sent.
  size_t before = d.handler.requests().size();
  Reply bad = CallTool(c, "alpha", "t", "{\"a\":");
  CHECK(bad.status == MCPGW_INVALID_REQUEST);
  CHECK(bad.text.find("not valid JSON") != std::string::npos);
  CHECK(d.handler.requests().size() == before);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw: calls from 8 threads share one handle", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        std::string args = "{\"t\":" + std::to_string(t) + ",\"i\":" + std::to_string(i) + "}";
        Reply r = CallTool(c, "alpha", "echo", args.c_str());
        if (r.status == MCPGW_OK && r.text.find("\"arguments\":" + args) != std::string::npos) {
          ++good;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(good == 8 * 40);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw: a cancel token ends a call and the daemon hears of it", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  mcpgw_cancel* token = mcpgw_cancel_new();
  std::thread canceller([&] {
    REQUIRE(d.handler.WaitRequests(1));
    mcpgw_cancel_trigger(token);
  });
  auto start = std::chrono::steady_clock::now();
  Reply r = CallTool(c, "slow", "sleep", nullptr, token);
  canceller.join();
  CHECK(r.status == MCPGW_CANCELLED);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  REQUIRE(d.handler.WaitCancels(1));
  CHECK(d.handler.cancels()[0] == d.handler.requests()[0].ticket);
  // A triggered token stops later calls before they are sent.
  CHECK(Tools(c, nullptr, nullptr, token).status == MCPGW_CANCELLED);
  CHECK(d.handler.requests().size() == 1);
  // The handle itself is still fine.
  CHECK(Tools(c).status == MCPGW_OK);
  mcpgw_cancel_free(token);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw: no daemon means MCPGW_UNAVAILABLE with a way out", "[client]") {
  TempDir dir;
  std::string path = dir.path() + "/none.sock";
  mcpgw_client* c = mcpgw_open(path.c_str());
  Reply r = Tools(c);
  CHECK(r.status == MCPGW_UNAVAILABLE);
  CHECK(r.text.find("mcpgwd is not running") != std::string::npos);
  CHECK(r.text.find(path) != std::string::npos);
  CHECK(r.text.find("start it with") != std::string::npos);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw: a handle recovers when the daemon restarts", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  REQUIRE(Tools(c).status == MCPGW_OK);

  SECTION("with a failed call in between") {
    d.Stop();
    Reply down = Tools(c);
    CHECK(down.status == MCPGW_UNAVAILABLE);
    d.Start();
    CHECK(Tools(c).status == MCPGW_OK);
  }
  SECTION("without one") {
    d.Stop();
    d.Start();
    Reply r = Tools(c);
    CHECK(r.status == MCPGW_OK);
    CHECK(r.text == "get_dynamic_tools {}");
  }
  SECTION("a call in flight when the daemon stops fails as unavailable") {
    std::thread stopper([&] {
      REQUIRE(d.handler.WaitRequests(2));
      d.Stop();
    });
    Reply r = CallTool(c, "slow", "sleep", nullptr);
    stopper.join();
    CHECK(r.status == MCPGW_UNAVAILABLE);
    CHECK(r.text.find("lost the connection") != std::string::npos);
    d.Start();
    CHECK(Tools(c).status == MCPGW_OK);
  }
  mcpgw_close(c);
}

TEST_CASE("libmcpgw: a timeout ends the call as transport and cancels it", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  mcpgw_set_timeout_ms(c, 200);
  auto start = std::chrono::steady_clock::now();
  Reply r = CallTool(c, "slow", "sleep", nullptr);
  auto took = std::chrono::steady_clock::now() - start;
  CHECK(r.status == MCPGW_TRANSPORT);
  CHECK(r.text.find("timed out waiting for mcpgwd") != std::string::npos);
  CHECK(took >= 200ms);
  CHECK(took < 5s);
  REQUIRE(d.handler.WaitCancels(1));
  CHECK(Tools(c).status == MCPGW_OK);  // fast calls still pass
  mcpgw_close(c);
}

TEST_CASE("libmcpgw: closing the handle ends calls running in other threads", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  std::atomic<int> status{-1};
  std::thread caller([&] { status = CallTool(c, "slow", "sleep", nullptr).status; });
  REQUIRE(d.handler.WaitRequests(1));
  mcpgw_close(c);
  caller.join();
  CHECK(status == MCPGW_CANCELLED);
  REQUIRE(d.handler.WaitCancels(1));  // the connection closed: the daemon drops the call
}

TEST_CASE("libmcpgw: names and version", "[client]") {
  CHECK(std::string(mcpgw_status_name(MCPGW_OK)) == "ok");
  CHECK(std::string(mcpgw_status_name(MCPGW_NOT_READY)) == "not_ready");
  CHECK(std::string(mcpgw_status_name(MCPGW_CANCELLED)) == "cancelled");
  CHECK(std::string(mcpgw_version()) == MCPGW_VERSION);
}

TEST_CASE("mcpgw.hpp: Client, Result and CancelToken", "[client]") {
  Daemon d;
  Client client(d.path);
  Result tools = client.GetDynamicTools("alpha");
  CHECK(tools.ok());
  CHECK(tools.text == R"(get_dynamic_tools {"namespace":"alpha"})");
  Result denied = client.CallDynamicTool("err_denied", "x");
  CHECK(denied.status == MCPGW_DENIED);
  CHECK(std::string(denied.status_name()) == "denied");
  CHECK(client.Status().ok());

  Client moved = std::move(client);
  CancelToken token;
  token.Trigger();
  CHECK(moved.CallDynamicTool("alpha", "t", "{}", &token).status == MCPGW_CANCELLED);
  moved.SetTimeout(100ms);
  CHECK(moved.CallDynamicTool("slow", "t").status == MCPGW_TRANSPORT);
}

}  // namespace
}  // namespace mcpgw
