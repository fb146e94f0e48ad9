// Minimal edits of Codex's config.toml (client/setup/toml_edit.h): [mcp_servers.NAME] and
// its sub-tables are added or cut, every other line kept; invalid TOML is named by line.
#include <catch2/catch.hpp>

#include "client/setup/toml_edit.h"

namespace mcpgw::setup {

TEST_CASE("toml edit: a server table is appended and removed, the rest kept", "[setup][toml]") {
  const std::string before =
      "model = \"o3\"  # the model\n"
      "\n"
      "# servers\n"
      "[mcp_servers.figma]\n"
      "url = \"https://mcp.figma.com/mcp\"\n"
      "\n"
      "[mcp_servers.figma.env_http_headers]\n"
      "X-Team = \"FIGMA_TEAM\"\n"
      "\n"
      "# the next one is mine\n"
      "[profiles.fast]\n"
      "model = \"o4-mini\"\n";
  const base::Result<std::string> added = SetServerTable(
      before, "mcpgw", {{"command", TomlString("/usr/bin/mcpgw")}, {"args", "[\"stdio\"]"}});
  REQUIRE(added.ok());
  CHECK(*added ==
        before + "\n[mcp_servers.mcpgw]\ncommand = \"/usr/bin/mcpgw\"\nargs = [\"stdio\"]\n");
  const base::Result<std::string> back = RemoveServerTable(*added, "mcpgw");
  REQUIRE(back.ok());
  CHECK(*back == before);

  const base::Result<std::string> cut = RemoveServerTable(before, "figma");
  REQUIRE(cut.ok());
  CHECK(*cut ==
        "model = \"o3\"  # the model\n"
        "\n"
        "# servers\n"
        "# the next one is mine\n"
        "[profiles.fast]\n"
        "model = \"o4-mini\"\n");
}

TEST_CASE("toml edit: inline and dotted forms of a server are cut too", "[setup][toml]") {
  const std::string before =
      "[mcp_servers]\n"
      "a = { url = \"http://a\" }\n"
      "b.url = \"http://b\"\n"
      "b.enabled = false\n";
  CHECK(RemoveServerTable(before, "a").value_or(std::string()) ==
        "[mcp_servers]\nb.url = \"http://b\"\nb.enabled = false\n");
  CHECK(RemoveServerTable(before, "b").value_or(std::string()) ==
        "[mcp_servers]\na = { url = \"http://a\" }\n");
}

TEST_CASE("toml edit: a header-like line inside a multi-line string is not a table",
          "[setup][toml]") {
  const std::string before =
      "instructions = \"\"\"\n"
      "[mcp_servers.x]\n"
      "\"\"\"\n"
      "[mcp_servers.x]\n"
      "url = \"http://x\"\n";
  const base::Result<std::string> cut = RemoveServerTable(before, "x");
  REQUIRE(cut.ok());
  CHECK(*cut == "instructions = \"\"\"\n[mcp_servers.x]\n\"\"\"\n");
}

TEST_CASE("toml edit: invalid TOML is named with its line, and never edited", "[setup][toml]") {
  const std::string bad = "model = \"o3\"\n[mcp_servers.x\nurl = 1\n";
  const std::string error = CheckToml(bad, "/h/.codex/config.toml").message();
  CHECK(error.rfind("/h/.codex/config.toml:2:", 0) == 0);
  CHECK(error.find("invalid TOML") != std::string::npos);
  CHECK_FALSE(RemoveServerTable(bad, "x").ok());
  CHECK_FALSE(SetServerTable(bad, "mcpgw", {{"command", "\"x\""}}).ok());
}

TEST_CASE("toml edit: a name that is not a bare key is quoted", "[setup][toml]") {
  const base::Result<std::string> added =
      SetServerTable("", "my server", {{"url", TomlString("http://a\"b")}});
  REQUIRE(added.ok());
  CHECK(*added == "[mcp_servers.\"my server\"]\nurl = \"http://a\\\"b\"\n");
  CHECK(RemoveServerTable(*added, "my server").value_or(std::string()).empty());
}

}  // namespace mcpgw::setup
