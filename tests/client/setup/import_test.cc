// `mcpgw import` on a HOME holding all seven hosts' files (client/setup/import_run.h,
// docs/SETUP.md): what the plan says, what mcp.json gets, that the hosts' files are left
// byte for byte (or, with --move, lose exactly the imported entries), and bad input.
#include <sys/stat.h>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "client/setup/file_io.h"
#include "client/setup/import_run.h"
#include "tests/client/setup/setup_home.h"

namespace mcpgw::setup {
namespace {

using testing::kDayOneFiles;
using testing::TempHome;
using testing::WriteDayOneHome;

DaemonProbe NoDaemon() {
  DaemonProbe probe;
  probe.status = []() -> base::Result<std::string> {
    return base::Status(base::ErrorKind::kUnavailable, "connection refused");
  };
  probe.sleep = [](double) {};
  return probe;
}

std::map<std::string, std::string> Snapshot(const TempHome& home) {
  std::map<std::string, std::string> files;
  for (const char* f : kDayOneFiles) files[f] = home.Read(f);
  return files;
}

rapidjson::Document ReadJson(const TempHome& home, const char* rel) {
  rapidjson::Document doc;
  const std::string text = home.Read(rel);
  doc.Parse(text.c_str(), text.size());
  return doc;
}

std::string Header(const rapidjson::Document& doc, const char* server, const char* name) {
  const auto& s = doc["mcpServers"][server];
  if (!s.HasMember("headers") || !s["headers"].HasMember(name)) return "<none>";
  return s["headers"][name].GetString();
}

}  // namespace

TEST_CASE("import: --dry-run prints the plan and changes no file", "[setup][import]") {
  TempHome home;
  WriteDayOneHome(home);
  const auto before = Snapshot(home);
  std::ostringstream out;
  ImportOptions options;
  options.dry_run = true;
  CHECK(RunImport(options, home.Env(), NoDaemon(), out) == 0);
  const std::string plan = out.str();
  CHECK(plan.find("+ github  https://api.githubcopilot.com/mcp/ (1 header)") != std::string::npos);
  CHECK(plan.find("also cursor ~/.cursor/mcp.json") != std::string::npos);
  CHECK(plan.find("+ docs-cursor  http://127.0.0.1:9999/mcp") != std::string::npos);
  CHECK(plan.find("renamed: \"docs\" names another server") != std::string::npos);
  // Local servers are added too: the command, the number of arguments, the folder.
  CHECK(plan.find("+ fs  npx (2 args)\n      from claude-code ~/.claude.json\n") !=
        std::string::npos);
  CHECK(plan.find("+ fetch  uvx (1 arg)\n      from claude-desktop") != std::string::npos);
  CHECK(plan.find("+ local  node (1 arg)\n      from codex ~/.codex/config.toml") !=
        std::string::npos);
  CHECK(plan.find("local server (command)") == std::string::npos);
  CHECK(plan.find("- old  claude-code ~/proj/.mcp.json: switched off in claude-code "
                  "(disabledMcpjsonServers in ~/.claude.json)") != std::string::npos);
  CHECK(plan.find("- quiet  claude-code ~/.claude.json (project ~/proj): switched off in "
                  "claude-code (the project's disabledMcpServers)") != std::string::npos);
  CHECK(plan.find("- legacy  gemini ~/.gemini/settings.json: switched off in gemini") !=
        std::string::npos);
  CHECK(plan.find("- resting  gemini ~/.gemini/settings.json: switched off in gemini") !=
        std::string::npos);
  CHECK(plan.find("- off  windsurf ~/.codeium/windsurf/mcp_config.json: switched off in windsurf "
                  "(\"disabled\": true)") != std::string::npos);
  CHECK(plan.find("- off  windsurf") != std::string::npos);
  CHECK(
      plan.find("- paused  codex ~/.codex/config.toml: switched off in codex (enabled = false)") !=
      std::string::npos);
  CHECK(plan.find("VS Code asks for ${input:linear-key} (\"Linear API key\")") !=
        std::string::npos);
  CHECK(plan.find("Dry run: no file was changed.") != std::string::npos);
  // Header values are secrets: the plan counts them, never shows them.
  CHECK(plan.find("literal-client-id") == std::string::npos);
  CHECK(plan.find("literal-default") == std::string::npos);
  CHECK(plan.find("Bearer") == std::string::npos);
  CHECK(Snapshot(home) == before);
  CHECK_FALSE(home.Exists(".config/mcpgw/mcp.json"));
}

TEST_CASE("import: the servers reach mcp.json once each, with ${env:} forms", "[setup][import]") {
  TempHome home;
  WriteDayOneHome(home);
  const auto before = Snapshot(home);
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), NoDaemon(), out) == 0);
  CHECK(out.str().find("mcpgwd is not running (connection refused); start it: systemctl --user "
                       "enable --now mcpgwd.socket") != std::string::npos);
  // Every host found is named with the command that registers mcpgw in it.
  for (Host host : AllHosts()) {
    CHECK(out.str().find("  mcpgw hosts add " + std::string(HostName(host)) + "\n") !=
          std::string::npos);
  }
  const rapidjson::Document doc = ReadJson(home, ".config/mcpgw/mcp.json");
  REQUIRE(doc.IsObject());
  std::vector<std::string> names;
  for (const auto& m : doc["mcpServers"].GetObject()) names.emplace_back(m.name.GetString());
  CHECK(names == std::vector<std::string>{"fetch", "github", "fs", "docs", "sentry", "docs-cursor",
                                          "linear", "notion", "weather", "figma", "local"});
  CHECK(Header(doc, "github", "Authorization") == "Bearer ${env:GITHUB_TOKEN}");
  CHECK(Header(doc, "sentry", "X-Key") == "${env:SENTRY_KEY}");
  CHECK(Header(doc, "linear", "Authorization") == "Bearer ${env:LINEAR_KEY}");
  CHECK(Header(doc, "weather", "X-Token") == "${env:WEATHER_TOKEN}");
  CHECK(Header(doc, "figma", "Authorization") == "Bearer ${env:FIGMA_TOKEN}");
  CHECK(Header(doc, "figma", "X-Team") == "${env:FIGMA_TEAM}");
  CHECK(Header(doc, "figma", "X-Client") == "literal-client-id");
  CHECK(std::string(doc["mcpServers"]["notion"]["url"].GetString()) ==
        "https://mcp.notion.com/mcp");
  // A local entry as the host wrote it, without its "type" and its empty env.
  rapidjson::Document fs;
  fs.Parse(R"({"command": "npx", "args": ["-y", "server-filesystem"]})");
  CHECK(doc["mcpServers"]["fs"] == fs);
  CHECK(home.Read(".config/mcpgw/mcp.json").find("literal-default") == std::string::npos);
  struct stat st = {};
  REQUIRE(stat(home.At(".config/mcpgw/mcp.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // Without --move every host file is as it was, to the byte.
  CHECK(Snapshot(home) == before);

  // Again: everything is there already, and mcp.json is not rewritten.
  const std::string written = home.Read(".config/mcpgw/mcp.json");
  std::ostringstream again;
  CHECK(RunImport({}, home.Env(), NoDaemon(), again) == 0);
  CHECK(again.str().find("Nothing new to add") != std::string::npos);
  CHECK(again.str().find("= github") != std::string::npos);
  CHECK(home.Read(".config/mcpgw/mcp.json") == written);
  CHECK(home.Count(".config/mcpgw", "mcpgw-backup") == 0);
}

TEST_CASE("import: --from reads only the hosts named", "[setup][import]") {
  TempHome home;
  WriteDayOneHome(home);
  ImportOptions options;
  options.from = {Host::kCodex, Host::kWindsurf};
  std::ostringstream out;
  CHECK(RunImport(options, home.Env(), NoDaemon(), out) == 0);
  const rapidjson::Document doc = ReadJson(home, ".config/mcpgw/mcp.json");
  CHECK(doc["mcpServers"].MemberCount() == 3);
  CHECK(doc["mcpServers"].HasMember("figma"));
  CHECK(doc["mcpServers"].HasMember("notion"));
  CHECK(doc["mcpServers"].HasMember("local"));
}

TEST_CASE("import: --move takes exactly the imported entries out, after a backup",
          "[setup][import]") {
  TempHome home;
  WriteDayOneHome(home);
  const std::string cursor_before = home.Read(".cursor/mcp.json");
  ImportOptions options;
  options.move = true;
  std::ostringstream out;
  CHECK(RunImport(options, home.Env(), NoDaemon(), out) == 0);
  CHECK(home.Read(".cursor/mcp.json") == "{\n  \"mcpServers\": {\n  }\n}\n");
  CHECK(home.Count(".cursor", "mcp.json.mcpgw-backup-") == 1);
  CHECK(home.Read(".codex/config.toml") ==
        "model = \"o3\"\n\n# my servers\n[mcp_servers.paused]\n"
        "url = \"https://paused.example/mcp\"\nenabled = false\n");
  // Local servers move like remote ones, so each runs once, in the daemon; the switched-off
  // servers stay with their hosts; comments stay too.
  const std::string claude = home.Read(".claude.json");
  CHECK(claude.find("\"fs\"") == std::string::npos);
  CHECK(claude.find("\"github\"") == std::string::npos);
  CHECK(claude.find("\"docs\"") == std::string::npos);
  CHECK(claude.find("\"numStartups\": 3") != std::string::npos);
  CHECK(home.Read("proj/.mcp.json").find("\"old\"") != std::string::npos);
  CHECK(home.Read("proj/.mcp.json").find("sentry") == std::string::npos);
  CHECK(home.Read(".config/Code/User/mcp.json").rfind("// VS Code's user MCP servers\n", 0) == 0);
  CHECK(home.Read(".codeium/windsurf/mcp_config.json").find("\"off\"") != std::string::npos);
  CHECK(home.Read(".config/Claude/claude_desktop_config.json") == "{\"mcpServers\": {}}\n");
  CHECK(out.str().find("removed 1 entry from ~/.config/Claude/claude_desktop_config.json") !=
        std::string::npos);
}

TEST_CASE("import: a host file that does not parse is named by line and never rewritten",
          "[setup][import]") {
  TempHome home;
  WriteDayOneHome(home);
  const std::string broken =
      "{\n  \"mcpServers\": {\n    \"x\": {\"url\": \"http://x\"},,\n  }\n}\n";
  home.Write(".cursor/mcp.json", broken);
  home.Write(".codex/config.toml", "[mcp_servers.figma\nurl = 1\n");
  ImportOptions options;
  options.move = true;
  std::ostringstream out;
  CHECK(RunImport(options, home.Env(), NoDaemon(), out) == 1);
  CHECK(out.str().find(home.At(".cursor/mcp.json") + ":3:") != std::string::npos);
  CHECK(out.str().find(home.At(".codex/config.toml") + ":1:") != std::string::npos);
  CHECK(home.Read(".cursor/mcp.json") == broken);
  CHECK(home.Count(".cursor", "backup") == 0);
  // The other hosts are imported all the same.
  CHECK(ReadJson(home, ".config/mcpgw/mcp.json")["mcpServers"].HasMember("notion"));
}

TEST_CASE("import: a read-only host file is left alone by --move", "[setup][import]") {
  TempHome home;
  WriteDayOneHome(home);
  const std::string before = home.Read(".cursor/mcp.json");
  chmod(home.At(".cursor/mcp.json").c_str(), 0444);
  ImportOptions options;
  options.move = true;
  std::ostringstream out;
  CHECK(RunImport(options, home.Env(), NoDaemon(), out) == 1);
  CHECK(out.str().find(home.At(".cursor/mcp.json") + " is read-only; left alone") !=
        std::string::npos);
  CHECK(home.Read(".cursor/mcp.json") == before);
}

TEST_CASE("import: mcp.json that does not parse stops the import", "[setup][import]") {
  TempHome home;
  WriteDayOneHome(home);
  home.Write(".config/mcpgw/mcp.json", "{\"mcpServers\": {");
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), NoDaemon(), out) == 1);
  CHECK(out.str().find("invalid JSON") != std::string::npos);
  CHECK(home.Read(".config/mcpgw/mcp.json") == "{\"mcpServers\": {");
}

TEST_CASE("import: says the running daemon picked mcp.json up", "[setup][import]") {
  TempHome home;
  home.Write(".codeium/windsurf/mcp_config.json",
             "{\"mcpServers\": {\"notion\": {\"serverUrl\": \"https://mcp.notion.com/mcp\"}}}");
  const std::string config = home.At(".config/mcpgw/mcp.json");
  home.Write(".config/mcpgw/mcp.json", "{\n  // mine\n  \"mcpServers\": {}\n}\n");
  int polls = 0;
  DaemonProbe probe = NoDaemon();
  probe.status = [&]() -> base::Result<std::string> {
    // The reload shows on the third poll.
    const bool reloaded = ++polls >= 3;
    return "{\"daemon\":{\"pid\":77,\"config\":\"" + config + "\"},\"servers\":[" +
           std::string(reloaded ? "{\"namespace\":\"notion\",\"status\":\"loading\"}" : "") + "]}";
  };
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), probe, out) == 0);
  CHECK(out.str().find("the running mcpgwd (pid 77) picked up mcp.json: notion loading") !=
        std::string::npos);
  CHECK(polls == 3);
  CHECK(home.Read(".config/mcpgw/mcp.json") ==
        "{\n  // mine\n  \"mcpServers\": {\n    \"notion\": {\n      \"url\": "
        "\"https://mcp.notion.com/mcp\"\n    }\n  }\n}\n");
  CHECK(home.Count(".config/mcpgw", "mcp.json.mcpgw-backup-") == 1);
}

TEST_CASE("import: a daemon whose file watch did not fire is asked to reload", "[setup][import]") {
  TempHome home;
  home.Write(".codeium/windsurf/mcp_config.json",
             "{\"mcpServers\": {\"notion\": {\"serverUrl\": \"https://mcp.notion.com/mcp\"}}}");
  const std::string config = home.At(".config/mcpgw/mcp.json");
  home.Write(".config/mcpgw/mcp.json", "{}");
  long signalled = 0;
  DaemonProbe probe = NoDaemon();
  probe.status = [&]() -> base::Result<std::string> {
    return "{\"daemon\":{\"pid\":77,\"config\":\"" + config + "\"},\"servers\":[" +
           std::string(signalled ? "{\"namespace\":\"notion\",\"status\":\"ready\"}" : "") + "]}";
  };
  probe.reload = [&](long pid) {
    signalled = pid;
    return true;
  };
  std::ostringstream out;
  CHECK(RunImport({}, home.Env(), probe, out) == 0);
  CHECK(signalled == 77);
  CHECK(out.str().find("the running mcpgwd (pid 77) reloaded (SIGHUP) mcp.json: notion ready") !=
        std::string::npos);
}

TEST_CASE("file io: a file that changed since it was read is not clobbered", "[setup][import]") {
  TempHome home;
  const std::string path = home.Write("f.json", "{}");
  const base::Result<FileText> read = ReadText(path);
  REQUIRE(read.ok());
  home.Write("f.json", "{\"theirs\": 1}");
  const base::Result<std::string> written = ReplaceText(*read, "{\"mine\": 1}", "stamp");
  CHECK_FALSE(written.ok());
  CHECK(written.message().find("changed while mcpgw was editing it") != std::string::npos);
  CHECK(home.Read("f.json") == "{\"theirs\": 1}");
  CHECK_FALSE(home.Exists("f.json.mcpgw-backup-stamp"));
}

}  // namespace mcpgw::setup
