// ChildProcess (daemon/runtime/child_process.h): real processes, started from
// the test's thread on a libuv loop of its own, as a worker starts a local
// server's (BEHAVIOR.md §17): output delivered, stdin written, the end
// reported once and told apart, the stop in order, and nothing of the
// process (its group, its keeper, the test's descriptors) left behind.
#include "daemon/runtime/child_process.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/daemon/testing/child_rig.h"

namespace mcpgw {
namespace {

using namespace std::chrono_literals;
using testing::Rig;
using testing::Sh;
using Steady = std::chrono::steady_clock;

// The state letter of /proc/<pid>/stat ('Z' a zombie), or 0 when no such
// process exists.
char ProcState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return 0;
  return text[close + 2];
}

pid_t ParentOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  char state = 0;
  pid_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

// Dead: gone, or a zombie nobody needs to wait for any more.
bool Dead(pid_t pid) {
  const char state = ProcState(pid);
  return state == 0 || state == 'Z' || state == 'X';
}

bool WaitDead(pid_t pid, std::chrono::milliseconds limit = 2000ms) {
  const auto deadline = Steady::now() + limit;
  while (!Dead(pid) && Steady::now() < deadline) std::this_thread::sleep_for(10ms);
  return Dead(pid);
}

// The descriptors open in `pid` and what each names.
std::vector<std::pair<int, std::string>> OpenFds(pid_t pid) {
  std::vector<std::pair<int, std::string>> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd/";
  for (int fd = 0; fd < 1024; ++fd) {
    char target[512];
    const ssize_t n = readlink((dir + std::to_string(fd)).c_str(), target, sizeof target - 1);
    if (n < 0) continue;
    out.emplace_back(fd, std::string(target, static_cast<size_t>(n)));
  }
  return out;
}

TEST_CASE("child process: stdout and stderr arrive, and a clean exit is reported once",
          "[child_process][local]") {
  Rig r;
  r.Spawn(Sh("printf 'to stdout\\n'; printf 'to stderr\\n' >&2; printf 'more'"));
  REQUIRE(r.WaitExit());
  CHECK(r.sink.out == "to stdout\nmore");
  CHECK(r.sink.err == "to stderr\n");
  CHECK(r.sink.exit->code == 0);
  CHECK(r.sink.exit->signal == 0);
  CHECK(r.sink.exit->Describe() == "exited with code 0");
  CHECK(r.sink.started > 0);
  CHECK(r.child->pid() == r.sink.started);
  CHECK(r.child->exited());
  testing::RunFor(&r.loop, 100);
  CHECK(r.sink.exits == 1);
}

TEST_CASE("child process: what is written reaches its stdin, in order", "[child_process][local]") {
  SECTION("head reads one line and exits") {
    Rig r;
    r.Spawn(Sh("head -n1"));
    r.child->Write("first line\n");
    r.child->Write("second line\n");
    REQUIRE(r.WaitExit());
    CHECK(r.sink.out == "first line\n");
    CHECK(r.sink.exit->Describe() == "exited with code 0");
  }
  SECTION("cat echoes everything; Stop ends its stdin first") {
    Rig r;
    r.Spawn(Sh("cat"));
    std::string sent;
    for (int i = 0; i < 50; ++i) {
      std::string chunk = "line " + std::to_string(i) + " " + std::string(i * 1000, 'a' + i % 26);
      chunk += "\n";
      sent += chunk;
      r.child->Write(chunk);
    }
    const std::string big(1 << 20, 'z');
    r.child->Write(big);
    sent += big;
    CHECK(r.child->pending_input() > 0);  // more than a pipe holds
    REQUIRE(r.RunUntil([&] { return r.sink.out.size() >= sent.size(); }, 10000ms));
    CHECK(r.child->pending_input() == 0);
    CHECK(r.sink.out == sent);
    const auto stop_at = Steady::now();
    r.child->Stop(5000);
    REQUIRE(r.WaitExit(3000ms));
    // Ended by the end of its input, long before any signal.
    CHECK(r.sink.exit->Describe() == "exited with code 0");
    CHECK(r.sink.exited_at - stop_at < 2000ms);
  }
}

TEST_CASE("child process: how it ended is told apart", "[child_process][local]") {
  SECTION("an exit code") {
    Rig r;
    r.Spawn(Sh("exit 3"));
    REQUIRE(r.WaitExit());
    CHECK(r.sink.exit->code == 3);
    CHECK(r.sink.exit->Describe() == "exited with code 3");
  }
  SECTION("a signal") {
    Rig r;
    r.Spawn(Sh("kill -KILL $$"));
    REQUIRE(r.WaitExit());
    CHECK(r.sink.exit->signal == SIGKILL);
    CHECK(r.sink.exit->Describe() == "was ended by SIGKILL");
  }
  SECTION("SIGTERM") {
    Rig r;
    r.Spawn(Sh("kill -TERM $$"));
    REQUIRE(r.WaitExit());
    CHECK(r.sink.exit->Describe() == "was ended by SIGTERM");
  }
  SECTION("an executable that does not exist") {
    Rig r;
    ChildSpec spec = Sh("");
    spec.path = "/nonexistent/mcpgw-test/no-such-server";
    spec.argv = {"no-such-server"};
    r.Spawn(spec);
    REQUIRE(r.WaitExit());
    CHECK(r.sink.exit->exec_errno == ENOENT);
    CHECK(r.sink.exit->Describe() == "could not be started: No such file or directory");
  }
  SECTION("a file that is not executable") {
    char path[] = "/tmp/mcpgw-child-noexec-XXXXXX";
    const int fd = mkstemp(path);  // mode 0600: no execute bit for anyone, root included
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, "#!/bin/sh\n", 10) == 10);
    close(fd);
    Rig r;
    ChildSpec spec = Sh("");
    spec.path = path;
    spec.argv = {"noexec"};
    r.Spawn(spec);
    REQUIRE(r.WaitExit());
    unlink(path);
    CHECK(r.sink.exit->Describe() == "could not be started: Permission denied");
  }
  SECTION("a working directory that does not exist") {
    Rig r;
    ChildSpec spec = Sh("echo ran");
    spec.cwd = "/nonexistent/mcpgw-test-dir";
    r.Spawn(spec);
    REQUIRE(r.WaitExit());
    CHECK(r.sink.out == "");  // the command never ran
    CHECK(r.sink.exit->chdir_errno == ENOENT);
    CHECK(r.sink.exit->Describe() ==
          "could not enter its working directory: No such file or directory");
  }
  SECTION("the working directory is the one asked for") {
    Rig r;
    ChildSpec spec = Sh("pwd");
    spec.cwd = "/usr";
    r.Spawn(spec);
    REQUIRE(r.WaitExit());
    CHECK(r.sink.out == "/usr\n");
  }
}

TEST_CASE("child process: Stop escalates to SIGTERM, then SIGKILL", "[child_process][local]") {
  SECTION("a server deaf to its stdin's end and to SIGTERM is killed") {
    Rig r;
    r.Spawn(Sh("trap '' TERM; echo ready; while :; do sleep 1; done"));
    REQUIRE(r.WaitOut("ready\n"));
    const pid_t pid = r.sink.started;
    REQUIRE(pid > 0);
    const auto stop_at = Steady::now();
    r.child->Stop(200);
    REQUIRE(r.WaitExit(4500ms));
    const auto took = r.sink.exited_at - stop_at;
    CHECK(r.sink.exit->Describe() == "was ended by SIGKILL");
    CHECK(took >= 350ms);  // two graces
    CHECK(took < 2000ms);
    CHECK(WaitDead(pid));
  }
  SECTION("a server that honours SIGTERM ends at the first grace") {
    Rig r;
    r.Spawn(Sh("echo ready; while :; do sleep 1; done"));
    REQUIRE(r.WaitOut("ready\n"));
    const auto stop_at = Steady::now();
    r.child->Stop(200);
    REQUIRE(r.WaitExit(4500ms));
    const auto took = r.sink.exited_at - stop_at;
    CHECK(r.sink.exit->Describe() == "was ended by SIGTERM");
    CHECK(took >= 150ms);
    CHECK(took < 1000ms);
  }
  SECTION("Stop before the pid is known still stops it") {
    Rig r;
    r.Spawn(Sh("trap '' TERM; while :; do sleep 1; done"));
    CHECK(r.child->pid() == 0);  // not told yet
    r.child->Stop(100);
    REQUIRE(r.WaitExit(4500ms));
    // By SIGTERM if it came before the trap was set, else by SIGKILL.
    CHECK((r.sink.exit->signal == SIGKILL || r.sink.exit->signal == SIGTERM));
  }
}

TEST_CASE("child process: a grandchild holding stdout does not hold up the exit",
          "[child_process][local]") {
  SECTION("in the server's group: it is killed with it") {
    Rig r;
    r.Spawn(Sh("sleep 100 & echo $!; exit 0"));
    REQUIRE(r.WaitExit(5000ms));
    CHECK(r.sink.exited_at - r.spawned_at < 1500ms);
    CHECK(r.sink.exit->Describe() == "exited with code 0");
    const pid_t grandchild = static_cast<pid_t>(std::atoi(r.sink.out.c_str()));
    REQUIRE(grandchild > 0);
    CHECK(WaitDead(grandchild));
  }
  SECTION("in a session of its own: the exit is reported all the same") {
    Rig r;
    // setsid(1) execs in place here: $! is the escaped sleep.
    r.Spawn(Sh("setsid sleep 100 & echo $!; sleep 0.2; echo server-done; exit 4"));
    REQUIRE(r.WaitOut("server-done"));
    const auto server_done = Steady::now();
    const pid_t escaped = static_cast<pid_t>(std::atoi(r.sink.out.c_str()));
    REQUIRE(escaped > 1);
    REQUIRE(r.WaitExit(5000ms));
    CHECK(r.sink.exited_at - server_done < 700ms);
    CHECK(r.sink.exit->Describe() == "exited with code 4");
    // It left the server's group, so it is the test's to end.
    kill(escaped, SIGKILL);
  }
}

TEST_CASE("child process: destroying a running child kills its group at once",
          "[child_process][local]") {
  Rig r;
  r.Spawn(Sh("sleep 100 & echo $!; echo $$; wait"));
  REQUIRE(r.RunUntil([&] { return std::count(r.sink.out.begin(), r.sink.out.end(), '\n') >= 2; }));
  std::istringstream in(r.sink.out);
  pid_t grandchild = 0, server = 0;
  in >> grandchild >> server;
  REQUIRE(grandchild > 0);
  REQUIRE(server > 0);
  CHECK(server == r.sink.started);
  const pid_t keeper = ParentOf(server);
  REQUIRE(keeper > 0);
  CHECK(ParentOf(keeper) == getpid());
  const auto destroyed_at = Steady::now();
  r.child.reset();
  CHECK(Steady::now() - destroyed_at < 1000ms);
  CHECK(WaitDead(server));
  CHECK(WaitDead(grandchild));
  // The keeper is reaped, not left a zombie of the test.
  errno = 0;
  CHECK(waitpid(keeper, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
  CHECK(ProcState(keeper) == 0);
  CHECK_FALSE(r.sink.exit.has_value());  // nothing is reported of a destroyed child
}

TEST_CASE("child process: its environment is exactly the one given", "[child_process][local]") {
  setenv("MCPGW_TEST_PARENT_ONLY", "leaked", 1);
  Rig r;
  ChildSpec spec;
  spec.path = "/usr/bin/env";
  spec.argv = {"env"};
  spec.env = {"FOO=bar", "EMPTY=", "WITH_SPACE=a b", "PATH=/nowhere"};
  spec.cwd = "/";
  r.Spawn(spec);
  REQUIRE(r.WaitExit());
  unsetenv("MCPGW_TEST_PARENT_ONLY");
  CHECK(r.sink.exit->Describe() == "exited with code 0");
  CHECK(r.sink.out == "FOO=bar\nEMPTY=\nWITH_SPACE=a b\nPATH=/nowhere\n");
}

TEST_CASE("child process: no descriptor of the daemon reaches the server or its keeper",
          "[child_process][local]") {
  char path[] = "/tmp/mcpgw-child-fd-XXXXXX";
  const int marker = mkstemp(path);  // no O_CLOEXEC
  REQUIRE(marker >= 0);
  REQUIRE((fcntl(marker, F_GETFD) & FD_CLOEXEC) == 0);
  const int inherited = fcntl(marker, F_DUPFD, 40);  // well above what the child uses
  REQUIRE(inherited >= 40);

  SECTION("the server") {
    Rig r;
    ChildSpec spec;
    spec.path = "/bin/ls";
    spec.argv = {"ls", "-l", "/proc/self/fd"};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.cwd = "/";
    r.Spawn(spec);
    REQUIRE(r.WaitExit());
    CHECK(r.sink.exit->Describe() == "exited with code 0");
    INFO(r.sink.out);
    // 0-2 (pipes), and the directory ls itself opened to list them.
    std::map<int, std::string> fds;
    std::istringstream lines(r.sink.out);
    std::string line;
    while (std::getline(lines, line)) {
      const size_t arrow = line.find(" -> ");
      if (arrow == std::string::npos) continue;
      const size_t name = line.rfind(' ', arrow - 1);
      fds[std::stoi(line.substr(name + 1, arrow - name - 1))] = line.substr(arrow + 4);
    }
    CHECK(fds.size() <= 4);
    for (int fd = 0; fd <= 2; ++fd) {
      REQUIRE(fds.count(fd) == 1);
      CHECK(fds[fd].rfind("pipe:", 0) == 0);
    }
    for (const auto& [fd, target] : fds) {
      CHECK(target.find("mcpgw-child-fd-") == std::string::npos);
      if (fd > 2) CHECK(target.find("/fd") != std::string::npos);  // ls's own
    }
    CHECK(fds.count(inherited) == 0);
  }
  SECTION("the keeper") {
    Rig r;
    r.Spawn(Sh("echo ready; read line"));
    REQUIRE(r.WaitOut("ready\n"));
    const pid_t keeper = ParentOf(r.sink.started);
    REQUIRE(keeper > 0);
    const auto fds = OpenFds(keeper);
    std::string seen;
    for (const auto& [fd, target] : fds) seen += std::to_string(fd) + " -> " + target + "\n";
    INFO(seen);
    CHECK(fds.size() <= 4);
    for (const auto& [fd, target] : fds) {
      CHECK(target.find("mcpgw-child-fd-") == std::string::npos);
      if (fd <= 2) CHECK(target == "/dev/null");
    }
    r.child->Write("\n");
    REQUIRE(r.WaitExit());
  }
  close(inherited);
  close(marker);
  unlink(path);
}

TEST_CASE("child process: the keeper is not left behind", "[child_process][local]") {
  Rig r;
  r.Spawn(Sh("echo ready; read line; exit 7"));
  REQUIRE(r.WaitOut("ready\n"));
  const pid_t server = r.sink.started;
  const pid_t keeper = ParentOf(server);
  REQUIRE(keeper > 0);
  CHECK(keeper != getpid());
  CHECK(ParentOf(keeper) == getpid());
  // The server runs in a process group of its own, not the test's.
  CHECK(getpgid(server) == server);
  CHECK(getpgid(server) != getpgrp());
  r.child->Write("go\n");
  REQUIRE(r.WaitExit());
  CHECK(r.sink.exit->Describe() == "exited with code 7");
  errno = 0;
  CHECK(waitpid(keeper, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
  CHECK(ProcState(keeper) == 0);
  CHECK(WaitDead(server));
}

}  // namespace
}  // namespace mcpgw
