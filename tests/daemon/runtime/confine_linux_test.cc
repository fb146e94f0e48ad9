// Confinement on this machine's kernel (daemon/runtime/confine.h, BEHAVIOR.md
// §18): real processes started through ChildProcess with the plan the daemon
// makes for a local server, each trying what its entry does not allow. On a
// kernel without Landlock the same entries must be refused instead.
#include "daemon/runtime/confine.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "tests/daemon/testing/child_rig.h"

namespace mcpgw {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::Rig;

// A tree of its own: inside/ (readable), out/ (writable), secret/ (neither),
// home/ (the home the plan is made for), tmp/ (the server's temporary
// directory).
struct Tree {
  Tree() {
    char pattern[] = "/tmp/mcpgw-confine-test-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    root = pattern;
    for (const char* dir : {"inside", "out", "secret", "home", "tmp"})
      fs::create_directory(root / dir);
    std::ofstream(root / "inside/a.txt") << "readable";
    std::ofstream(root / "secret/key.txt") << "the-secret-key";
  }
  ~Tree() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
  std::string operator/(const char* name) const { return (root / name).string(); }

  fs::path root;
};

config::LocalServer Confined(const Tree& t, config::ConfineNetwork network) {
  config::LocalServer server;
  server.command = "sh";
  config::Confine c;
  c.read.push_back({t / "inside", t / "inside"});
  c.write.push_back({t / "out", t / "out"});
  c.network = network;
  server.confine = c;
  return server;
}

ConfineContext Context(const Tree& t, const std::string& command = "/bin/sh") {
  ConfineContext context;
  context.command_path = command;
  context.search_dirs = {"/usr/bin", "/bin"};
  context.home = t / "home";
  context.temp_dir = t / "tmp";
  return context;
}

// Runs `script` under /bin/sh with `plan`; what it printed (stdout and
// stderr), and how it ended.
struct Ran {
  std::string out;
  ChildExit exit;
};
Ran Run(const std::string& script, std::shared_ptr<const ConfinePlan> plan) {
  Rig r;
  ChildSpec spec = testing::Sh("exec 2>&1; " + script);
  spec.confine = std::move(plan);
  r.Spawn(spec);
  REQUIRE(r.WaitExit(10000ms));
  return {r.sink.out, *r.sink.exit};
}

std::shared_ptr<const ConfinePlan> Plan(const config::LocalServer& server,
                                        const ConfineContext& c) {
  return std::make_shared<const ConfinePlan>(PlanConfinement(server, c, KernelConfineSupport()));
}

// Whether this kernel has Landlock (this machine's does). Without it, what
// the tests try is refused instead: that is what is checked there.
bool LandlockOrRefused() {
  if (KernelConfineSupport().landlock_abi >= 1) return true;
  Tree t;
  CHECK_FALSE(ConfineGaps(Confined(t, config::ConfineNetwork::kNone), KernelConfineSupport(), 1000)
                  .empty());
  return false;
}

TEST_CASE("confine: what this kernel cannot enforce refuses the entry", "[confine][local]") {
  Tree t;
  const config::LocalServer server = Confined(t, config::ConfineNetwork::kPorts);
  const std::vector<std::string> gaps = ConfineGaps(server, KernelConfineSupport(), 1000);
  // This machine offers Landlock ABI 4 or later (TCP ports): nothing is missing.
  // On another, the gaps say what is, and the entry is refused for them.
  if (KernelConfineSupport().landlock_abi >= 4 && KernelConfineSupport().seccomp) {
    CHECK(gaps.empty());
  } else {
    CHECK_FALSE(gaps.empty());
  }
}

TEST_CASE("confine: a server reads and writes only what its entry lists", "[confine][local]") {
  if (!LandlockOrRefused()) return;
  Tree t;
  const auto plan = Plan(Confined(t, config::ConfineNetwork::kNone), Context(t));
  const Ran ran = Run("cat " + (t / "inside/a.txt") + "; echo; " +              //
                          "cat " + (t / "secret/key.txt") + "; echo rc=$?; " +  //
                          "ls " + (t / "secret") + "; echo rc=$?; " +           //
                          "echo x > " + (t / "out/w.txt") + "; echo rc=$?; " +  //
                          "echo x > " + (t / "inside/w.txt") + "; echo rc=$?; " + "echo x > " +
                          (t / "home/w.txt") + "; echo rc=$?; " + "echo x > " + (t / "tmp/w.txt") +
                          "; echo rc=$?; " + "cat /etc/hostname >/dev/null; echo rc=$?; " + "mv " +
                          (t / "out/w.txt") + " " + (t / "secret/w.txt") + "; echo rc=$?; " +
                          "ln " + (t / "secret/key.txt") + " " + (t / "out/k") + "; echo rc=$?; " +
                          "sh -c 'cat " + (t / "secret/key.txt") + "'; echo rc=$?",
                      plan);
  INFO(ran.out);
  CHECK(ran.exit.Describe() == "exited with code 0");
  CHECK(ran.out.find("readable") != std::string::npos);
  CHECK(ran.out.find("the-secret-key") == std::string::npos);
  // cat, ls; out/ yes; inside/, the home no; its temporary directory yes;
  // a file of /etc it has no need of no; across the boundary by rename and
  // link no; and a child of its own no more than itself.
  const std::string expected[] = {"rc=1", "rc=2", "rc=0", "rc=2", "rc=2",
                                  "rc=0", "rc=1", "rc=1", "rc=1", "rc=1"};
  size_t at = 0;
  for (const std::string& rc : expected) {
    at = ran.out.find("rc=", at);
    REQUIRE(at != std::string::npos);
    CHECK(ran.out.substr(at, rc.size()) == rc);
    ++at;
  }
  CHECK(ran.out.find("Permission denied") != std::string::npos);
  CHECK(fs::exists(t / "out/w.txt"));
  CHECK_FALSE(fs::exists(t / "secret/w.txt"));
  CHECK_FALSE(fs::exists(t / "out/k"));
  CHECK_FALSE(fs::exists(t / "inside/w.txt"));
  // The daemon itself is not confined by what it applied in the child.
  CHECK(std::ifstream(t / "secret/key.txt").good());
}

TEST_CASE("confine: network false closes sockets and true leaves them", "[confine][local]") {
  if (!LandlockOrRefused()) return;
  Tree t;
  // Port 9 on loopback is closed: unconfined, the attempt is refused by the
  // peer; confined, the socket is never made.
  const std::string attempt = "bash -c 'exec 3<>/dev/tcp/127.0.0.1/9' ; echo rc=$?";
  const Ran offline = Run(attempt, Plan(Confined(t, config::ConfineNetwork::kNone), Context(t)));
  INFO(offline.out);
  CHECK(offline.out.find("Permission denied") != std::string::npos);
  const Ran online = Run(attempt, Plan(Confined(t, config::ConfineNetwork::kAll), Context(t)));
  INFO(online.out);
  CHECK(online.out.find("Connection refused") != std::string::npos);
  CHECK(online.out.find("Permission denied") == std::string::npos);
}

TEST_CASE("confine: limits bound the process and what it starts", "[confine][local]") {
  config::LocalServer server;
  server.limits.open_files = 32;
  server.limits.memory_mb = 256;
  Tree t;
  const Ran ran = Run("ulimit -n; ulimit -d; sh -c 'ulimit -n'", Plan(server, Context(t)));
  CHECK(ran.out == "32\n262144\n32\n");
}

TEST_CASE("confine: root keeps no capability in a confined server", "[confine][local]") {
  if (!LandlockOrRefused()) return;
  Tree t;
  // The shell's own /proc/self (a child it starts sees only its own).
  const Ran ran =
      Run("while read -r l; do case $l in Cap*) echo \"$l\";; esac; done </proc/self/status",
          Plan(Confined(t, config::ConfineNetwork::kAll), Context(t)));
  INFO(ran.out);
  CHECK(ran.out.find("CapEff:\t0000000000000000") != std::string::npos);
  if (geteuid() == 0) CHECK(ran.out.find("CapBnd:\t0000000000000000") != std::string::npos);
}

TEST_CASE("confine: a listed path gone at start fails the start, naming it", "[confine][local]") {
  if (!LandlockOrRefused()) return;
  Tree t;
  const config::LocalServer server = Confined(t, config::ConfineNetwork::kNone);
  const auto plan = Plan(server, Context(t));
  fs::remove_all(t / "inside");
  const Ran ran = Run("echo started", plan);
  CHECK(ran.out.empty());
  CHECK(ran.exit.confine_errno == ENOENT);
  CHECK(DescribeConfineFailure(*plan, ran.exit.confine_step, ran.exit.confine_index,
                               ran.exit.confine_errno) ==
        "could not be confined: " + (t / "inside") + ": No such file or directory");
}

TEST_CASE("confine: the plan grants a command's own tree, not the home around it",
          "[confine][local]") {
  if (!LandlockOrRefused()) return;
  Tree t;
  const std::string home = t / "home";
  auto rules_of = [&](const std::string& command) {
    ConfineContext c = Context(t, command);
    std::vector<std::string> paths;
    for (const ConfineRule& r :
         PlanConfinement(Confined(t, config::ConfineNetwork::kNone), c, KernelConfineSupport())
             .rules) {
      paths.push_back(r.path);
    }
    return paths;
  };
  auto has = [](const std::vector<std::string>& paths, const std::string& path) {
    return std::find(paths.begin(), paths.end(), path) != paths.end();
  };
  // ~/.local/bin/tool: the bin folder, not ~/.local (which holds more than programs).
  const auto local = rules_of(home + "/.local/bin/tool");
  CHECK(has(local, home + "/.local/bin"));
  CHECK_FALSE(has(local, home + "/.local"));
  CHECK_FALSE(has(local, home));
  // A version manager's tree: the whole version.
  const auto nvm = rules_of(home + "/.nvm/versions/node/v22/bin/node");
  CHECK(has(nvm, home + "/.nvm/versions/node/v22"));
  // npx: npm's cache, made for it.
  const auto npx = rules_of("/usr/bin/npx");
  CHECK(has(npx, home + "/.npm"));
  CHECK(fs::is_directory(home + "/.npm"));
  CHECK(has(npx, home + "/.npmrc"));
  CHECK_FALSE(has(rules_of("/usr/bin/node"), home + "/.npm"));
  // What the entry lists and the temporary directory are required; the rest
  // may be missing on a system.
  const ConfinePlan plan = PlanConfinement(Confined(t, config::ConfineNetwork::kNone), Context(t),
                                           KernelConfineSupport());
  for (const ConfineRule& r : plan.rules) {
    CAPTURE(r.path);
    CHECK(r.required == (r.path == t / "inside" || r.path == t / "out" || r.path == t / "tmp"));
  }
}

}  // namespace
}  // namespace mcpgw
