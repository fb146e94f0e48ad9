// `mcpgw hosts` (client/setup/hosts_run.h, docs/SETUP.md): mcpgw registered in each host's
// own form, taken out again leaving the file as it was to the byte, and the files it must
// not touch left alone.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "client/setup/hosts_run.h"
#include "tests/client/setup/setup_home.h"

namespace mcpgw::setup {
namespace {

using testing::TempHome;

const char* const kMcpgw = "/opt/mcpgw/bin/mcpgw";

struct HostCase {
  Host host;
  const char* file;
  const char* registered;  // a piece of the file after `add`
};

const HostCase kCases[] = {
    {Host::kClaudeDesktop, ".config/Claude/claude_desktop_config.json",
     "\"mcp-server-fetch\"]}, \"mcpgw\": {\"command\": \"/opt/mcpgw/bin/mcpgw\", \"args\": "
     "[\"stdio\"]}}}\n"},
    {Host::kClaudeCode, ".claude.json",
     "    \"mcpgw\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/mcpgw/bin/mcpgw\",\n"
     "      \"args\": [\"stdio\"],\n      \"env\": {}\n    }\n"},
    {Host::kCursor, ".cursor/mcp.json", "\"command\": \"/opt/mcpgw/bin/mcpgw\""},
    {Host::kVsCode, ".config/Code/User/mcp.json",
     "    \"mcpgw\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/mcpgw/bin/mcpgw\",\n"
     "      \"args\": [\"stdio\"]\n    },\n  },\n}\n"},
    {Host::kWindsurf, ".codeium/windsurf/mcp_config.json", "\"args\": [\"stdio\"]"},
    {Host::kGemini, ".gemini/settings.json", "\"command\": \"/opt/mcpgw/bin/mcpgw\""},
    {Host::kCodex, ".codex/config.toml",
     "enabled = false\n\n[mcp_servers.mcpgw]\ncommand = \"/opt/mcpgw/bin/mcpgw\"\nargs = "
     "[\"stdio\"]\n"},
};

}  // namespace

TEST_CASE("hosts: add registers mcpgw in each host's form, remove restores the file",
          "[setup][hosts]") {
  for (const HostCase& c : kCases) {
    DYNAMIC_SECTION(HostName(c.host)) {
      TempHome home;
      testing::WriteDayOneHome(home);
      const std::string before = home.Read(c.file);
      std::ostringstream out;
      CHECK(RunHostsAdd(c.host, kMcpgw, home.Env(), out) == 0);
      CHECK(out.str().find("registered /opt/mcpgw/bin/mcpgw stdio in") != std::string::npos);
      const std::string after = home.Read(c.file);
      CHECK(after.find(c.registered) != std::string::npos);
      CHECK(after.size() > before.size());
      // Everything that was there is still there, in order: the edit only inserted.
      size_t at = 0;
      bool kept = true;
      for (char ch : before) {
        at = after.find(ch, at);
        kept = kept && at != std::string::npos;
        if (!kept) break;
        ++at;
      }
      CHECK(kept);

      std::ostringstream again;
      CHECK(RunHostsAdd(c.host, kMcpgw, home.Env(), again) == 0);
      CHECK(again.str().find("nothing to do") != std::string::npos);
      CHECK(home.Read(c.file) == after);

      std::ostringstream list;
      RunHostsList(home.Env(), list);
      std::string row(HostName(c.host));
      row.resize(16, ' ');
      CHECK(list.str().find(row + "~/" + c.file + ": runs mcpgw") != std::string::npos);
      CHECK(list.str().find("runs mcpgw as mcpgw (/opt/mcpgw/bin/mcpgw stdio)") !=
            std::string::npos);

      std::ostringstream removed;
      CHECK(RunHostsRemove(c.host, home.Env(), removed) == 0);
      CHECK(home.Read(c.file) == before);
    }
  }
}

TEST_CASE("hosts: a host that is not installed gets no file, an installed one gets one",
          "[setup][hosts]") {
  TempHome home;
  std::ostringstream out;
  CHECK(RunHostsAdd(Host::kCursor, kMcpgw, home.Env(), out) == 1);
  CHECK(out.str().find("not installed here (no ~/.cursor)") != std::string::npos);
  CHECK_FALSE(home.Exists(".cursor"));

  home.Folder(".codex");
  std::ostringstream made;
  CHECK(RunHostsAdd(Host::kCodex, kMcpgw, home.Env(), made) == 0);
  CHECK(home.Read(".codex/config.toml") ==
        "[mcp_servers.mcpgw]\ncommand = \"/opt/mcpgw/bin/mcpgw\"\nargs = [\"stdio\"]\n");
  home.Folder(".gemini");
  CHECK(RunHostsAdd(Host::kGemini, kMcpgw, home.Env(), made) == 0);
  CHECK(home.Read(".gemini/settings.json") ==
        "{\n  \"mcpServers\": {\n    \"mcpgw\": {\n      \"command\": \"/opt/mcpgw/bin/mcpgw\",\n"
        "      \"args\": [\"stdio\"]\n    }\n  }\n}\n");
}

TEST_CASE("hosts: a moved mcpgw is updated in place, a foreign \"mcpgw\" entry is refused",
          "[setup][hosts]") {
  TempHome home;
  home.Write(
      ".cursor/mcp.json",
      "{\"mcpServers\": {\"mcpgw\": {\"command\": \"/usr/bin/mcpgw\", \"args\": [\"stdio\"]}}}");
  std::ostringstream out;
  CHECK(RunHostsAdd(Host::kCursor, kMcpgw, home.Env(), out) == 0);
  CHECK(home.Read(".cursor/mcp.json") ==
        "{\"mcpServers\": {\"mcpgw\": {\"command\": \"/opt/mcpgw/bin/mcpgw\", \"args\": "
        "[\"stdio\"]}}}");

  // Registered by the user under a name of their own: nothing to add.
  const std::string own =
      "{\"mcpServers\": {\"gateway\": {\"command\": \"/opt/mcpgw/bin/mcpgw\", \"args\": "
      "[\"stdio\"]}}}";
  home.Write(".cursor/mcp.json", own);
  std::ostringstream named;
  CHECK(RunHostsAdd(Host::kCursor, kMcpgw, home.Env(), named) == 0);
  CHECK(named.str().find("already runs /opt/mcpgw/bin/mcpgw stdio as \"gateway\"") !=
        std::string::npos);
  CHECK(home.Read(".cursor/mcp.json") == own);

  const std::string foreign = "{\"mcpServers\": {\"mcpgw\": {\"url\": \"https://elsewhere/mcp\"}}}";
  home.Write(".cursor/mcp.json", foreign);
  std::ostringstream refused;
  CHECK(RunHostsAdd(Host::kCursor, kMcpgw, home.Env(), refused) == 1);
  CHECK(refused.str().find("an entry named \"mcpgw\" is there and runs something else") !=
        std::string::npos);
  CHECK(home.Read(".cursor/mcp.json") == foreign);
}

TEST_CASE("hosts: files that do not parse, or are read-only, are left alone", "[setup][hosts]") {
  TempHome home;
  const std::string broken = "{\n  // unfinished\n  \"mcpServers\": {\n";
  home.Write(".gemini/settings.json", broken);
  std::ostringstream out;
  CHECK(RunHostsAdd(Host::kGemini, kMcpgw, home.Env(), out) == 1);
  CHECK(out.str().find(home.At(".gemini/settings.json") + ":4:") != std::string::npos);
  CHECK(out.str().find("left alone") != std::string::npos);
  CHECK(home.Read(".gemini/settings.json") == broken);

  home.Write(".cursor/mcp.json", "{}");
  chmod(home.At(".cursor/mcp.json").c_str(), 0444);
  std::ostringstream ro;
  CHECK(RunHostsAdd(Host::kCursor, kMcpgw, home.Env(), ro) == 1);
  CHECK(ro.str().find("read-only; left alone") != std::string::npos);
  CHECK(home.Read(".cursor/mcp.json") == "{}");
  CHECK(home.Count(".cursor", "backup") == 0);
}

TEST_CASE("hosts: paths follow CLAUDE_CONFIG_DIR, CODEX_HOME and macOS", "[setup][hosts]") {
  TempHome home;
  home.vars()["CLAUDE_CONFIG_DIR"] = home.At("cc");
  home.vars()["CODEX_HOME"] = home.At("cx");
  SetupEnv env = home.Env();
  CHECK(UserFile(Host::kClaudeCode, env).path == home.At("cc/.claude.json"));
  CHECK(UserFile(Host::kCodex, env).path == home.At("cx/config.toml"));
  env.platform = Platform::kMacos;
  CHECK(UserFile(Host::kVsCode, env).path ==
        home.At("Library/Application Support/Code/User/mcp.json"));
  CHECK(UserFile(Host::kClaudeDesktop, env).path ==
        home.At("Library/Application Support/Claude/claude_desktop_config.json"));
  CHECK(UserFile(Host::kCursor, env).path == home.At(".cursor/mcp.json"));
  env.platform = Platform::kLinux;
  home.vars()["XDG_CONFIG_HOME"] = home.At("xdg");
  CHECK(UserFile(Host::kVsCode, home.Env()).path == home.At("xdg/Code/User/mcp.json"));
  CHECK(UserFile(Host::kWindsurf, env).path == home.At(".codeium/windsurf/mcp_config.json"));
  CHECK(UserFile(Host::kGemini, env).path == home.At(".gemini/settings.json"));
}

}  // namespace mcpgw::setup
