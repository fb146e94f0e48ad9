// `mcpgw doctor` (client/setup/doctor.h): a ✓ line per check that holds, a ✗ line with the
// fix for one that does not, and exit 0 only when all hold.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "client/setup/doctor.h"
#include "client/setup/hosts_run.h"
#include "tests/client/setup/setup_fixture.h"

namespace mcpgw::setup {
namespace {

using testing::TempHome;

std::string Status(const std::string& config, const std::string& servers) {
  return "{\"daemon\":{\"version\":\"0.1.0\",\"pid\":42,\"config\":\"" + config +
         "\",\"settings\":null,\"socket\":\"/run/user/1000/mcpgw/mcpgw.sock\","
         "\"reload_error\":null,\"settings_error\":null},\"servers\":[" +
         servers + "]}";
}

DaemonProbe Answers(std::string own, std::optional<std::string> stripped) {
  DaemonProbe probe;
  probe.status = [own]() -> base::Result<std::string> { return own; };
  probe.stripped_status = [stripped](std::string* socket) -> base::Result<std::string> {
    *socket = "/run/user/1000/mcpgw/mcpgw.sock";
    if (!stripped) return base::Status(base::ErrorKind::kUnavailable, "no such file");
    return *stripped;
  };
  probe.sleep = [](double) {};
  return probe;
}

// No PATH at all: for machines whose mcp.json has no local server, where none is asked for.
CommandPaths NoPaths() {
  CommandPaths paths;
  paths.login_path = [] { return std::string(); };
  paths.service_path = [] { return std::string(); };
  return paths;
}

// A healthy machine: units enabled, a usable mcp.json, one host running an mcpgw that
// exists.
struct Healthy {
  TempHome home;
  std::string config;
  Healthy() {
    home.Write(".config/systemd/user/mcpgwd.socket", "[Socket]\n");
    home.Write(".config/systemd/user/sockets.target.wants/mcpgwd.socket", "[Socket]\n");
    config =
        home.Write(".config/mcpgw/mcp.json", "{\"mcpServers\": {\"a\": {\"url\": \"http://a\"}}}");
    const std::string mcpgw = home.Write("bin/mcpgw", "#!/bin/sh\n");
    chmod(mcpgw.c_str(), 0755);
    home.Folder(".cursor");
    std::ostringstream ignored;
    RunHostsAdd(Host::kCursor, mcpgw, home.Env(), ignored);
  }
};

const char* const kReady =
    R"({"namespace":"a","status":"ready","reason":"","tools":3,"oauth":null})";

}  // namespace

TEST_CASE("doctor: every check holds: exit 0", "[setup][doctor]") {
  Healthy h;
  const std::string status = Status(h.config, kReady);
  std::ostringstream out;
  CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status), NoPaths()), out) == 0);
  const std::string text = out.str();
  CHECK(text.find("✓ daemon: mcpgwd 0.1.0 (pid 42) answers on /run/user/1000/mcpgw/mcpgw.sock") !=
        std::string::npos);
  CHECK(text.find(
            "✓ hosts' socket: /run/user/1000/mcpgw/mcpgw.sock (no XDG_RUNTIME_DIR) reaches it") !=
        std::string::npos);
  CHECK(text.find("✓ service: ~/.config/systemd/user/mcpgwd.socket installed and enabled") !=
        std::string::npos);
  CHECK(text.find("✓ config: ~/.config/mcpgw/mcp.json is usable (1 servers)") != std::string::npos);
  CHECK(text.find("✓ server a: ready, 3 tools") != std::string::npos);
  CHECK(text.find("✓ logins: none pending") != std::string::npos);
  CHECK(text.find("✓ host cursor: runs " + h.home.At("bin/mcpgw") + " stdio") != std::string::npos);
  CHECK(text.find("✗") == std::string::npos);
}

TEST_CASE("doctor: each failing check says what to type, and the exit is 1", "[setup][doctor]") {
  Healthy h;
  SECTION("no daemon") {
    DaemonProbe probe = Answers("", std::nullopt);
    probe.status = []() -> base::Result<std::string> {
      return base::Status(base::ErrorKind::kUnavailable, "connection refused");
    };
    std::ostringstream out;
    CHECK(PrintChecks(RunChecks(h.home.Env(), probe, NoPaths()), out) == 1);
    CHECK(out.str().find("✗ daemon: not reachable (connection refused)\n    fix: systemctl --user "
                         "enable --now mcpgwd.socket") != std::string::npos);
  }
  SECTION("a host's stripped environment finds another socket") {
    std::ostringstream out;
    CHECK(PrintChecks(
              RunChecks(h.home.Env(), Answers(Status(h.config, kReady), std::nullopt), NoPaths()),
              out) == 1);
    CHECK(out.str().find("✗ hosts' socket: /run/user/1000/mcpgw/mcpgw.sock") != std::string::npos);
    CHECK(out.str().find("MCPGW_SOCKET") != std::string::npos);
  }
  SECTION("servers in error, a login pending, a host without mcpgw") {
    h.home.Write(".gemini/settings.json", "{}");
    const std::string servers =
        R"({"namespace":"b","status":"error","reason":"headers.X: environment variable K is not set","oauth":null},)"
        R"({"namespace":"n","status":"error","reason":"","last_error":"401","oauth":{"state":"login required"}})";
    const std::string status = Status(h.config, servers);
    std::ostringstream out;
    CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status), NoPaths()), out) == 1);
    const std::string text = out.str();
    CHECK(text.find("✗ server b: error: headers.X: environment variable K is not set\n    fix: set "
                    "the variable in ~/.config/mcpgw/environment") != std::string::npos);
    CHECK(text.find("✗ login n: login required\n    fix: mcpgw login n") != std::string::npos);
    CHECK(text.find("✗ host gemini: does not run mcpgw\n    fix: mcpgw hosts add gemini") !=
          std::string::npos);
  }
  SECTION("the service is installed but not enabled") {
    std::filesystem::remove(h.home.At(".config/systemd/user/sockets.target.wants/mcpgwd.socket"));
    const Check check = ServiceCheck(h.home.Env(), {});
    CHECK_FALSE(check.ok);
    CHECK(check.fix == "systemctl --user enable --now mcpgwd.socket");
  }
  SECTION("mcp.json does not parse") {
    h.home.Write(".config/mcpgw/mcp.json", "{\n  \"mcpServers\": [,\n}");
    const std::string status = Status(h.config, kReady);
    std::ostringstream out;
    CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status), NoPaths()), out) == 1);
    CHECK(out.str().find("✗ config: " + h.config + ":2:") != std::string::npos);
  }
}

}  // namespace mcpgw::setup

namespace mcpgw::setup {
namespace {

// A HOME whose mcp.json holds local servers, and a folder holding one executable, which a
// test hands to doctor as the login shell's PATH or the service's.
struct LocalHome {
  TempHome home;
  std::string config;
  std::string bin;
  explicit LocalHome(const std::string& servers) {
    bin = home.At("tools/bin");
    const std::string server = home.Write("tools/bin/fake-server", "#!/bin/sh\n");
    chmod(server.c_str(), 0755);
    home.Write("tools/bin/not-executable", "data\n");
    config = home.Write(".config/mcpgw/mcp.json", "{\"mcpServers\": {" + servers + "}}");
    chmod(config.c_str(), 0600);
  }
  CommandPaths Paths(std::string login, std::string service) const {
    CommandPaths paths;
    paths.login_path = [login] { return login; };
    paths.service_path = [service] { return service; };
    return paths;
  }
  std::string Print(const std::vector<Check>& checks) const {
    std::ostringstream out;
    PrintChecks(checks, out);
    return out.str();
  }
};

}  // namespace

TEST_CASE("doctor: a local server's command found in the login shell's PATH or the service's",
          "[setup][doctor][local]") {
  LocalHome h(R"("fake": {"command": "fake-server", "env": {"KEY": "doctor-secret-1"}})");
  const std::string found = "local server fake: command fake-server is " + h.bin + "/fake-server";
  SECTION("in the login shell's PATH") {
    const auto checks = LocalServerChecks(h.config, h.home.Env(), h.Paths(h.bin, "/usr/bin:/bin"));
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].ok);
    CHECK(checks[0].what == found);
  }
  SECTION("in the service's PATH only") {
    const auto checks =
        LocalServerChecks(h.config, h.home.Env(), h.Paths("", "/nonexistent:" + h.bin));
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].ok);
    CHECK(checks[0].what == found);
  }
  SECTION("by its path, as written") {
    LocalHome abs("\"abs\": {\"command\": \"" + h.bin + "/fake-server\"}");
    const auto checks = LocalServerChecks(abs.config, abs.home.Env(), abs.Paths("", ""));
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].ok);
  }
  SECTION("in the whole doctor, which exits 0 and prints no env value") {
    const std::string status = Status(h.config, "");
    std::ostringstream out;
    h.home.Write(".config/systemd/user/mcpgwd.socket", "[Socket]\n");
    h.home.Write(".config/systemd/user/sockets.target.wants/mcpgwd.socket", "[Socket]\n");
    CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status), h.Paths(h.bin, "")), out) ==
          0);
    CHECK(out.str().find("✓ " + found + "\n") != std::string::npos);
    CHECK(out.str().find("doctor-secret-1") == std::string::npos);
  }
}

TEST_CASE("doctor: a local server's command not found fails, naming the folders searched",
          "[setup][doctor][local]") {
  LocalHome h(R"("gone": {"command": "missing-server", "env": {"KEY": "doctor-secret-2"}},)"
              R"("off": {"command": "missing-too", "disabled": true})");
  SECTION("both PATHs known") {
    const auto checks =
        LocalServerChecks(h.config, h.home.Env(), h.Paths(h.bin + ":/opt/none", "/usr/bin:/bin"));
    REQUIRE(checks.size() == 1);  // the switched-off server is not checked
    CHECK_FALSE(checks[0].ok);
    CHECK(checks[0].what == "local server gone: command missing-server not found in " + h.bin +
                                ", /opt/none, /usr/bin and /bin (your login shell's PATH, then "
                                "the service's)");
    CHECK(
        checks[0].fix.find("write its absolute path as \"command\" in ~/.config/mcpgw/mcp.json") !=
        std::string::npos);
    CHECK(checks[0].fix.find("add its folder to PATH in your login shell's start-up file") !=
          std::string::npos);
    CHECK(checks[0].fix.find("systemctl --user restart mcpgwd") != std::string::npos);
  }
  SECTION("the login shell gave no PATH") {
    const auto checks = LocalServerChecks(h.config, h.home.Env(), h.Paths("", "/usr/bin:/bin"));
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].what ==
          "local server gone: command missing-server not found in /usr/bin and "
          "/bin (the service's PATH; your login shell's could not be read)");
  }
  SECTION("in the whole doctor: exit 1, no env value") {
    const std::string status = Status(h.config, "");
    std::ostringstream out;
    CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status), h.Paths("", "/usr/bin")),
                      out) == 1);
    CHECK(out.str().find("✗ local server gone: command missing-server not found in /usr/bin") !=
          std::string::npos);
    CHECK(out.str().find("doctor-secret-2") == std::string::npos);
  }
}

TEST_CASE("doctor: a local server's path, cwd and mcp.json's mode", "[setup][doctor][local]") {
  SECTION("a command by path that is not executable") {
    LocalHome h(R"("x": {"command": "./not-executable", "cwd": "${userHome}/tools/bin"})");
    const auto checks = LocalServerChecks(h.config, h.home.Env(), h.Paths("", ""));
    REQUIRE(checks.size() == 1);
    CHECK_FALSE(checks[0].ok);
    CHECK(checks[0].what ==
          "local server x: command ./not-executable is not an executable file (from its cwd)");
    CHECK(checks[0].fix.find("at an executable file, by its absolute path") != std::string::npos);
  }
  SECTION("relative to its cwd, found") {
    LocalHome h(R"("x": {"command": "./fake-server", "cwd": "${userHome}/tools/bin"})");
    const auto checks = LocalServerChecks(h.config, h.home.Env(), h.Paths("", ""));
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].ok);
  }
  SECTION("a cwd that is not a folder") {
    LocalHome h(R"("x": {"command": "fake-server", "cwd": "/nonexistent/folder"})");
    const auto checks = LocalServerChecks(h.config, h.home.Env(), h.Paths(h.bin, ""));
    REQUIRE(checks.size() == 1);
    CHECK_FALSE(checks[0].ok);
    CHECK(checks[0].what == "local server x: cwd /nonexistent/folder is not a folder");
  }
  SECTION("mcp.json others can write: mcpgwd runs none of its local servers") {
    LocalHome h(R"("x": {"command": "fake-server"})");
    chmod(h.config.c_str(), 0664);
    const auto checks = LocalServerChecks(h.config, h.home.Env(), h.Paths(h.bin, ""));
    REQUIRE(checks.size() == 2);
    CHECK_FALSE(checks[0].ok);
    CHECK(checks[0].what ==
          "config: ~/.config/mcpgw/mcp.json can be written by other users (mode "
          "0664), so mcpgwd runs none of its local servers");
    CHECK(checks[0].fix == "chmod 600 " + h.config);
  }
  SECTION("mcp.json others can read, holding env") {
    LocalHome h(R"("x": {"command": "fake-server", "env": {"K": "v"}})");
    chmod(h.config.c_str(), 0644);
    const auto checks = LocalServerChecks(h.config, h.home.Env(), h.Paths(h.bin, ""));
    REQUIRE(checks.size() == 2);
    CHECK_FALSE(checks[0].ok);
    CHECK(checks[0].what.find("can be read by other users (mode 0644)") != std::string::npos);
  }
  SECTION("no local server: no PATH is asked for") {
    LocalHome h(R"("r": {"url": "https://r.example/mcp"})");
    int asked = 0;
    CommandPaths paths;
    paths.login_path = [&] {
      ++asked;
      return std::string();
    };
    paths.service_path = paths.login_path;
    CHECK(LocalServerChecks(h.config, h.home.Env(), paths).empty());
    CHECK(asked == 0);
  }
}

TEST_CASE("doctor: the service's PATH from the environment file or systemctl's output",
          "[setup][doctor][local]") {
  CHECK(PathLine("HOME=/home/u\nPATH=/usr/local/bin:/usr/bin\nLANG=C\n") ==
        "/usr/local/bin:/usr/bin");
  CHECK(PathLine("PATH=$'/opt/my bin:/usr/bin'\n") == "/opt/my bin:/usr/bin");
  CHECK(PathLine("# mine\nPATH=\"/a:/b\"\r\n") == "/a:/b");
  CHECK(PathLine("HTTPS_PROXY=http://p:3128\n") == "");
  TempHome home;
  home.Write(".config/mcpgw/environment",
             "HTTPS_PROXY=http://p\nPATH=/home/u/.local/bin:/usr/bin\n");
  CHECK(SystemCommandPaths(home.Env()).service_path() == "/home/u/.local/bin:/usr/bin");
  SetupEnv mac = home.Env();
  mac.platform = Platform::kMacos;
  CHECK(SystemCommandPaths(mac).service_path() == "/usr/bin:/bin:/usr/sbin:/sbin");
}

}  // namespace mcpgw::setup

namespace mcpgw::setup {

TEST_CASE("doctor: a local server the daemon could not run says what to do",
          "[setup][doctor][local]") {
  TempHome home;
  const std::string config =
      home.Write(".config/mcpgw/mcp.json", "{\"mcpServers\": {\"r\": {\"url\": \"http://r\"}}}");
  auto row = [](const std::string& name, const std::string& reason) {
    return "{\"namespace\":\"" + name + "\",\"status\":\"error\",\"reason\":\"" + reason +
           "\",\"oauth\":null}";
  };
  const std::string servers =
      row("think", "the local server command uvx not found in /usr/bin and /bin") + "," +
      row("open", "local servers run only from an mcp.json no one else can write; " + config +
                      " has mode 0664 (chmod go-w " + config + ")") +
      "," + row("refused", "local MCP servers (command) are not supported yet");
  const std::string status = Status(config, servers);
  std::ostringstream out;
  CHECK(PrintChecks(RunChecks(home.Env(), Answers(status, status), NoPaths()), out) == 1);
  const std::string text = out.str();
  CHECK(text.find("✗ server think: error: the local server command uvx not found in /usr/bin and "
                  "/bin\n    fix: write the command's absolute path as \"command\" in mcp.json") !=
        std::string::npos);
  CHECK(text.find("    fix: chmod 600 " + config + ", then systemctl --user reload mcpgwd") !=
        std::string::npos);
  CHECK(text.find("✗ server refused: error: local MCP servers (command) are not supported yet\n"
                  "    fix: the settings refuse local servers (local_servers: \"refuse\")") !=
        std::string::npos);
}

}  // namespace mcpgw::setup
