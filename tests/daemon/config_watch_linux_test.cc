// ConfigWatch on Linux (inotify): each way mcp.json or settings.json changes
// on disk tells the owner once per burst (a write, a chmod, a save by rename,
// a delete and a recreate, a settings file created later, a move away), and
// a file written beside them, however often, wakes the loop at most once and
// tells nothing. The loop is run by hand and the debounce is a fake timer.
#include "daemon/config_watch.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "tests/daemon/testing/fake_env.h"

namespace mcpgw::testing {
namespace {

using namespace std::chrono_literals;

void Write(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
}

struct Rig {
  std::string dir;
  std::string config;
  std::string settings;
  FakeWorld world;
  FakeEnv env{&world};
  uv_loop_t loop;
  int told = 0;
  std::unique_ptr<ConfigWatch> watch;

  explicit Rig(bool with_settings = true) {
    char tmpl[] = "/tmp/mcpgw-watch-XXXXXX";
    dir = mkdtemp(tmpl);
    config = dir + "/mcp.json";
    settings = dir + "/settings.json";
    Write(config, "{}");
    if (with_settings) Write(settings, "{}");
    uv_loop_init(&loop);
    watch = std::make_unique<ConfigWatch>(&env, &loop, [this] { told++; });
    watch->Watch({config, settings});
  }
  ~Rig() {
    watch.reset();
    uv_run(&loop, UV_RUN_NOWAIT);  // the handles close
    uv_loop_close(&loop);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  // The loop takes what the system queued, the debounce passes: how often
  // the owner was told since the last call.
  int Told() {
    uv_run(&loop, UV_RUN_NOWAIT);
    world.Advance(kReloadDebounce + 1ms);
    const int n = told;
    told = 0;
    return n;
  }
};

TEST_CASE("config watch: a file written beside mcp.json a thousand times wakes nothing",
          "[daemon][reload]") {
  Rig rig;
  const std::string other = rig.dir + "/trace.out";
  // Opened, written and closed each time; the loop turns after every write,
  // as the daemon's would. (Not truncated: on ext4 that flushes on close.)
  for (int i = 0; i < 1000; i++) {
    const int out = open(other.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(out >= 0);
    REQUIRE(pwrite(out, "trace\n", 6, 0) == 6);
    close(out);
    uv_run(&rig.loop, UV_RUN_NOWAIT);
  }
  // A log kept open and appended to.
  const int fd = open((rig.dir + "/daemon.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  REQUIRE(fd >= 0);
  for (int i = 0; i < 1000; i++) {
    REQUIRE(write(fd, "x\n", 2) == 2);
    uv_run(&rig.loop, UV_RUN_NOWAIT);
  }
  close(fd);
  CHECK(rig.Told() == 0);
  // The two files' creation, nothing for their writes.
  CHECK(rig.watch->wakeups() <= 2);
  // mcp.json itself still tells.
  Write(rig.config, R"({"mcpServers":{}})");
  CHECK(rig.Told() == 1);
}

TEST_CASE("config watch: writing mcp.json in place tells once per burst", "[daemon][reload]") {
  Rig rig;
  for (int i = 0; i < 5; i++) Write(rig.config, "{\"n\":" + std::to_string(i) + "}");
  CHECK(rig.Told() == 1);
  CHECK(rig.Told() == 0);
  Write(rig.settings, R"({"policy":{}})");
  CHECK(rig.Told() == 1);
}

TEST_CASE("config watch: a chmod of mcp.json tells", "[daemon][reload]") {
  Rig rig;
  REQUIRE(chmod(rig.config.c_str(), 0600) == 0);
  CHECK(rig.Told() == 1);
}

TEST_CASE("config watch: a save by rename tells, and the new file is watched", "[daemon][reload]") {
  Rig rig;
  Write(rig.config + ".tmp", R"({"mcpServers":{"a":{}}})");
  REQUIRE(std::rename((rig.config + ".tmp").c_str(), rig.config.c_str()) == 0);
  CHECK(rig.Told() == 1);
  Write(rig.config, R"({"mcpServers":{}})");
  CHECK(rig.Told() == 1);
  REQUIRE(chmod(rig.config.c_str(), 0600) == 0);
  CHECK(rig.Told() == 1);
}

TEST_CASE("config watch: a delete tells, and so does the file made again", "[daemon][reload]") {
  Rig rig;
  REQUIRE(unlink(rig.config.c_str()) == 0);
  CHECK(rig.Told() == 1);
  Write(rig.config, R"({"mcpServers":{}})");
  CHECK(rig.Told() == 1);
  Write(rig.config, R"({"mcpServers":{"b":{}}})");
  CHECK(rig.Told() == 1);
  // Deleted and made again within one burst: told once.
  REQUIRE(unlink(rig.config.c_str()) == 0);
  Write(rig.config, "{}");
  CHECK(rig.Told() == 1);
}

TEST_CASE("config watch: a settings file made after the start is watched from then on",
          "[daemon][reload]") {
  Rig rig(/*with_settings=*/false);
  Write(rig.settings, "{}");
  CHECK(rig.Told() == 1);
  Write(rig.settings, R"({"policy":{}})");
  CHECK(rig.Told() == 1);
}

TEST_CASE("config watch: mcp.json moved away tells, and its old file is no longer watched",
          "[daemon][reload]") {
  Rig rig;
  const std::string moved = rig.dir + "/mcp.json.bak";
  REQUIRE(std::rename(rig.config.c_str(), moved.c_str()) == 0);
  CHECK(rig.Told() == 1);
  Write(moved, R"({"mcpServers":{}})");
  CHECK(rig.Told() == 0);
  REQUIRE(std::rename(moved.c_str(), rig.config.c_str()) == 0);
  CHECK(rig.Told() == 1);
}

TEST_CASE("config watch: closed, it tells nothing", "[daemon][reload]") {
  Rig rig;
  Write(rig.config, R"({"mcpServers":{}})");
  uv_run(&rig.loop, UV_RUN_NOWAIT);
  rig.watch->Close();
  CHECK(rig.Told() == 0);
}

}  // namespace
}  // namespace mcpgw::testing
