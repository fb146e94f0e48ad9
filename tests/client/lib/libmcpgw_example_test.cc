// The poll() loops documented in mcpgw.h (C) and mcpgw.hpp (C++), built from
// the headers' text by tests/CMakeLists.txt, run against a fake daemon: the
// documentation's example works as written.
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "client/lib/libmcpgw_fixture.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

extern char** environ;

namespace mcpgw {
namespace {

using testing::Daemon;

// Runs `program socket_path`; its exit code and stdout (at most 10 s).
std::pair<int, std::string> RunExample(const char* program, const std::string& socket) {
  int out[2];
  REQUIRE(pipe(out) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string arg0 = program, arg1 = socket;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, program, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  REQUIRE(spawned == 0);
  std::string text;
  char buf[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{out[0], POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      kill(pid, SIGKILL);  // hung: fail rather than hang the suite
      break;
    }
    const ssize_t n = read(out[0], buf, sizeof(buf));
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text};
}

TEST_CASE("mcpgw.h: the documented poll() loop works as written", "[client]") {
  Daemon d;
  const auto [code, out] = RunExample(MCPGW_POLL_EXAMPLE_C, d.path);
  CHECK(code == 0);
  CHECK(out.find("tools ok: get_dynamic_tools {}\n") != std::string::npos);
  CHECK(out.find("status ok: {\"daemon\":{\"version\":\"0.1.0\"},\"servers\":[]}\n") !=
        std::string::npos);
}

TEST_CASE("mcpgw.hpp: the documented poll() loop works as written", "[client]") {
  Daemon d;
  const auto [code, out] = RunExample(MCPGW_POLL_EXAMPLE_CC, d.path);
  CHECK(code == 0);
  CHECK(out.find("tools ok: get_dynamic_tools {}\n") != std::string::npos);
  CHECK(out.find("status ok: {\"daemon\":{\"version\":\"0.1.0\"},\"servers\":[]}\n") !=
        std::string::npos);
}

}  // namespace
}  // namespace mcpgw
