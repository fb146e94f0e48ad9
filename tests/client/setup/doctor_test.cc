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
  CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status)), out) == 0);
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
    CHECK(PrintChecks(RunChecks(h.home.Env(), probe), out) == 1);
    CHECK(out.str().find("✗ daemon: not reachable (connection refused)\n    fix: systemctl --user "
                         "enable --now mcpgwd.socket") != std::string::npos);
  }
  SECTION("a host's stripped environment finds another socket") {
    std::ostringstream out;
    CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(Status(h.config, kReady), std::nullopt)),
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
    CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status)), out) == 1);
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
    CHECK(PrintChecks(RunChecks(h.home.Env(), Answers(status, status)), out) == 1);
    CHECK(out.str().find("✗ config: " + h.config + ":2:") != std::string::npos);
  }
}

}  // namespace mcpgw::setup
