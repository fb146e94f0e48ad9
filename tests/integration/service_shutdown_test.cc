// Stopping mcpgwd as a service manager does (SIGTERM): the upstream sees its
// session DELETEd, a call in flight is answered with a clear error rather than
// hanging, and the daemon exits 0 within 5 s, even when the upstream no
// longer answers at all.
#include <signal.h>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

TEST_CASE("SIGTERM: the session is DELETEd, a call in flight fails clearly, exit 0 within 5 s",
          "[service][shutdown]") {
  TempDir dir;
  Upstream up(dir, "up");
  REQUIRE_UPSTREAM(up);
  Daemon d(dir, OneServer(up));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));
  const std::string session = up.LastSession();
  REQUIRE(!session.empty());

  Process call({MCPGW_CLI_PATH, "--socket", d.socket(), "call", "up", "slow", R"({"ms":60000})"},
               dir / "call.out", dir / "call.err");
  REQUIRE(WaitFor([&] { return up.SessionsOf("tools/call").size() == 1; }));

  const auto start = std::chrono::steady_clock::now();
  d.process().Signal(SIGTERM);
  const int code = d.process().Wait(std::chrono::seconds(5));
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(code == 0);
  CHECK(took < std::chrono::seconds(5));

  CHECK(up.SessionsOf("DELETE") == std::vector<std::string>{session});
  const int call_code = call.Wait(std::chrono::seconds(5));
  INFO("call stdout: " << call.Out() << " stderr: " << call.Err());
  CHECK(call_code != 0);
  CHECK(call_code != -1);  // answered, not left hanging
  CHECK(call.Err().find("shutting down") != std::string::npos);
  CHECK(call.Out().find("slept") == std::string::npos);
}

TEST_CASE("SIGTERM with an upstream that stopped answering still exits 0 within 5 s",
          "[service][shutdown]") {
  TempDir dir;
  Upstream up(dir, "up");
  REQUIRE_UPSTREAM(up);
  Daemon d(dir, OneServer(up));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));

  up.process().Signal(SIGSTOP);  // the DELETE will get no answer
  const auto start = std::chrono::steady_clock::now();
  d.process().Signal(SIGTERM);
  const int code = d.process().Wait(std::chrono::seconds(5));
  const auto took = std::chrono::steady_clock::now() - start;
  up.process().Signal(SIGCONT);
  CHECK(code == 0);
  CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("SIGTERM with no servers exits 0 at once and the socket stops answering",
          "[service][shutdown]") {
  TempDir dir;
  Daemon d(dir, R"({"mcpServers":{}})");
  REQUIRE(d.WaitListening());
  const auto start = std::chrono::steady_clock::now();
  d.process().Signal(SIGTERM);
  CHECK(d.process().Wait(std::chrono::seconds(5)) == 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK(d.Cli({"status"}).code == 7);  // nobody answers on the socket any more
}
