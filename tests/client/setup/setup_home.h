// The "day one" HOME of docs/SETUP.md as a test fixture: all seven hosts' files, each in its
// own format, holding remote, local, switched-off, duplicate and clashing servers, with
// comments and trailing commas where the host allows them.
#pragma once

#include "tests/client/setup/setup_fixture.h"

namespace mcpgw::setup::testing {

inline void WriteDayOneHome(const TempHome& home) {
  home.Write(".claude.json",
             "{\n"
             "  \"numStartups\": 3,\n"
             "  \"mcpServers\": {\n"
             "    \"github\": {\n"
             "      \"type\": \"http\",\n"
             "      \"url\": \"https://api.githubcopilot.com/mcp/\",\n"
             "      \"headers\": {\n"
             "        \"Authorization\": \"Bearer ${GITHUB_TOKEN}\"\n"
             "      }\n"
             "    },\n"
             "    \"fs\": {\n"
             "      \"type\": \"stdio\",\n"
             "      \"command\": \"npx\",\n"
             "      \"args\": [\"-y\", \"server-filesystem\"],\n"
             "      \"env\": {}\n"
             "    }\n"
             "  },\n"
             "  \"projects\": {\n"
             "    \"" +
                 home.At("proj") +
                 "\": {\n"
                 "      \"mcpServers\": {\n"
                 "        \"docs\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:8931/mcp\"},\n"
                 "        \"quiet\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:8932/mcp\"}\n"
                 "      },\n"
                 "      \"disabledMcpServers\": [\"quiet\"],\n"
                 "      \"disabledMcpjsonServers\": [\"old\"]\n"
                 "    }\n"
                 "  }\n"
                 "}\n");
  home.Folder(".claude");
  home.Write("proj/.mcp.json",
             "{\"mcpServers\": {\"old\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:1/mcp\"},"
             " \"sentry\": {\"type\": \"http\", \"url\": \"https://mcp.sentry.dev/mcp\","
             " \"headers\": {\"X-Key\": \"${SENTRY_KEY:-literal-default}\"}}}}\n");
  home.Write(".cursor/mcp.json",
             "{\n"
             "  \"mcpServers\": {\n"
             "    \"github\": {\n"
             "      \"url\": \"https://api.githubcopilot.com/mcp/\",\n"
             "      \"headers\": {\"Authorization\": \"Bearer ${env:GITHUB_TOKEN}\"}\n"
             "    },\n"
             "    \"docs\": {\"url\": \"http://127.0.0.1:9999/mcp\"}\n"
             "  }\n"
             "}\n");
  home.Write(
      ".config/Code/User/mcp.json",
      "// VS Code's user MCP servers\n"
      "{\n"
      "  \"inputs\": [\n"
      "    {\"type\": \"promptString\", \"id\": \"linear-key\", \"description\": \"Linear API "
      "key\", \"password\": true},\n"
      "  ],\n"
      "  \"servers\": {\n"
      "    \"linear\": {\n"
      "      \"type\": \"http\",\n"
      "      \"url\": \"https://mcp.linear.app/mcp\",\n"
      "      \"headers\": {\"Authorization\": \"Bearer ${input:linear-key}\"}, // asks once\n"
      "    },\n"
      "  },\n"
      "}\n");
  home.Write(".codeium/windsurf/mcp_config.json",
             "{\"mcpServers\": {\"notion\": {\"serverUrl\": \"https://mcp.notion.com/mcp\"},"
             " \"off\": {\"serverUrl\": \"https://x.example/mcp\", \"disabled\": true}}}\n");
  home.Write(".gemini/settings.json",
             "{\n"
             "  // Gemini CLI settings\n"
             "  \"mcpServers\": {\n"
             "    \"weather\": {\"httpUrl\": \"https://weather.example/mcp\", \"headers\": "
             "{\"X-Token\": \"$WEATHER_TOKEN\"}},\n"
             "    \"legacy\": {\"httpUrl\": \"https://legacy.example/mcp\"},\n"
             "    \"resting\": {\"url\": \"https://resting.example/mcp\", \"type\": \"http\"}\n"
             "  },\n"
             "  \"mcp\": {\"excluded\": [\" Legacy\"]}\n"
             "}\n");
  home.Write(".gemini/mcp-server-enablement.json", "{\"resting\": {\"enabled\": false}}\n");
  home.Write(".codex/config.toml",
             "model = \"o3\"\n"
             "\n"
             "# my servers\n"
             "[mcp_servers.figma]\n"
             "url = \"https://mcp.figma.com/mcp\"\n"
             "bearer_token_env_var = \"FIGMA_TOKEN\"\n"
             "http_headers = { \"X-Client\" = \"literal-client-id\" }\n"
             "\n"
             "[mcp_servers.figma.env_http_headers]\n"
             "X-Team = \"FIGMA_TEAM\"\n"
             "\n"
             "[mcp_servers.local]\n"
             "command = \"node\"\n"
             "args = [\"server.js\"]\n"
             "\n"
             "[mcp_servers.paused]\n"
             "url = \"https://paused.example/mcp\"\n"
             "enabled = false\n");
  home.Write(
      ".config/Claude/claude_desktop_config.json",
      "{\"mcpServers\": {\"fetch\": {\"command\": \"uvx\", \"args\": [\"mcp-server-fetch\"]}}}\n");
}

// Every host file of the day-one HOME, by path under it.
inline const char* const kDayOneFiles[] = {
    ".claude.json",
    "proj/.mcp.json",
    ".cursor/mcp.json",
    ".config/Code/User/mcp.json",
    ".codeium/windsurf/mcp_config.json",
    ".gemini/settings.json",
    ".codex/config.toml",
    ".config/Claude/claude_desktop_config.json",
};

}  // namespace mcpgw::setup::testing
