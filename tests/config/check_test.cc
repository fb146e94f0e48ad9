// The --check report and exit code: what a user sees before starting the
// daemon on a new mcp.json.
#include <catch2/catch.hpp>

#include "config/check.h"
#include "config/config.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;

TEST_CASE("the report has a summary line and one line per entry", "[config][check]") {
  ParseResult r = Parse(
      R"({"mcpServers": {
        "github": {"url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${env:T}"}},
        "keyed": {"url": "https://h/mcp?key=${env:T}", "headers": {"A": "1", "B": "2"}},
        "local": {"command": "npx", "args": ["-y", "${env:T}"], "env": {"K": "v"}},
        "off": {"command": "npx", "disabled": true},
        "plain": {"url": "http://localhost:3000/mcp"}}})",
      "/home/u/.config/mcpgw/mcp.json", FakeEnv({{"T", "tok"}}));
  CHECK(FormatCheckReport(r, "/home/u/.config/mcpgw/mcp.json") ==
        "/home/u/.config/mcpgw/mcp.json: 5 servers: 4 accepted, 1 refused\n"
        "github: accepted (https://api.example.com/mcp, 1 header)\n"
        "keyed: accepted (https://h/mcp?key=<redacted>, 2 headers)\n"
        "local: accepted (local: npx -y <redacted>, 1 environment variable)\n"
        "off: refused: disabled in the configuration\n"
        "plain: accepted (http://localhost:3000/mcp, 0 headers)\n");
  CHECK(CheckExitCode(r) == 0);
}

TEST_CASE("odd names are printed JSON-escaped in quotes", "[config][check]") {
  ParseResult r = Parse(
      R"({"mcpServers": {"": {"url": "http://a"}, "a\nb": 1, "with space": {"url": "http://c"},
          "x:y": {"url": "http://d"}, "q\"": {"url": "http://e"}, "日本": {"url": "http://f"},
          "tab\t\u0001\u007f": {"url": "http://g"}}})",
      "mcp.json", FakeEnv());
  CHECK(FormatCheckReport(r, "mcp.json") ==
        "mcp.json: 7 servers: 6 accepted, 1 refused\n"
        "\"\": accepted (http://a, 0 headers)\n"
        "\"a\\nb\": refused: entry must be an object (got number)\n"
        "\"with space\": accepted (http://c, 0 headers)\n"
        "\"x:y\": accepted (http://d, 0 headers)\n"
        "\"q\\\"\": accepted (http://e, 0 headers)\n"
        "日本: accepted (http://f, 0 headers)\n"
        "\"tab\\t\\u0001\\u007f\": accepted (http://g, 0 headers)\n");
}

TEST_CASE("C1 control characters in names are escaped", "[config][check]") {
  ParseResult r = Parse(R"({"mcpServers": {"a\u009b2Jb": {"url": "http://a"}, "\u00a0x": 1}})",
                        "mcp.json", FakeEnv());
  CHECK(FormatCheckReport(r, "mcp.json") ==
        "mcp.json: 2 servers: 1 accepted, 1 refused\n"
        "\"a\\u009b2Jb\": accepted (http://a, 0 headers)\n"
        "\u00a0x: refused: entry must be an object (got number)\n");
}

TEST_CASE("a file with no servers reports zero and is usable", "[config][check]") {
  ParseResult r = Parse("{}", "mcp.json", FakeEnv());
  CHECK(FormatCheckReport(r, "mcp.json") == "mcp.json: 0 servers: 0 accepted, 0 refused\n");
  CHECK(CheckExitCode(r) == 0);
}

TEST_CASE("only refused entries is still usable", "[config][check]") {
  ParseResult r =
      Parse(R"({"mcpServers": {"one": {"command": "x", "args": 1}}})", "mcp.json", FakeEnv());
  CHECK(FormatCheckReport(r, "mcp.json") ==
        "mcp.json: 1 server: 0 accepted, 1 refused\n"
        "one: refused: \"args\" must be an array of strings (got number)\n");
  CHECK(CheckExitCode(r) == 0);
}

TEST_CASE("an unusable file reports the error and exits 1", "[config][check]") {
  ParseResult r = Parse("{\n,", "conf/mcp.json", FakeEnv());
  std::string report = FormatCheckReport(r, "conf/mcp.json");
  CHECK(report.rfind("conf/mcp.json: unusable configuration\nconf/mcp.json:2:1: invalid JSON: ",
                     0) == 0);
  CHECK(report.back() == '\n');
  CHECK(CheckExitCode(r) == 1);
  CHECK(CheckExitCode(Parse(R"({"mcpServers": []})", "m", FakeEnv())) == 1);
}

}  // namespace
}  // namespace mcpgw::config
