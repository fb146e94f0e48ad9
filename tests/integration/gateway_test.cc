// The gateway as hosts use it, through libmcpgw against a real upstream (the
// official SDK's server): many clients calling at once, and a host whose
// handle outlives a daemon restart.
#include <signal.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "mcpgw.h"

using namespace mcpgw::testing;

namespace {

struct Answer {
  mcpgw_status status;
  std::string text;
};

Answer Call(mcpgw_client* c, const std::string& args) {
  char* out = nullptr;
  mcpgw_status st = mcpgw_call_dynamic_tool(c, "up", "echo", args.c_str(), nullptr, &out);
  Answer a{st, out ? out : ""};
  mcpgw_free(out);
  return a;
}

}  // namespace

TEST_CASE("Several clients call at once, every call gets its own answer", "[gateway]") {
  TempDir dir;
  Upstream up(dir, "up");
  REQUIRE_UPSTREAM(&up);
  Daemon d(dir, OneServer(up));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));

  constexpr int kClients = 4;
  constexpr int kThreadsPerClient = 4;
  constexpr int kCalls = 10;
  std::atomic<int> right{0};
  std::atomic<int> wrong{0};
  std::vector<mcpgw_client*> clients;
  for (int c = 0; c < kClients; c++) clients.push_back(mcpgw_open(d.socket().c_str()));
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; c++) {
    for (int t = 0; t < kThreadsPerClient; t++) {
      threads.emplace_back([&, c, t] {
        for (int i = 0; i < kCalls; i++) {
          std::string text =
              "c" + std::to_string(c) + "t" + std::to_string(t) + "i" + std::to_string(i);
          Answer a = Call(clients[c], R"({"text":")" + text + R"("})");
          (a.status == MCPGW_OK && a.text == text ? right : wrong)++;
        }
      });
    }
  }
  // A CLI process calls alongside the library clients.
  auto cli = d.Cli({"call", "up", "add", R"({"a":2,"b":3})"});
  for (auto& th : threads) th.join();
  for (mcpgw_client* c : clients) mcpgw_close(c);
  CHECK(wrong == 0);
  CHECK(right == kClients * kThreadsPerClient * kCalls);
  CHECK(cli.code == 0);
  CHECK(cli.out == "5\n");

  auto status = ParseJson(d.Cli({"status", "--json"}).out);
  REQUIRE(status.IsObject());
  const auto& row = status["servers"][0];
  CHECK(row["calls"].GetInt() == kClients * kThreadsPerClient * kCalls + 1);
  CHECK(row["errors"].GetInt() == 0);
  CHECK(row["in_flight"].GetInt() == 0);
}

TEST_CASE("A live handle reports unavailable while the daemon is down, then recovers",
          "[gateway]") {
  TempDir dir;
  Upstream up(dir, "up");
  REQUIRE_UPSTREAM(&up);
  auto first = std::make_unique<Daemon>(dir, OneServer(up));
  REQUIRE(first->WaitListening());
  REQUIRE(WaitReady(*first, "up"));
  const std::string socket = first->socket();

  mcpgw_client* c = mcpgw_open(socket.c_str());
  CHECK(Call(c, R"({"text":"before"})").text == "before");

  first->process().Signal(SIGTERM);
  REQUIRE(first->process().Wait(std::chrono::seconds(5)) == 0);
  Answer down = Call(c, R"({"text":"while down"})");
  CHECK(down.status == MCPGW_UNAVAILABLE);
  CHECK(down.text.find("mcpgwd") != std::string::npos);

  Daemon second(dir, OneServer(up));
  REQUIRE(second.WaitListening());
  REQUIRE(WaitReady(second, "up"));
  Answer after = Call(c, R"({"text":"after"})");
  CHECK(after.status == MCPGW_OK);
  CHECK(after.text == "after");
  mcpgw_close(c);
}
