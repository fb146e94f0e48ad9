// `mcpgw import` of local servers (command entries; docs/SETUP.md): each host's form read,
// command, args, env and cwd written to mcp.json as the host had them (variables in mcpgw's
// ${env:} form, literal values untouched), the same server in two hosts added once, mcpgw's
// own entry never imported, --move taking them out of the hosts' files, and no env value in
// anything import prints.
#include <sys/stat.h>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "client/setup/import_run.h"
#include "tests/client/setup/setup_fixture.h"

namespace mcpgw::setup {
namespace {

using testing::TempHome;

// Literal env values as a user keeps them in a host's file: API keys.
const char* const kSecrets[] = {"sk-desktop-secret-1", "sk-claude-secret-2", "gem-literal-secret-3",
                                "codex-literal-secret-4", "proj-secret-5"};

DaemonProbe NoDaemon() {
  DaemonProbe probe;
  probe.status = []() -> base::Result<std::string> {
    return base::Status(base::ErrorKind::kUnavailable, "connection refused");
  };
  probe.sleep = [](double) {};
  return probe;
}

// A HOME whose hosts hold local servers, each host in its own form.
void WriteLocalHome(const TempHome& home) {
  home.Write(".config/Claude/claude_desktop_config.json",
             R"({"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"],
                 "env": {"FETCH_KEY": "sk-desktop-secret-1"}}}})"
             "\n");
  home.Write(".claude.json",
             R"({
  "mcpServers": {
    "fs": {"type": "stdio", "command": "npx", "args": ["-y", "server-filesystem", "/data"],
           "env": {"API_KEY": "sk-claude-secret-2", "TOKEN": "${GH_TOKEN}"}},
    "gateway": {"type": "stdio", "command": "/opt/mcpgw/bin/mcpgw", "args": ["stdio"], "env": {}}
  },
  "projects": {")" +
                 home.At("proj") +
                 R"(": {"mcpServers": {}}}
}
)");
  home.Write("proj/.mcp.json",
             R"({"mcpServers": {"tool": {"command": "node", "args": ["tools/server.js"],
                 "env": {"PROJ_KEY": "proj-secret-5"}}}})"
             "\n");
  // The same fs as Claude Code's, in Cursor's variable form: one server.
  home.Write(".cursor/mcp.json",
             R"({"mcpServers": {
  "fs": {"command": "npx", "args": ["-y", "server-filesystem", "/data"],
         "env": {"TOKEN": "${env:GH_TOKEN}", "API_KEY": "sk-claude-secret-2"}},
  "memory": {"command": "npx", "args": ["-y", "server-memory"], "envFile": "/home/x/.env"}
}}
)");
  home.Write(".config/Code/User/mcp.json",
             R"(// VS Code
{
  "inputs": [{"type": "promptString", "id": "think-key", "password": true}],
  "servers": {
    "think": {"type": "stdio", "command": "uvx", "args": ["think"],
              "env": {"KEY": "${input:think-key}"}},
  },
}
)");
  // Another fetch, with other arguments: a clash of names, not the same server.
  home.Write(
      ".codeium/windsurf/mcp_config.json",
      R"({"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch", "--ignore-robots"]}}})"
      "\n");
  home.Write(".gemini/settings.json",
             R"({
  // Gemini CLI
  "mcpServers": {
    "weather": {"command": "python3", "args": ["-m", "weather"], "cwd": "/srv/weather",
                "env": {"W_KEY": "$WEATHER_KEY", "W_LITERAL": "gem-literal-secret-3"}}
  }
}
)");
  home.Write(".codex/config.toml",
             "model = \"o3\"\n"
             "\n"
             "[mcp_servers.search]\n"
             "command = \"search-mcp\"\n"
             "args = [\"--port\", \"0\"]\n"
             "env = { SEARCH_KEY = \"codex-literal-secret-4\" }\n"
             "env_vars = [\"HOME_TOKEN\"]\n"
             "cwd = \"/srv/search\"\n"
             "\n"
             "[mcp_servers.mcpgw]\n"
             "command = \"/opt/mcpgw/bin/mcpgw\"\n"
             "args = [\"stdio\"]\n");
}

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  return doc;
}

bool HasNoSecret(const std::string& text) {
  for (const char* secret : kSecrets) {
    if (text.find(secret) != std::string::npos) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("import local: every host's local servers reach mcp.json as the host had them",
          "[setup][import][local]") {
  TempHome home;
  WriteLocalHome(home);
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), NoDaemon(), out) == 0);
  const std::string text = out.str();
  const rapidjson::Document doc = ParseJson(home.Read(".config/mcpgw/mcp.json"));
  REQUIRE(doc.IsObject());
  const rapidjson::Document want = ParseJson(R"({"mcpServers": {
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"],
              "env": {"FETCH_KEY": "sk-desktop-secret-1"}},
    "fs": {"command": "npx", "args": ["-y", "server-filesystem", "/data"],
           "env": {"API_KEY": "sk-claude-secret-2", "TOKEN": "${env:GH_TOKEN}"}},
    "tool": {"command": "node", "args": ["tools/server.js"], "env": {"PROJ_KEY": "proj-secret-5"},
             "cwd": ")" + home.At("proj") + R"("},
    "memory": {"command": "npx", "args": ["-y", "server-memory"]},
    "think": {"command": "uvx", "args": ["think"], "env": {"KEY": "${env:THINK_KEY}"}},
    "fetch-windsurf": {"command": "uvx", "args": ["mcp-server-fetch", "--ignore-robots"]},
    "weather": {"command": "python3", "args": ["-m", "weather"],
                "env": {"W_KEY": "${env:WEATHER_KEY}", "W_LITERAL": "gem-literal-secret-3"},
                "cwd": "/srv/weather"},
    "search": {"command": "search-mcp", "args": ["--port", "0"],
               "env": {"SEARCH_KEY": "codex-literal-secret-4", "HOME_TOKEN": "${env:HOME_TOKEN}"},
               "cwd": "/srv/search"}
  }})");
  REQUIRE(want.IsObject());
  CHECK(doc == want);
  if (doc != want) WARN(home.Read(".config/mcpgw/mcp.json"));

  // The plan: the command, how many arguments, the names of the variables, the folder.
  CHECK(text.find("+ fs  npx (3 args; env API_KEY, TOKEN)\n      from claude-code ~/.claude.json; "
                  "also cursor ~/.cursor/mcp.json\n") != std::string::npos);
  CHECK(text.find("+ tool  node (1 arg; env PROJ_KEY) in ~/proj\n      from claude-code "
                  "~/proj/.mcp.json\n") != std::string::npos);
  CHECK(text.find("+ fetch-windsurf  uvx (2 args)\n      from windsurf "
                  "~/.codeium/windsurf/mcp_config.json as fetch\n      renamed: \"fetch\" names "
                  "another server\n") != std::string::npos);
  CHECK(text.find("+ search  search-mcp (2 args; env SEARCH_KEY, HOME_TOKEN) in /srv/search") !=
        std::string::npos);
  // mcpgw's own entries stay where they are: the hosts reach the gateway through them.
  CHECK(text.find("- gateway  claude-code ~/.claude.json: mcpgw's own entry") != std::string::npos);
  CHECK(text.find("- mcpgw  codex ~/.codex/config.toml: mcpgw's own entry") != std::string::npos);
  // What mcp.json cannot say is left for the user, by key.
  CHECK(text.find("! memory: envFile is not read by mcpgw") != std::string::npos);
  CHECK(text.find("! think: env.KEY: VS Code asks for ${input:think-key}") != std::string::npos);
  // The literal values are in mcp.json, and nowhere in what import printed.
  for (const char* secret : kSecrets) {
    CHECK(home.Read(".config/mcpgw/mcp.json").find(secret) != std::string::npos);
  }
  CHECK(HasNoSecret(text));
  // mcp.json is the daemon's private file, in a private folder.
  struct stat st = {};
  REQUIRE(stat(home.At(".config/mcpgw/mcp.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(stat(home.At(".config/mcpgw").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);

  // Again: every local server is there already, and nothing is written.
  const std::string written = home.Read(".config/mcpgw/mcp.json");
  std::ostringstream again;
  CHECK(RunImport({}, home.Env(), NoDaemon(), again) == 0);
  CHECK(again.str().find("Nothing new to add") != std::string::npos);
  CHECK(again.str().find("= weather  python3") != std::string::npos);
  CHECK(HasNoSecret(again.str()));
  CHECK(home.Read(".config/mcpgw/mcp.json") == written);
}

TEST_CASE("import local: --dry-run shows the plan without a value and writes nothing",
          "[setup][import][local]") {
  TempHome home;
  WriteLocalHome(home);
  ImportOptions options;
  options.dry_run = true;
  std::ostringstream out;
  CHECK(RunImport(options, home.Env(), NoDaemon(), out) == 0);
  CHECK(out.str().find("+ weather  python3 (2 args; env W_KEY, W_LITERAL) in /srv/weather") !=
        std::string::npos);
  CHECK(HasNoSecret(out.str()));
  CHECK_FALSE(home.Exists(".config/mcpgw/mcp.json"));
}

TEST_CASE("import local: --move takes the local entries out of every host's file",
          "[setup][import][local]") {
  TempHome home;
  WriteLocalHome(home);
  ImportOptions options;
  options.move = true;
  std::ostringstream out;
  CHECK(RunImport(options, home.Env(), NoDaemon(), out) == 0);
  CHECK(HasNoSecret(out.str()));
  CHECK(home.Read(".config/Claude/claude_desktop_config.json") == "{\"mcpServers\": {}}\n");
  CHECK(home.Read(".codeium/windsurf/mcp_config.json") == "{\"mcpServers\": {}}\n");
  CHECK(home.Read("proj/.mcp.json") == "{\"mcpServers\": {}}\n");
  // mcpgw's own entry stays: it is how Claude Code and Codex reach the servers now.
  const rapidjson::Document claude = ParseJson(home.Read(".claude.json"));
  REQUIRE(claude.IsObject());
  CHECK(claude["mcpServers"].MemberCount() == 1);
  CHECK(claude["mcpServers"].HasMember("gateway"));
  CHECK(home.Read(".codex/config.toml") ==
        "model = \"o3\"\n\n[mcp_servers.mcpgw]\ncommand = \"/opt/mcpgw/bin/mcpgw\"\n"
        "args = [\"stdio\"]\n");
  CHECK(home.Read(".gemini/settings.json").find("weather") == std::string::npos);
  CHECK(home.Read(".gemini/settings.json").rfind("{\n  // Gemini CLI\n", 0) == 0);
  CHECK(home.Read(".config/Code/User/mcp.json").find("\"think\":") == std::string::npos);
  CHECK(ParseJson(home.Read(".cursor/mcp.json"))["mcpServers"].MemberCount() == 0);
  // The backups keep what was taken out, values and all.
  CHECK(home.Count(".gemini", "settings.json.mcpgw-backup-") == 1);
  // A host that lost servers and does not run mcpgw yet is told so.
  CHECK(out.str().find("mcpgw hosts add gemini  (until then it has none of the servers moved)") !=
        std::string::npos);
  CHECK(out.str().find("mcpgw hosts add codex") == std::string::npos);
}

TEST_CASE("import local: an entry mcpgw cannot run is skipped, naming the key, not the value",
          "[setup][import][local]") {
  TempHome home;
  home.Write(".cursor/mcp.json", R"({"mcpServers": {
    "numbers": {"command": "srv", "env": {"PORT": 8080, "KEY": "cursor-secret-6"}},
    "nocmd": {"command": ""},
    "split": {"command": "srv", "args": "--flag cursor-secret-6"},
    "here": {"command": "srv", "cwd": "relative/dir", "env": {"KEY": "cursor-secret-6"}},
    "both": {"command": "srv", "url": "https://x.example/mcp"}
  }})");
  home.Write(".codex/config.toml",
             "[mcp_servers.badenv]\ncommand = \"srv\"\nenv = { KEY = 7 }\n"
             "[mcp_servers.badargs]\ncommand = \"srv\"\nargs = [\"a\", 1]\n");
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), NoDaemon(), out) == 0);
  const std::string text = out.str();
  CHECK(text.find("- numbers  cursor ~/.cursor/mcp.json: env.PORT is not a string") !=
        std::string::npos);
  CHECK(text.find("- nocmd  cursor ~/.cursor/mcp.json: \"command\" is empty") != std::string::npos);
  CHECK(text.find("- split  cursor ~/.cursor/mcp.json: \"args\" is not an array") !=
        std::string::npos);
  // mcpgwd needs an absolute folder, and a user's file has no project to start from.
  CHECK(text.find("- here  cursor ~/.cursor/mcp.json: mcpgw would refuse it: cwd") !=
        std::string::npos);
  CHECK(text.find("- both  cursor ~/.cursor/mcp.json: the entry has both \"url\" and "
                  "\"command\"") != std::string::npos);
  CHECK(text.find("- badenv  codex ~/.codex/config.toml: env.KEY is not a string") !=
        std::string::npos);
  CHECK(text.find("- badargs  codex ~/.codex/config.toml: args[1] is not a string") !=
        std::string::npos);
  CHECK(text.find("cursor-secret-6") == std::string::npos);
  CHECK(text.find("Nothing new to add") != std::string::npos);
}

TEST_CASE("import local: a server already in mcp.json is not added again",
          "[setup][import][local]") {
  TempHome home;
  home.Write(".codeium/windsurf/mcp_config.json",
             R"({"mcpServers": {"mem": {"command": "npx", "args": ["-y", "server-memory"],
                 "env": {"B": "2", "A": "1"}}}})");
  home.Write(".config/mcpgw/mcp.json",
             R"({"mcpServers": {"memory": {"command": "npx", "args": ["-y", "server-memory"],
                 "env": {"A": "1", "B": "2"}}, "mem": {"url": "https://mem.example/mcp"}}})");
  chmod(home.At(".config/mcpgw/mcp.json").c_str(), 0600);
  const std::string before = home.Read(".config/mcpgw/mcp.json");
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), NoDaemon(), out) == 0);
  CHECK(out.str().find("Already in ~/.config/mcpgw/mcp.json:\n  = memory  npx (2 args; env B, A)\n"
                       "      from windsurf ~/.codeium/windsurf/mcp_config.json as mem\n") !=
        std::string::npos);
  CHECK(home.Read(".config/mcpgw/mcp.json") == before);
}

TEST_CASE("import local: an mcp.json open to other users is made private",
          "[setup][import][local]") {
  TempHome home;
  home.Write(".codeium/windsurf/mcp_config.json",
             R"({"mcpServers": {"mem": {"command": "npx", "env": {"K": "windsurf-secret-7"}}}})");
  home.Write(".config/mcpgw/mcp.json", "{\"mcpServers\": {}}\n");
  chmod(home.At(".config/mcpgw/mcp.json").c_str(), 0664);
  chmod(home.At(".config/mcpgw").c_str(), 0755);
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), NoDaemon(), out) == 0);
  CHECK(out.str().find("~/.config/mcpgw/mcp.json was open to other users (mode 0664); it is now "
                       "0600") != std::string::npos);
  CHECK(out.str().find("~/.config/mcpgw was open to other users (mode 0755); it is now 0700") !=
        std::string::npos);
  struct stat st = {};
  REQUIRE(stat(home.At(".config/mcpgw/mcp.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(stat(home.At(".config/mcpgw").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  // The backup holds what the file held: private too.
  REQUIRE(home.Count(".config/mcpgw", "mcp.json.mcpgw-backup-") == 1);
  for (const auto& e : std::filesystem::directory_iterator(home.At(".config/mcpgw"))) {
    if (e.path().filename().string().find("backup") == std::string::npos) continue;
    REQUIRE(stat(e.path().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
  }
  CHECK(out.str().find("windsurf-secret-7") == std::string::npos);
  CHECK(home.Read(".config/mcpgw/mcp.json").find("windsurf-secret-7") != std::string::npos);
}

}  // namespace mcpgw::setup
