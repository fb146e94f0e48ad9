// mcpgwd as a user runs it: --check, start-up errors, the socket's modes,
// status and the two tools with servers that cannot connect, reload, and
// shutdown. No upstream server is needed here (see tests/interop/ for those).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "integration/harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

// A port on loopback that refuses connections: bind, don't listen, close.
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

std::string MixedConfig(int port) {
  return R"({"mcpServers":{
    "local": {"command": "some-server", "args": ["--x"]},
    "down": {"url": "http://127.0.0.1:)" +
         std::to_string(port) + R"(/mcp"},
    "legacy": {"url": "http://127.0.0.1:1/sse", "type": "sse"},
    "nokey": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${env:MCPGW_IT_UNSET_TOKEN}"}}
  }})";
}

rapidjson::Document Json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  return d;
}

const rapidjson::Value* Server(const rapidjson::Document& status, const std::string& name) {
  for (const auto& s : status["servers"].GetArray()) {
    if (name == s["namespace"].GetString()) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("mcpgwd --check reports each entry of a mixed file and exits 0", "[daemon]") {
  TempDir dir;
  WriteFile(dir / "mcp.json", MixedConfig(ClosedPort()));
  auto r = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--check"}, dir);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("local: accepted (local: some-server --x, 0 environment variables)") !=
        std::string::npos);
  CHECK(r.out.find("MCPGW_IT_UNSET_TOKEN") != std::string::npos);
  CHECK(r.out.find("accepted") != std::string::npos);
}

TEST_CASE("mcpgwd --check and start-up fail on invalid JSON, naming file, line and column",
          "[daemon]") {
  TempDir dir;
  WriteFile(dir / "mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {,}\n  }\n}\n");
  auto check = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--check"}, dir);
  CHECK(check.code != 0);
  CHECK((check.out + check.err).find(dir / "mcp.json") != std::string::npos);
  CHECK((check.out + check.err).find(":3:") != std::string::npos);

  auto start = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--socket", dir / "s.sock"},
                   dir, {}, std::chrono::seconds(10));
  CHECK(start.code != 0);
  CHECK(start.code != -1);  // exited by itself
  CHECK(start.err.find(dir / "mcp.json") != std::string::npos);
}

TEST_CASE("mcpgwd serves refused and unreachable servers with clear statuses", "[daemon]") {
  TempDir dir;
  Daemon d(dir, MixedConfig(ClosedPort()));
  REQUIRE(d.WaitListening());

  struct stat st;
  REQUIRE(stat(d.socket().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(stat((dir / "run").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);

  // The unreachable server ends its first attempt in error quickly.
  REQUIRE(WaitFor([&] {
    auto r = d.Cli({"status", "--json"});
    if (r.code != 0) return false;
    auto doc = Json(r.out);
    auto* down = Server(doc, "down");
    return down && std::string((*down)["status"].GetString()) == "error";
  }));
  auto r = d.Cli({"status", "--json"});
  auto doc = Json(r.out);
  REQUIRE(doc.IsObject());
  CHECK(std::string((*Server(doc, "down"))["reason"].GetString()) == "connection refused");
  // A local server whose command is nowhere on the PATH: an error naming it.
  CHECK(std::string((*Server(doc, "local"))["reason"].GetString())
            .rfind("the local server command some-server not found in /", 0) == 0);
  CHECK(std::string((*Server(doc, "local"))["transport"].GetString()) == "stdio");
  CHECK(std::string((*Server(doc, "legacy"))["status"].GetString()) == "error");
  CHECK(std::string(doc["daemon"]["config"].GetString()) == d.config());

  auto tools = d.Cli({"tools"});
  CHECK(tools.code == 0);
  auto listing = Json(tools.out);
  REQUIRE(listing.IsObject());
  std::vector<std::string> names;
  for (const auto& s : listing["servers"].GetArray()) names.push_back(s["namespace"].GetString());
  CHECK(names == std::vector<std::string>{"down", "legacy", "local", "nokey"});

  CHECK(d.Cli({"call", "local", "x"}).code == 4);             // not_ready
  CHECK(d.Cli({"call", "nowhere", "x"}).code == 3);           // invalid_request
  CHECK(d.Cli({"call", "down", "x", "not json"}).code == 2);  // misuse
  auto wait = d.Cli({"wait", "--timeout", "5"});
  CHECK(wait.code == 0);  // nothing is loading once the attempt failed

  d.process().Signal(SIGTERM);
  CHECK(d.process().Wait(std::chrono::seconds(5)) == 0);
}

TEST_CASE("mcpgw reports unavailable when no daemon listens", "[daemon]") {
  TempDir dir;
  auto r = Run({MCPGW_CLI_PATH, "--socket", dir / "none.sock", "status"}, dir);
  CHECK(r.code == 7);
  CHECK(!r.err.empty());
}

TEST_CASE("mcpgwd reloads on SIGHUP, a broken file keeps the old configuration", "[daemon]") {
  TempDir dir;
  Daemon d(dir, R"({"mcpServers":{"a":{"command":"x"}}})");
  REQUIRE(d.WaitListening());
  WriteFile(d.config(), R"({"mcpServers":{"a":{"command":"x"},"b":{"command":"y"}}})");
  d.process().Signal(SIGHUP);
  REQUIRE(WaitFor([&] {
    auto doc = Json(d.Cli({"status", "--json"}).out);
    return doc.IsObject() && Server(doc, "b") != nullptr;
  }));

  WriteFile(d.config(), R"({"mcpServers": )");
  d.process().Signal(SIGHUP);
  REQUIRE(WaitFor([&] {
    auto doc = Json(d.Cli({"status", "--json"}).out);
    return doc.IsObject() && doc["daemon"]["reload_error"].IsString();
  }));
  auto doc = Json(d.Cli({"status", "--json"}).out);
  CHECK(Server(doc, "a") != nullptr);
  CHECK(Server(doc, "b") != nullptr);
  CHECK(d.process().Alive());
}

TEST_CASE("mcpgwd refuses to start when another daemon owns the socket", "[daemon]") {
  TempDir dir;
  Daemon d(dir, R"({"mcpServers":{}})");
  REQUIRE(d.WaitListening());
  auto second = Run({MCPGW_MCPGWD_PATH, "--config", d.config(), "--socket", d.socket()}, dir, {},
                    std::chrono::seconds(10));
  CHECK(second.code == 1);
  CHECK(second.err.find("already") != std::string::npos);
  CHECK(d.process().Alive());
}
