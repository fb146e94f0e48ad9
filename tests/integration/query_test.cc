// get_dynamic_tools' query through every way a host reaches it — the mcpgw
// command, libmcpgw and `mcpgw stdio` — against a real mcpgwd and the
// official SDK's server upstream; and every form without query, byte for
// byte as recorded before query existed.
#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "integration/stdio_process.h"
#include "mcpgw.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

std::string Golden(const std::string& name) {
  return ReadFile(std::string(MCPGW_SOURCE_DIR) + "/tests/integration/golden/" + name);
}

// Two servers with the same tools, and one disabled: the recorded set-up.
std::string Config(const Upstream& up, const Upstream* other) {
  std::string servers = R"("up":{"url":")" + up.Url() +
                        R"("},"off":{"url":"http://127.0.0.1:1/mcp","disabled":true})";
  if (other != nullptr) servers += R"(,"other":{"url":")" + other->Url() + R"("})";
  return "{\"mcpServers\":{" + servers + "}}";
}

std::vector<std::string> Ranked(const std::string& answer) {
  const rapidjson::Document doc = ParseJson(answer);
  std::vector<std::string> out;
  if (!doc.IsObject() || !doc.HasMember("tools")) return out;
  for (const auto& t : doc["tools"].GetArray()) {
    out.push_back(std::string(t["namespace"].GetString()) + "/" + t["name"].GetString());
  }
  return out;
}

std::string ToolCallLine(int id, const std::string& arguments) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"get_dynamic_tools","arguments":)" + arguments +
         "}}";
}

// The text of a tools/call answer from the bridge, and whether it is an error.
std::pair<std::string, bool> ToolText(const std::string& line) {
  const rapidjson::Document doc = ParseJson(line);
  REQUIRE(doc.IsObject());
  REQUIRE(doc.HasMember("result"));
  return {doc["result"]["content"][0]["text"].GetString(), doc["result"]["isError"].GetBool()};
}

using Names = std::vector<std::string>;

TEST_CASE("query: the same ranked answer from the CLI, libmcpgw and mcpgw stdio",
          "[daemon][query]") {
  TempDir dir;
  Upstream up(dir, "up", 7);
  Upstream other(dir, "other", 7);
  REQUIRE_UPSTREAM(up, other);
  Daemon d(dir, Config(up, &other));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));
  REQUIRE(WaitReady(d, "other"));

  // The CLI prints the daemon's answer as it is when its output is not a terminal.
  const auto cli = d.Cli({"tools", "--query", "sum of two numbers", "--limit", "3"});
  REQUIRE(cli.code == 0);
  // Both servers' add come first (equal scores: namespace order), each
  // complete enough to call at once.
  const Names ranked = Ranked(cli.out);
  REQUIRE(ranked.size() >= 2);
  CHECK(ranked[0] == "other/add");
  CHECK(ranked[1] == "up/add");
  CHECK(ranked.size() <= 3);
  CHECK(cli.out.find(R"("inputSchema":{"type":"object","properties":{"a":{"type":"number"})") !=
        std::string::npos);

  std::unique_ptr<mcpgw_client, decltype(&mcpgw_close)> client(mcpgw_open(d.socket().c_str()),
                                                               &mcpgw_close);
  char* out = nullptr;
  REQUIRE(mcpgw_find_tools(client.get(), nullptr, "sum of two numbers", 3, nullptr, &out) ==
          MCPGW_OK);
  const std::string lib = out;
  mcpgw_free(out);
  CHECK(lib + "\n" == cli.out);

  StdioProcess bridge(d.socket());
  bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  REQUIRE(!bridge.ReadLine().empty());
  bridge.Write(ToolCallLine(1, R"({"query":"sum of two numbers","limit":3})"));
  const auto [text, is_error] = ToolText(bridge.ReadLine());
  CHECK_FALSE(is_error);
  CHECK(text == lib);

  // One server's tools only.
  CHECK(Ranked(d.Cli({"tools", "up", "--query", "sum of two numbers"}).out).front() == "up/add");
}

TEST_CASE("query: bad input is invalid_request from the CLI and through mcpgw stdio",
          "[daemon][query]") {
  TempDir dir;
  Upstream up(dir, "up", 7);
  REQUIRE_UPSTREAM(up);
  Daemon d(dir, Config(up, nullptr));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));

  const auto blank = d.Cli({"tools", "--query", "   "});
  CHECK(blank.code == 3);
  CHECK(blank.err.find("\"query\" is empty") != std::string::npos);
  CHECK(d.Cli({"tools", "up", "add", "--query", "add"}).code == 3);
  CHECK(d.Cli({"tools", "--query", "add", "--limit", "0"}).code == 2);  // a usage error
  CHECK(d.Cli({"tools", "--limit", "5"}).code == 2);
  const auto loading_elsewhere = d.Cli({"tools", "off", "--query", "add"});
  CHECK(loading_elsewhere.code == 4);  // not_ready: the server is disabled

  StdioProcess bridge(d.socket());
  bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  REQUIRE(!bridge.ReadLine().empty());
  int id = 1;
  for (const char* args :
       {R"({"query":" "})", R"({"query":"add","limit":51})", R"({"query":"add","limit":0})",
        R"({"query":"add","limit":2.5})", R"({"query":"add","namespace":"up","toolName":"add"})",
        R"({"query":7})"}) {
    INFO(args);
    bridge.Write(ToolCallLine(id++, args));
    const auto [text, is_error] = ToolText(bridge.ReadLine());
    CHECK(is_error);
    CHECK(text.rfind("invalid_request: ", 0) == 0);
  }
}

TEST_CASE("query follows a reload, and every form without it is as recorded", "[daemon][query]") {
  TempDir dir;
  Upstream up(dir, "up", 7);
  Upstream other(dir, "other", 7);
  REQUIRE_UPSTREAM(up, other);
  Daemon d(dir, Config(up, &other));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "up"));
  REQUIRE(WaitReady(d, "other"));
  CHECK(Ranked(d.Cli({"tools", "--query", "echo text"}).out).front() == "other/echo");

  // "other" leaves the configuration: it is gone from every answer.
  WriteFile(d.config(), Config(up, nullptr));
  d.process().Signal(SIGHUP);
  REQUIRE(WaitFor([&] { return Row(d, "other").status.empty(); }));
  const Names after = Ranked(d.Cli({"tools", "--query", "echo text", "--limit", "50"}).out);
  REQUIRE_FALSE(after.empty());
  CHECK(after.front() == "up/echo");
  for (const auto& name : after) CHECK(name.rfind("up/", 0) == 0);

  // The answers without query, byte for byte as mcpgwd gave them before
  // query existed, for the same servers.
  CHECK(d.Cli({"tools"}).out == Golden("tools_all.json"));
  CHECK(d.Cli({"tools", "up"}).out == Golden("tools_up.json"));
  CHECK(d.Cli({"tools", "up", "add"}).out == Golden("tools_add.json"));
  CHECK(d.Cli({"tools", "off"}).out == Golden("tools_off.json"));
}

}  // namespace
