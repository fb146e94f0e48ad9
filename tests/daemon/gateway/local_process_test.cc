// A local server's process as its host runs it (BEHAVIOR.md §17): the
// environment it gets (LocalServerEnv), where its command is found
// (base/command_path.h: the login shell's PATH, then the daemon's), and
// LocalProcess over a scripted child: what it starts, what it delivers, its
// stderr lines (bounded, rate-limited, kept for status) and its exit reason.
#include "daemon/gateway/local_process.h"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "base/command_path.h"
#include "tests/daemon/testing/fake_env.h"

namespace mcpgw {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;
namespace fs = std::filesystem;

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

// Entries of `env` that set `name`.
std::vector<std::string> Named(const std::vector<std::string>& env, const std::string& name) {
  std::vector<std::string> out;
  for (const std::string& e : env) {
    if (e.compare(0, name.size() + 1, name + "=") == 0) out.push_back(e);
  }
  return out;
}

// --- the environment ---

TEST_CASE("local env: only the listed variables of the daemon's reach the server",
          "[local_process][local]") {
  std::vector<std::string> own_text = {
      "HOME=/home/user",
      "USER=user",
      "LOGNAME=user",
      "SHELL=/bin/zsh",
      "TERM=xterm",
      "LANG=en_US.UTF-8",
      "LC_ALL=C.UTF-8",
      "LC_CTYPE=C.UTF-8",
      "TMPDIR=/tmp/user",
      "XDG_RUNTIME_DIR=/run/user/1000",
      "HTTPS_PROXY=http://proxy.example:3128",
      "https_proxy=http://proxy.example:3128",
      "NO_PROXY=localhost",
      "SSL_CERT_FILE=/etc/ssl/ca.pem",
      "AWS_SECRET_ACCESS_KEY=aws-secret",
      "GITHUB_TOKEN=ghp_secret",
      "OPENAI_API_KEY=sk-secret",
      "LD_PRELOAD=/tmp/evil.so",
      "LD_LIBRARY_PATH=/tmp/lib",
      "NODE_OPTIONS=--require /tmp/x.js",
      "PYTHONPATH=/tmp/py",
      "MCPGW_CONFIG=/etc/mcpgw.json",
      "PATH=/usr/bin:/bin",
      "SSH_AUTH_SOCK=/tmp/agent.sock",
      "NOEQUALSIGN",
  };
  std::vector<char*> own;
  for (std::string& e : own_text) own.push_back(e.data());
  own.push_back(nullptr);

  const std::vector<std::string> env =
      LocalServerEnv(own.data(), {"/home/user/.nvm/versions/node/v22/bin", "/usr/bin", "/bin"}, {});
  for (const char* kept :
       {"HOME=/home/user", "USER=user", "LOGNAME=user", "SHELL=/bin/zsh", "TERM=xterm",
        "LANG=en_US.UTF-8", "LC_ALL=C.UTF-8", "LC_CTYPE=C.UTF-8", "TMPDIR=/tmp/user",
        "XDG_RUNTIME_DIR=/run/user/1000", "HTTPS_PROXY=http://proxy.example:3128",
        "https_proxy=http://proxy.example:3128", "NO_PROXY=localhost",
        "SSL_CERT_FILE=/etc/ssl/ca.pem"}) {
    INFO(kept);
    CHECK(Has(env, kept));
  }
  for (const char* dropped :
       {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "OPENAI_API_KEY", "LD_PRELOAD", "LD_LIBRARY_PATH",
        "NODE_OPTIONS", "PYTHONPATH", "MCPGW_CONFIG", "SSH_AUTH_SOCK", "NOEQUALSIGN"}) {
    INFO(dropped);
    CHECK(Named(env, dropped).empty());
    CHECK_FALSE(Has(env, dropped));
  }
  // PATH is the search directories, not the daemon's own; set once.
  CHECK(Named(env, "PATH") ==
        std::vector<std::string>{"PATH=/home/user/.nvm/versions/node/v22/bin:/usr/bin:/bin"});
  CHECK(env.size() == 15);
}

TEST_CASE("local env: the entry's own env overrides and adds", "[local_process][local]") {
  std::vector<std::string> own_text = {"HOME=/home/user", "LANG=en_US.UTF-8",
                                       "GITHUB_TOKEN=from-the-daemon"};
  std::vector<char*> own;
  for (std::string& e : own_text) own.push_back(e.data());
  own.push_back(nullptr);
  const std::vector<config::EnvVar> entry = {
      {"LANG", Secret("fr_FR.UTF-8")},
      {"GITHUB_TOKEN", Secret("from-the-entry")},
      {"PATH", Secret("/opt/tool/bin")},
      {"EMPTY", Secret("")},
  };
  const std::vector<std::string> env = LocalServerEnv(own.data(), {"/usr/bin"}, entry);
  CHECK(Named(env, "LANG") == std::vector<std::string>{"LANG=fr_FR.UTF-8"});
  CHECK(Named(env, "GITHUB_TOKEN") == std::vector<std::string>{"GITHUB_TOKEN=from-the-entry"});
  CHECK(Named(env, "PATH") == std::vector<std::string>{"PATH=/opt/tool/bin"});
  CHECK(Named(env, "EMPTY") == std::vector<std::string>{"EMPTY="});
  CHECK(Has(env, "HOME=/home/user"));
  CHECK(env.size() == 5);
}

// --- where the command is found ---

// A directory removed with everything in it at the end of the test.
struct TempDir {
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "mcpgw-local-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void Write(const std::string& relative, const std::string& text, int mode = 0644) {
    const fs::path file = fs::path(path) / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    REQUIRE(chmod(file.c_str(), static_cast<mode_t>(mode)) == 0);
  }
  std::string path;
};

// The test's own PATH set to `value` for a while: a daemon under a service
// manager has a short one.
struct ScopedPath {
  explicit ScopedPath(const char* value) {
    if (const char* old = getenv("PATH")) saved = old;
    setenv("PATH", value, 1);
  }
  ~ScopedPath() {
    if (saved) {
      setenv("PATH", saved->c_str(), 1);
    } else {
      unsetenv("PATH");
    }
  }
  std::optional<std::string> saved;
};

bool Dead(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return true;
  return text[close + 2] == 'Z' || text[close + 2] == 'X';
}

TEST_CASE("command path: npx of an nvm set up in .bashrc is found through the login shell",
          "[local_process][command_path][local]") {
  // bash is Essential on Debian: a machine without it fails here, not silently.
  REQUIRE(access("/bin/bash", X_OK) == 0);
  TempDir home;
  const std::string node_bin = home.path + "/.nvm/versions/node/v22.1.0/bin";
  home.Write(".nvm/versions/node/v22.1.0/bin/npx", "#!/bin/sh\necho fake npx\n", 0755);
  // As Debian's default .profile does: a login shell reads .profile, which
  // reads .bashrc, where nvm's installer puts itself. A banner and a PATH-like
  // line printed on the way are not taken for the PATH.
  home.Write(".profile",
             "echo 'Welcome to the test machine'\n"
             "echo PATH=/bogus/from/banner\n"
             "if [ -n \"$BASH_VERSION\" ] && [ -f \"$HOME/.bashrc\" ]; then . \"$HOME/.bashrc\"; "
             "fi\n");
  home.Write(".bashrc",
             "export NVM_DIR=\"$HOME/.nvm\"\n"
             "export PATH=\"$NVM_DIR/versions/node/v22.1.0/bin:$PATH\"\n");

  ScopedPath minimal("/usr/bin:/bin");
  const auto began = Steady::now();
  const std::string login = base::LoginShellPath("/bin/bash", home.path, 3000ms);
  CHECK(Steady::now() - began < 3000ms);
  INFO("login shell PATH: " << login);
  REQUIRE_FALSE(login.empty());
  CHECK(login.rfind(node_bin + ":", 0) == 0);
  CHECK(login.find("/bogus") == std::string::npos);

  const std::vector<std::string> dirs = base::SearchDirs(login, "/usr/bin:/bin");
  REQUIRE_FALSE(dirs.empty());
  CHECK(dirs.front() == node_bin);
  base::Result<std::string> npx = base::FindCommand("npx", dirs, home.path);
  REQUIRE(npx.ok());
  CHECK(*npx == node_bin + "/npx");
  // The daemon's own short PATH alone would not find this one.
  base::Result<std::string> without =
      base::FindCommand("npx", base::SearchDirs("", "/usr/bin:/bin"), home.path);
  CHECK((!without.ok() || *without != node_bin + "/npx"));
}

TEST_CASE("command path: a login shell that never finishes gives up in time",
          "[local_process][command_path][local]") {
  // bash is Essential on Debian: a machine without it fails here, not silently.
  REQUIRE(access("/bin/bash", X_OK) == 0);
  TempDir home;
  home.Write(".profile",
             "export PATH=/should/not/be/read:$PATH\n"
             "sleep 1000 & echo $! > \"$HOME/sleep.pid\"; wait\n");
  ScopedPath minimal("/usr/bin:/bin");
  const auto began = Steady::now();
  const std::string login = base::LoginShellPath("/bin/bash", home.path, 500ms);
  const auto took = Steady::now() - began;
  CHECK(login.empty());
  CHECK(took >= 450ms);
  CHECK(took < 2000ms);
  // What the shell started is not left running.
  std::ifstream pid_file(home.path + "/sleep.pid");
  pid_t sleeper = 0;
  pid_file >> sleeper;
  REQUIRE(sleeper > 0);
  const auto deadline = Steady::now() + 2s;
  while (!Dead(sleeper) && Steady::now() < deadline) std::this_thread::sleep_for(10ms);
  CHECK(Dead(sleeper));
  if (!Dead(sleeper)) kill(sleeper, SIGKILL);
}

TEST_CASE("command path: a background job started by the rc files does not cost the PATH",
          "[local_process][command_path][local]") {
  // bash is Essential on Debian: a machine without it fails here, not silently.
  REQUIRE(access("/bin/bash", X_OK) == 0);
  TempDir home;
  // An agent or updater started in the background, with the shell's stdout
  // (as `cmd &` leaves it): the shell itself finishes at once.
  home.Write(".profile",
             "export PATH=/opt/from-profile/bin:$PATH\n"
             "sleep 30 & echo $! > \"$HOME/job.pid\"\n");
  ScopedPath minimal("/usr/bin:/bin");
  const auto began = Steady::now();
  const std::string login = base::LoginShellPath("/bin/bash", home.path, 1500ms);
  const auto took = Steady::now() - began;
  std::ifstream pid_file(home.path + "/job.pid");
  pid_t job = 0;
  pid_file >> job;
  if (job > 0 && !Dead(job)) kill(job, SIGKILL);
  INFO("login shell PATH: \"" << login << "\"");
  CHECK(login.rfind("/opt/from-profile/bin:", 0) == 0);
  CHECK(took < 1000ms);
}

TEST_CASE("command path: a shell that cannot be run gives no PATH",
          "[local_process][command_path][local]") {
  CHECK(base::LoginShellPath("bash", "/", 500ms).empty());  // not absolute
  CHECK(base::LoginShellPath("/nonexistent/bin/zsh", "/", 500ms).empty());
  CHECK(base::LoginShellPath("", "/", 500ms).empty());
}

TEST_CASE("command path: the search directories, in order, once each",
          "[local_process][command_path][local]") {
  CHECK(base::SearchDirs("/home/u/.nvm/bin:/usr/local/bin/:relative/bin::/usr/bin",
                         "/usr/bin:./bin:/bin:/usr/local/bin:/home/u/.nvm/bin:~/bin:/") ==
        std::vector<std::string>{"/home/u/.nvm/bin", "/usr/local/bin", "/usr/bin", "/bin", "/"});
  CHECK(base::SearchDirs("", "") == std::vector<std::string>{});
  CHECK(base::SearchDirs("", "/usr/bin") == std::vector<std::string>{"/usr/bin"});
}

TEST_CASE("command path: FindCommand", "[local_process][command_path][local]") {
  TempDir tmp;
  tmp.Write("a/tool", "#!/bin/sh\n", 0755);
  tmp.Write("b/tool", "#!/bin/sh\n", 0755);
  tmp.Write("a/plain", "not executable\n", 0644);
  tmp.Write("b/plain", "#!/bin/sh\n", 0755);
  fs::create_directories(fs::path(tmp.path) / "a" / "dir-named-tool");
  tmp.Write("b/dir-named-tool", "#!/bin/sh\n", 0755);
  const std::string a = tmp.path + "/a", b = tmp.path + "/b";

  SECTION("the first directory that has it wins") {
    base::Result<std::string> found = base::FindCommand("tool", {a, b}, "/");
    REQUIRE(found.ok());
    CHECK(*found == a + "/tool");
  }
  SECTION("a file that is not executable, or a directory, is passed over") {
    base::Result<std::string> plain = base::FindCommand("plain", {a, b}, "/");
    REQUIRE(plain.ok());
    CHECK(*plain == b + "/plain");
    base::Result<std::string> dir = base::FindCommand("dir-named-tool", {a, b}, "/");
    REQUIRE(dir.ok());
    CHECK(*dir == b + "/dir-named-tool");
  }
  SECTION("a command with a slash is taken as it is, relative to the working directory") {
    base::Result<std::string> relative = base::FindCommand("a/tool", {b}, tmp.path);
    REQUIRE(relative.ok());
    CHECK(*relative == tmp.path + "/a/tool");
    base::Result<std::string> absolute = base::FindCommand(b + "/tool", {a}, "/");
    REQUIRE(absolute.ok());
    CHECK(*absolute == b + "/tool");
    base::Result<std::string> missing = base::FindCommand("./nope", {a, b}, tmp.path);
    CHECK_FALSE(missing.ok());
    CHECK(missing.kind() == base::ErrorKind::kNotFound);
    CHECK(missing.message().find("./nope") != std::string::npos);
  }
  SECTION("not found names the command and every directory searched") {
    base::Result<std::string> missing =
        base::FindCommand("mcpgw-no-such-command", {a, b, "/usr/bin"}, "/");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.kind() == base::ErrorKind::kNotFound);
    CHECK(missing.message() ==
          "command mcpgw-no-such-command not found in " + a + ", " + b + " and /usr/bin");
  }
  SECTION("an empty command is refused") { CHECK_FALSE(base::FindCommand("", {a}, "/").ok()); }
}

// --- LocalProcess over a scripted child ---

struct ScriptedChild;

struct Spawned {
  ChildSpec spec;
  ChildSink* sink = nullptr;
  ScriptedChild* child = nullptr;  // null once LocalProcess destroyed it
  std::string stdin_bytes;
  std::vector<int64_t> stops;
};

struct ScriptedChild final : Child {
  explicit ScriptedChild(Spawned* spawned) : record(spawned) {}
  ~ScriptedChild() override { record->child = nullptr; }
  pid_t pid() const override { return 4242; }
  void Write(std::string bytes) override { record->stdin_bytes += bytes; }
  size_t pending_input() const override { return 0; }
  void Stop(int64_t grace_ms) override { record->stops.push_back(grace_ms); }
  bool exited() const override { return false; }
  Spawned* record;
};

class ProcessEnv final : public testing::FakeEnv {
 public:
  explicit ProcessEnv(testing::FakeWorld* world) : FakeEnv(world) {}
  base::Result<std::unique_ptr<Child>> SpawnChild(const ChildSpec& spec, ChildSink* sink) override {
    if (refuse) return base::Status(base::ErrorKind::kInternal, "fork: Resource unavailable");
    auto record = std::make_unique<Spawned>();
    record->spec = spec;
    record->sink = sink;
    auto child = std::make_unique<ScriptedChild>(record.get());
    record->child = child.get();
    spawned.push_back(std::move(record));
    return std::unique_ptr<Child>(std::move(child));
  }
  std::vector<std::unique_ptr<Spawned>> spawned;
  bool refuse = false;
};

struct Events final : LocalProcess::Events {
  void OnProcessOutput(std::string_view bytes) override { out.append(bytes); }
  void OnProcessExited(const std::string& reason) override { exits.push_back(reason); }
  void OnProcessesGone() override { ++gone; }
  std::string out;
  std::vector<std::string> exits;
  int gone = 0;
};

// Captures what the daemon logs while it lives.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    sink->set_pattern("%l %v");
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  // Lines logged that contain `part`.
  int Count(std::string_view part) const {
    std::istringstream lines(out_.str());
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) n += line.find(part) != std::string::npos ? 1 : 0;
    return n;
  }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

struct ProcessRig {
  explicit ProcessRig(config::LocalServer server = Server())
      : env(&world),
        gauges(std::make_shared<LocalGauges>()),
        process(&env, "local", std::move(server), gauges, &events) {}

  static config::LocalServer Server() {
    config::LocalServer server;
    server.command = "/bin/sh";
    server.args = {"-c", "exec my-server --stdio"};
    server.env = {{"API_KEY", Secret("k-123")}};
    server.cwd = "/tmp";
    server.shown = "/bin/sh -c exec my-server --stdio";
    return server;
  }
  Spawned& Last() {
    REQUIRE_FALSE(env.spawned.empty());
    return *env.spawned.back();
  }
  void Exit(Spawned& s, int code) {
    ChildExit exit;
    exit.code = code;
    s.sink->OnChildExit(exit);
  }

  LogCapture log;
  testing::FakeWorld world;
  ProcessEnv env;
  std::shared_ptr<LocalGauges> gauges;
  Events events;
  LocalProcess process;
};

TEST_CASE("local process: starts the command with the server's environment and cwd",
          "[local_process][local]") {
  ProcessRig r;
  r.process.Spawn();
  REQUIRE(r.env.spawned.size() == 1);
  const ChildSpec& spec = r.Last().spec;
  CHECK(spec.path == "/bin/sh");
  CHECK(spec.argv == std::vector<std::string>{"/bin/sh", "-c", "exec my-server --stdio"});
  CHECK(spec.cwd == "/tmp");
  CHECK(spec.env == r.process.environment());
  CHECK(Has(spec.env, "API_KEY=k-123"));
  std::string joined;
  for (const std::string& d : CommandSearchDirs()) joined += (joined.empty() ? "" : ":") + d;
  CHECK(Named(spec.env, "PATH") == std::vector<std::string>{"PATH=" + joined});
  CHECK(r.events.exits.empty());
  CHECK_FALSE(r.process.idle());
  CHECK(r.gauges->started_unix.load() == r.env.UnixNow());
  CHECK(r.gauges->restarts.load() == 0);

  r.Last().sink->OnChildStarted(4242);
  CHECK(r.gauges->pid.load() == 4242);
  r.process.Write("{\"jsonrpc\":\"2.0\"}\n");
  CHECK(r.Last().stdin_bytes == "{\"jsonrpc\":\"2.0\"}\n");
  r.Last().sink->OnChildStdout("{\"id\":1}\n");
  CHECK(r.events.out == "{\"id\":1}\n");

  r.Exit(r.Last(), 0);
  REQUIRE(r.events.exits.size() == 1);
  CHECK(r.events.exits[0] == "exited with code 0");
  CHECK(r.gauges->pid.load() == 0);
  CHECK(r.process.idle());
  CHECK(r.env.spawned[0]->child == nullptr);  // the ended child is let go
}

TEST_CASE("local process: a command that is not found, or cannot be forked, is an exit",
          "[local_process][local]") {
  SECTION("not found") {
    config::LocalServer server = ProcessRig::Server();
    server.command = "mcpgw-no-such-command-4711";
    ProcessRig r(server);
    r.process.Spawn();
    CHECK(r.env.spawned.empty());
    REQUIRE(r.events.exits.size() == 1);
    CHECK(r.events.exits[0].rfind("command mcpgw-no-such-command-4711 not found in ", 0) == 0);
    CHECK(r.process.idle());
  }
  SECTION("the system refuses the process") {
    ProcessRig r;
    r.env.refuse = true;
    r.process.Spawn();
    REQUIRE(r.events.exits.size() == 1);
    CHECK(r.events.exits[0].find("could not be started") != std::string::npos);
    CHECK(r.events.exits[0].find("Resource unavailable") != std::string::npos);
    CHECK(r.process.idle());
  }
}

TEST_CASE("local process: a process given up is stopped, drained, and not heard from",
          "[local_process][local]") {
  ProcessRig r;
  r.process.Spawn();
  Spawned& first = r.Last();
  r.process.Spawn();  // a new session: the old process is stopped first
  REQUIRE(r.env.spawned.size() == 2);
  Spawned& second = r.Last();
  CHECK(first.stops == std::vector<int64_t>{2000});
  CHECK(second.stops.empty());
  CHECK(r.gauges->restarts.load() == 1);

  first.sink->OnChildStdout("{\"from\":\"old\"}\n");
  CHECK(r.events.out.empty());
  second.sink->OnChildStdout("{\"from\":\"new\"}\n");
  CHECK(r.events.out == "{\"from\":\"new\"}\n");
  r.process.Write("x\n");
  CHECK(first.stdin_bytes.empty());
  CHECK(second.stdin_bytes == "x\n");

  // The old one's end is no exit of the server's.
  r.Exit(first, 143);
  CHECK(r.events.exits.empty());
  CHECK(r.events.gone == 0);  // the current one still runs
  r.process.Stop();
  CHECK(second.stops == std::vector<int64_t>{2000});
  CHECK_FALSE(r.process.idle());
  r.Exit(second, 0);
  CHECK(r.events.exits.empty());
  CHECK(r.events.gone == 1);
  CHECK(r.process.idle());
}

TEST_CASE("local process: stderr is read in lines of at most 8 KiB and kept for status",
          "[local_process][local]") {
  ProcessRig r;
  r.process.Spawn();
  Spawned& s = r.Last();
  s.sink->OnChildStderr("starting u");
  s.sink->OnChildStderr("p\r\nlisten");
  s.sink->OnChildStderr("ing on stdio\n\n");
  CHECK(r.gauges->StderrTail() == std::vector<std::string>{"starting up", "listening on stdio"});
  CHECK(r.gauges->stderr_lines.load() == 2);

  const std::string huge(20000, 'e');
  s.sink->OnChildStderr(huge.substr(0, 5000));
  s.sink->OnChildStderr(huge.substr(5000) + "\nafter\n");
  const std::vector<std::string> tail = r.gauges->StderrTail();
  REQUIRE(tail.size() == 4);
  // Kept with room past the cut for a secret to be scrubbed whole, and shown
  // (log, status) at most 8 KiB, marked as cut.
  CHECK(tail[2].size() <= LocalProcess::kMaxStderrLine + LocalProcess::kScrubMargin);
  const std::string shown = ShownStderrLine(tail[2]);
  CHECK(shown.size() <= LocalProcess::kMaxStderrLine + 8);
  CHECK(shown.rfind(std::string(LocalProcess::kMaxStderrLine - 8, 'e'), 0) == 0);
  CHECK(shown.compare(shown.size() - 3, 3, "...") == 0);
  CHECK(tail[3] == "after");

  // Only the last lines are kept.
  for (int i = 0; i < 30; ++i) s.sink->OnChildStderr("line " + std::to_string(i) + "\n");
  const std::vector<std::string> last = r.gauges->StderrTail();
  REQUIRE(last.size() == LocalProcess::kStderrTail);
  CHECK(last.front() == "line 10");
  CHECK(last.back() == "line 29");
}

TEST_CASE("local process: stderr floods the log at most 20 lines a second",
          "[local_process][local]") {
  ProcessRig r;
  r.process.Spawn();
  Spawned& s = r.Last();
  for (int i = 0; i < 25; ++i) s.sink->OnChildStderr("noise " + std::to_string(i) + "\n");
  CHECK(r.gauges->stderr_lines.load() == 25);
  CHECK(r.gauges->stderr_dropped.load() == 5);
  CHECK(r.log.Count("server \"local\": stderr: noise ") == 20);
  CHECK(r.log.Count("stderr: noise 19") == 1);
  CHECK(r.log.Count("stderr: noise 20") == 0);
  CHECK(r.gauges->StderrTail().back() == "noise 24");  // status keeps them all the same
  r.world.now += 1s;
  for (int i = 0; i < 3; ++i) s.sink->OnChildStderr("calm " + std::to_string(i) + "\n");
  CHECK(r.gauges->stderr_lines.load() == 28);
  CHECK(r.gauges->stderr_dropped.load() == 5);
  CHECK(r.log.Count("5 stderr lines not logged (more than 20 a second)") == 1);
  CHECK(r.log.Count("stderr: calm ") == 3);
}

TEST_CASE("local process: the exit reason ends with the last stderr lines",
          "[local_process][local]") {
  ProcessRig r;
  r.process.Spawn();
  Spawned& s = r.Last();
  s.sink->OnChildStderr("boom 1\nboom 2\nboom 3\nError: Cannot find module 'x'");
  ChildExit exit;
  exit.code = 1;
  s.sink->OnChildExit(exit);
  REQUIRE(r.events.exits.size() == 1);
  CHECK(r.events.exits[0] ==
        "exited with code 1; stderr: boom 2 | boom 3 | Error: Cannot find module 'x'");
  CHECK(r.gauges->StderrTail().back() == "Error: Cannot find module 'x'");
}

TEST_CASE("local process: destroying it ends every process at once", "[local_process][local]") {
  std::vector<std::unique_ptr<Spawned>> records;
  {
    ProcessRig r;
    r.process.Spawn();
    r.process.Spawn();  // the first is being stopped
    REQUIRE(r.env.spawned.size() == 2);
    CHECK(r.env.spawned[0]->child != nullptr);
    CHECK(r.env.spawned[1]->child != nullptr);
    r.process.KillAll();
    CHECK(r.env.spawned[0]->child == nullptr);
    CHECK(r.env.spawned[1]->child == nullptr);
    CHECK(r.process.idle());
    CHECK(r.gauges->pid.load() == 0);
    r.process.Spawn();
    records = std::move(r.env.spawned);
  }
  REQUIRE(records.size() == 3);
  CHECK(records[2]->child == nullptr);  // destroyed with the LocalProcess
}

}  // namespace
}  // namespace mcpgw
