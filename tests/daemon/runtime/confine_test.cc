// What is platform-neutral of confinement: the gaps between what an entry
// asks and what a kernel offers (hand-made ConfineSupport values, never the
// running kernel's), the refusals they make, the caveats, the package caches,
// and the texts status and doctor show.
#include "daemon/runtime/confine.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace mcpgw {
namespace {

using config::Confine;
using config::ConfineEndpoint;
using config::ConfineNetwork;
using config::ConfinePath;
using config::LocalServer;

constexpr uid_t kUser = 1000;
constexpr uid_t kRoot = 0;

ConfineSupport Linux(int abi, bool seccomp = true) {
  ConfineSupport s;
  s.linux_kernel = true;
  s.landlock_abi = abi;
  s.seccomp = seccomp;
  if (abi == 0) s.landlock_why = "not built into this kernel";
  return s;
}

ConfineSupport MacOS() {
  ConfineSupport s;
  s.landlock_why = "macOS has no Landlock";
  return s;
}

// A local server confined to one read path, with `network`.
LocalServer Confined(ConfineNetwork network) {
  LocalServer server;
  server.command = "npx";
  server.shown = "npx";
  Confine c;
  c.read.push_back(ConfinePath{"/srv/data", "/srv/data"});
  c.write.push_back(ConfinePath{"/tmp/out", "/tmp/out"});
  c.network = network;
  if (network == ConfineNetwork::kPorts) {
    c.connect.push_back(ConfineEndpoint{"api.example.com", 443, "api.example.com:443"});
    c.connect.push_back(ConfineEndpoint{"[::1]", 8443, "[::1]:8443"});
  }
  server.confine = std::move(c);
  return server;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every gap names the key it is about.
void CheckNamesKey(const std::vector<std::string>& gaps) {
  for (const std::string& gap : gaps) {
    INFO(gap);
    CHECK((gap.rfind("confine", 0) == 0 || gap.rfind("limits", 0) == 0));
  }
}

TEST_CASE("without Landlock, confining files is a gap", "[confine]") {
  const std::vector<std::string> gaps =
      ConfineGaps(Confined(ConfineNetwork::kAll), Linux(0), kUser);
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].rfind("confine.read, confine.write: ", 0) == 0);
  CHECK(Contains(gaps[0], "Landlock ABI 1"));
  CHECK(Contains(gaps[0], "this kernel has no Landlock (not built into this kernel)"));
  CheckNamesKey(gaps);

  // No network either: the socket filter still closes it.
  CHECK(ConfineGaps(Confined(ConfineNetwork::kNone), Linux(0), kUser) == gaps);
}

TEST_CASE("Landlock ABI 1 and 2 cannot stop truncation outside write", "[confine]") {
  for (int abi : {1, 2}) {
    INFO(abi);
    const std::vector<std::string> gaps =
        ConfineGaps(Confined(ConfineNetwork::kNone), Linux(abi), kUser);
    REQUIRE(gaps.size() == 1);
    CHECK(gaps[0].rfind("confine.write: ", 0) == 0);
    CHECK(Contains(gaps[0], "truncation"));
    CHECK(Contains(gaps[0], "needs Landlock ABI 3"));
    CHECK(Contains(gaps[0], "this kernel offers Landlock ABI " + std::to_string(abi)));
  }
}

TEST_CASE("a port list needs Landlock ABI 4", "[confine]") {
  const std::vector<std::string> gaps =
      ConfineGaps(Confined(ConfineNetwork::kPorts), Linux(3), kUser);
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].rfind("confine.network: ", 0) == 0);
  CHECK(Contains(gaps[0], "needs Landlock ABI 4"));
  CHECK(Contains(gaps[0], "this kernel offers Landlock ABI 3"));

  // Below 3 the truncation gap comes too.
  const std::vector<std::string> two =
      ConfineGaps(Confined(ConfineNetwork::kPorts), Linux(2), kUser);
  REQUIRE(two.size() == 2);
  CHECK(two[0].rfind("confine.write: ", 0) == 0);
  CHECK(two[1].rfind("confine.network: ", 0) == 0);
}

TEST_CASE("no network needs seccomp, whatever the Landlock ABI", "[confine]") {
  CHECK(ConfineGaps(Confined(ConfineNetwork::kNone), Linux(3, true), kUser).empty());
  for (int abi : {3, 4, 7}) {
    INFO(abi);
    const std::vector<std::string> gaps =
        ConfineGaps(Confined(ConfineNetwork::kNone), Linux(abi, false), kUser);
    REQUIRE(gaps.size() == 1);
    CHECK(gaps[0].rfind("confine.network: ", 0) == 0);
    CHECK(Contains(gaps[0], "seccomp"));
  }
  // A port list too.
  const std::vector<std::string> ports =
      ConfineGaps(Confined(ConfineNetwork::kPorts), Linux(4, false), kUser);
  REQUIRE(ports.size() == 1);
  CHECK(Contains(ports[0], "seccomp"));
}

TEST_CASE("network true needs nothing of seccomp", "[confine]") {
  for (int abi : {3, 4, 7}) {
    INFO(abi);
    CHECK(ConfineGaps(Confined(ConfineNetwork::kAll), Linux(abi, false), kUser).empty());
  }
}

TEST_CASE("Landlock ABI 4 to 7 with seccomp enforces everything", "[confine]") {
  for (int abi = 4; abi <= 7; ++abi) {
    for (ConfineNetwork network :
         {ConfineNetwork::kNone, ConfineNetwork::kAll, ConfineNetwork::kPorts}) {
      INFO("abi " << abi << " network " << static_cast<int>(network));
      LocalServer server = Confined(network);
      server.limits = config::Limits{512, 256, 64};
      CHECK(ConfineGaps(server, Linux(abi), kUser).empty());
    }
  }
}

TEST_CASE("on macOS confine is a gap, and memory_mb, but open_files is not", "[confine]") {
  LocalServer server = Confined(ConfineNetwork::kAll);
  server.limits.memory_mb = 512;
  server.limits.open_files = 256;
  const std::vector<std::string> gaps = ConfineGaps(server, MacOS(), kUser);
  REQUIRE(gaps.size() == 2);
  CHECK(gaps[0].rfind("confine: ", 0) == 0);
  CHECK(Contains(gaps[0], "macOS"));
  CHECK(gaps[1].rfind("limits.memory_mb: ", 0) == 0);
  CheckNamesKey(gaps);

  LocalServer files_only;
  files_only.command = "node";
  files_only.limits.open_files = 256;
  CHECK(ConfineGaps(files_only, MacOS(), kUser).empty());
  // memory_mb is enforced on Linux even without Landlock.
  LocalServer memory;
  memory.command = "node";
  memory.limits.memory_mb = 512;
  CHECK(ConfineGaps(memory, Linux(0, false), kUser).empty());
}

TEST_CASE("limits.processes is a gap for root only", "[confine]") {
  LocalServer server;
  server.command = "node";
  server.limits.processes = 64;
  const std::vector<std::string> gaps = ConfineGaps(server, Linux(7), kRoot);
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].rfind("limits.processes: ", 0) == 0);
  CHECK(Contains(gaps[0], "root"));
  CHECK(ConfineGaps(server, Linux(7), kUser).empty());
  CHECK(ConfineGaps(server, MacOS(), kUser).empty());
  CHECK(ConfineGaps(server, MacOS(), kRoot).size() == 1);
}

TEST_CASE("an entry asking nothing has no gaps anywhere", "[confine]") {
  LocalServer server;
  server.command = "node";
  for (const ConfineSupport& support : {Linux(0, false), Linux(3), MacOS()}) {
    CHECK(ConfineGaps(server, support, kRoot).empty());
  }
}

TEST_CASE("every gap names its key, and a kernel gap the ABI needed and offered", "[confine]") {
  for (const ConfineSupport& support :
       {Linux(0, false), Linux(1, false), Linux(2), Linux(3, false), Linux(3), MacOS()}) {
    for (ConfineNetwork network :
         {ConfineNetwork::kNone, ConfineNetwork::kAll, ConfineNetwork::kPorts}) {
      LocalServer server = Confined(network);
      server.limits = config::Limits{512, 256, 64};
      const std::vector<std::string> gaps = ConfineGaps(server, support, kRoot);
      CHECK_FALSE(gaps.empty());
      CheckNamesKey(gaps);
      for (const std::string& gap : gaps) {
        if (!Contains(gap, "needs Landlock ABI")) continue;
        INFO(gap);
        if (support.landlock_abi == 0) {
          CHECK(Contains(gap, "this kernel has no Landlock (" + support.landlock_why + ")"));
        } else {
          CHECK(Contains(
              gap, "this kernel offers Landlock ABI " + std::to_string(support.landlock_abi)));
        }
      }
    }
  }
}

config::Entry LocalEntry(std::string name, LocalServer server) {
  config::Entry e;
  e.name = std::move(name);
  e.local = std::move(server);
  e.names_command = true;
  return e;
}

TEST_CASE("an entry that requires what cannot be enforced is refused with the gaps", "[confine]") {
  config::Config config;
  config.entries.push_back(LocalEntry("need", Confined(ConfineNetwork::kPorts)));
  LocalServer lax = Confined(ConfineNetwork::kPorts);
  lax.confine_required = false;
  config.entries.push_back(LocalEntry("lax", lax));
  config::Entry remote;
  remote.name = "remote";
  remote.remote = config::RemoteServer{};
  remote.remote->url_redacted = "https://h/mcp";
  config.entries.push_back(remote);
  LocalServer plain;
  plain.command = "node";
  config.entries.push_back(LocalEntry("plain", plain));
  LocalServer both = Confined(ConfineNetwork::kPorts);
  both.limits.processes = 8;
  config.entries.push_back(LocalEntry("both", both));

  const ConfineSupport support = Linux(3);
  const std::vector<std::string> gaps = ConfineGaps(*config.entries[0].local, support, kRoot);
  REQUIRE(gaps.size() == 1);
  RefuseUnconfinable(config, support, kRoot);

  CHECK_FALSE(config.entries[0].accepted());
  CHECK(config.entries[0].refusal ==
        gaps[0] + " (\"confine_required\": false runs it with what can be enforced)");
  CHECK(config.entries[0].names_command);

  REQUIRE(config.entries[1].accepted());
  CHECK(*config.entries[1].local == lax);
  CHECK(config.entries[1].refusal.empty());

  REQUIRE(config.entries[2].remote.has_value());
  CHECK(config.entries[2].remote->url_redacted == "https://h/mcp");
  CHECK(config.entries[2].refusal.empty());

  REQUIRE(config.entries[3].accepted());
  CHECK(*config.entries[3].local == plain);

  // Two gaps, both in the reason.
  CHECK_FALSE(config.entries[4].accepted());
  CHECK_THAT(config.entries[4].refusal, Catch::StartsWith("confine.network: "));
  CHECK_THAT(config.entries[4].refusal, Catch::Contains("; limits.processes: "));
  CHECK_THAT(config.entries[4].refusal,
             Catch::EndsWith("(\"confine_required\": false runs it with what can be enforced)"));

  // Where everything is enforced nothing is refused.
  config::Config fine;
  fine.entries.push_back(LocalEntry("need", Confined(ConfineNetwork::kPorts)));
  RefuseUnconfinable(fine, Linux(7), kUser);
  CHECK(fine.entries[0].accepted());
}

TEST_CASE("a port list's caveats name each endpoint, and UDP", "[confine]") {
  const std::vector<std::string> caveats = ConfineCaveats(Confined(ConfineNetwork::kPorts));
  REQUIRE(caveats.size() == 3);
  CHECK(Contains(caveats[0], "api.example.com"));
  CHECK(Contains(caveats[0], "443"));
  CHECK(caveats[0] ==
        "network: api.example.com:443 is enforced as TCP port 443 on any host (Landlock rules "
        "name ports, not hosts)");
  CHECK(Contains(caveats[1], "[::1]"));
  CHECK(Contains(caveats[1], "TCP port 8443"));
  CHECK(Contains(caveats[2], "UDP"));

  CHECK(ConfineCaveats(Confined(ConfineNetwork::kNone)).empty());
  CHECK(ConfineCaveats(Confined(ConfineNetwork::kAll)).empty());
  CHECK(ConfineCaveats(LocalServer{}).empty());
}

// A temporary directory, removed with what is in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/mcpgw-confine-test-XXXXXX";
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool IsPrivateDir(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return false;
  return S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

TEST_CASE("npx runs from ~/.npm, or the cache its environment names, made 0700", "[confine]") {
  TempDir home;
  REQUIRE_FALSE(home.path().empty());
  CHECK(PackageCaches("/x/bin/npx", {}, home.path()) ==
        std::vector<std::string>{home.path() + "/.npm"});
  CHECK(IsPrivateDir(home.path() + "/.npm"));
  // Already there: the same answer.
  CHECK(PackageCaches("/x/bin/npm", {"PATH=/usr/bin"}, home.path()) ==
        std::vector<std::string>{home.path() + "/.npm"});

  TempDir other;
  REQUIRE_FALSE(other.path().empty());
  const std::string cache = other.path() + "/c/d";
  CHECK(PackageCaches("/x/bin/npx", {"npm_config_cache=" + cache}, other.path()) ==
        std::vector<std::string>{cache});
  CHECK(IsPrivateDir(cache));
  CHECK(IsPrivateDir(other.path() + "/c"));
  CHECK_FALSE(Exists(other.path() + "/.npm"));
  const std::string upper = other.path() + "/upper";
  CHECK(PackageCaches("npx", {"NPM_CONFIG_CACHE=" + upper}, other.path()) ==
        std::vector<std::string>{upper});
  CHECK(IsPrivateDir(upper));
  // The name must be the whole of the variable's.
  CHECK(PackageCaches("npx", {"npm_config_cache_x=/elsewhere"}, other.path()) ==
        std::vector<std::string>{other.path() + "/.npm"});
}

TEST_CASE("uvx runs from uv's cache and data directories", "[confine]") {
  TempDir home;
  REQUIRE_FALSE(home.path().empty());
  const std::string h = home.path();
  CHECK(PackageCaches("/usr/local/bin/uvx", {}, h) ==
        std::vector<std::string>{h + "/.cache/uv", h + "/.local/share/uv"});
  CHECK(IsPrivateDir(h + "/.cache/uv"));
  CHECK(IsPrivateDir(h + "/.local/share/uv"));

  CHECK(PackageCaches("uv", {"XDG_CACHE_HOME=" + h + "/xc", "XDG_DATA_HOME=" + h + "/xd"}, h) ==
        std::vector<std::string>{h + "/xc/uv", h + "/xd/uv"});
  CHECK(IsPrivateDir(h + "/xc/uv"));
  CHECK(IsPrivateDir(h + "/xd/uv"));

  // UV_CACHE_DIR wins over XDG_CACHE_HOME.
  CHECK(PackageCaches("uvx", {"XDG_CACHE_HOME=" + h + "/xc", "UV_CACHE_DIR=" + h + "/uvc"}, h) ==
        std::vector<std::string>{h + "/uvc", h + "/.local/share/uv"});
  CHECK(IsPrivateDir(h + "/uvc"));
}

TEST_CASE("other commands have no package caches", "[confine]") {
  TempDir home;
  REQUIRE_FALSE(home.path().empty());
  for (const char* command : {"/usr/bin/node", "node", "/x/bin/python3", "/x/npx/node", "npxx"}) {
    INFO(command);
    CHECK(PackageCaches(command, {}, home.path()).empty());
  }
  CHECK(std::filesystem::is_empty(home.path()));
}

TEST_CASE("the kernel's support is described for status and doctor", "[confine]") {
  CHECK(DescribeConfineSupport(Linux(0)) == "none: no Landlock (not built into this kernel)");
  CHECK(DescribeConfineSupport(Linux(3)) == "Landlock ABI 3 (files)");
  CHECK(DescribeConfineSupport(Linux(3, false)) == "Landlock ABI 3 (files); no seccomp filters");
  CHECK(DescribeConfineSupport(Linux(4)) == "Landlock ABI 4 (files, TCP ports)");
  CHECK(DescribeConfineSupport(Linux(7)) ==
        "Landlock ABI 7 (files, TCP ports, signal and socket scopes)");
  CHECK(DescribeConfineSupport(MacOS()) ==
        "none: Landlock is Linux's; local servers cannot be confined");
}

TEST_CASE("a failure to confine names the rule's path", "[confine]") {
  ConfinePlan plan;
  plan.rules.push_back(ConfineRule{"/srv/data", 0, true});
  plan.rules.push_back(ConfineRule{"/usr", 0, false});
  const std::string noent = std::strerror(ENOENT);
  const std::string acces = std::strerror(EACCES);
  CHECK(DescribeConfineFailure(plan, kConfineOpen, 0, ENOENT) ==
        "could not be confined: /srv/data: " + noent);
  CHECK(DescribeConfineFailure(plan, kConfineRule, 1, EACCES) ==
        "could not be confined: the Landlock rule for /usr: " + acces);
  // No rule at that index: no path.
  CHECK(DescribeConfineFailure(plan, kConfineOpen, 2, ENOENT) == "could not be confined: " + noent);
  CHECK(DescribeConfineFailure(plan, kConfineOpen, -1, ENOENT) ==
        "could not be confined: " + noent);
  CHECK(DescribeConfineFailure(plan, kConfineLimit, -1, EPERM) ==
        "could not set its limits: " + std::string(std::strerror(EPERM)));
  for (int step : std::vector<int>{kConfineRuleset, kConfineNoNewPrivs, kConfineFilter,
                                   kConfineRestrict, 99}) {
    INFO(step);
    CHECK_THAT(DescribeConfineFailure(plan, step, -1, EPERM),
               Catch::StartsWith("could not be confined: "));
  }
}

}  // namespace
}  // namespace mcpgw
