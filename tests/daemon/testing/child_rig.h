// A child process on a libuv loop of a test's own (daemon/runtime/child.h),
// and a sink that keeps what it said and how it ended: for the tests of
// ChildProcess and of confinement, which start real processes.
#pragma once

#include <catch2/catch.hpp>

#include <uv.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "daemon/runtime/child_process.h"
#include "tests/daemon/testing/loop_helpers.h"

namespace mcpgw::testing {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

struct Sink final : ChildSink {
  void OnChildStarted(pid_t pid) override { started = pid; }
  void OnChildStdout(std::string_view bytes) override {
    CHECK_FALSE(exit.has_value());
    out.append(bytes);
  }
  void OnChildStderr(std::string_view bytes) override {
    CHECK_FALSE(exit.has_value());
    err.append(bytes);
  }
  void OnChildExit(const ChildExit& e) override {
    CHECK_FALSE(exit.has_value());  // once
    exit = e;
    exited_at = Steady::now();
    ++exits;
  }

  pid_t started = 0;
  std::string out;
  std::string err;
  std::optional<ChildExit> exit;
  Steady::time_point exited_at;
  int exits = 0;
};

// A loop of the test's own and one child on it.
class Rig {
 public:
  Rig() { uv_loop_init(&loop); }
  ~Rig() {
    child.reset();
    CHECK(FinishLoop(&loop) == 0);
  }

  void Spawn(const ChildSpec& spec) {
    // The forked processes inherit the test's unwritten stdio buffers; a
    // normal build's _exit drops them, but ThreadSanitizer's _exit flushes
    // them first, onto the server's stdout.
    std::fflush(nullptr);
    auto made = SpawnChildProcess(&loop, spec, &sink);
    REQUIRE(made.ok());
    child = std::move(*made);
    spawned_at = Steady::now();
  }
  bool RunUntil(const std::function<bool()>& done, std::chrono::milliseconds limit = 5000ms) {
    return testing::RunUntil(&loop, done, limit);
  }
  bool WaitExit(std::chrono::milliseconds limit = 5000ms) {
    return RunUntil([&] { return sink.exit.has_value(); }, limit);
  }
  bool WaitOut(const std::string& part, std::chrono::milliseconds limit = 5000ms) {
    return RunUntil([&] { return sink.out.find(part) != std::string::npos; }, limit);
  }

  uv_loop_t loop;
  Sink sink;
  std::unique_ptr<Child> child;
  Steady::time_point spawned_at;
};

inline ChildSpec Sh(const std::string& script) {
  ChildSpec spec;
  spec.path = "/bin/sh";
  spec.argv = {"sh", "-c", script};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.cwd = "/";
  return spec;
}

}  // namespace mcpgw::testing
