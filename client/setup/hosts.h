// The seven MCP hosts `mcpgw import`, `mcpgw hosts` and `mcpgw doctor` know (docs/SETUP.md),
// and where each keeps its servers on this machine: Linux paths, and the macOS ones where
// they differ, chosen from the platform at run time. Pure: the home directory, the platform,
// the working directory and the environment come in through SetupEnv, so tests lay out a
// temporary HOME and a fake environment.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::setup {

enum class Host { kClaudeDesktop, kClaudeCode, kCursor, kVsCode, kWindsurf, kGemini, kCodex };

enum class Platform { kLinux, kMacos };

// How a host file is written: JSON (a strict parser reads it back, so no comments may be
// added), JSONC (comments and trailing commas are the host's own), or Codex's TOML.
enum class Format { kJson, kJsonc, kToml };

// Everything the paths depend on.
struct SetupEnv {
  std::string home;
  Platform platform = Platform::kLinux;
  std::string cwd;  // the project whose own files (.mcp.json, .cursor/, .vscode/) are read
  std::function<std::optional<std::string>(std::string_view)> get_env;

  // An environment variable, nullopt when unset or empty.
  std::optional<std::string> Env(std::string_view name) const;
};

// The process's own: $HOME, uname, getcwd, getenv.
SetupEnv SystemSetupEnv();

// Every host, in the order commands list them.
std::span<const Host> AllHosts();
// "claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "gemini", "codex".
std::string_view HostName(Host host);
std::optional<Host> ParseHost(std::string_view name);
// "claude-desktop, claude-code, ..." for messages.
std::string HostNames();

// One file a host reads its servers from.
struct HostFile {
  Host host = Host::kCursor;
  std::string path;
  Format format = Format::kJson;
  // The project the file belongs to: its folder for a project's own file; empty for the
  // user's file. ~/.claude.json also keeps Claude Code's per-project servers, found by
  // the reader under "projects".
  std::string project;
};

// The user-wide file `mcpgw hosts add` registers mcpgw in.
HostFile UserFile(Host host, const SetupEnv& env);

// The folder whose presence says the host is installed (~/.cursor, ~/.codex, ...): `hosts
// add` creates the user file only inside it.
std::string HostFolder(Host host, const SetupEnv& env);

// Every file `mcpgw import` reads for the host: the user file, then the working
// directory's project file (Claude Code: also each project ~/.claude.json names, whose
// .mcp.json is given by `claude_projects`).
std::vector<HostFile> ImportFiles(Host host, const SetupEnv& env,
                                  const std::vector<std::string>& claude_projects);

// The key of the servers object in a JSON host file: "servers" for VS Code, else
// "mcpServers".
std::string_view ServersKey(Host host);

// `~/x` for a path under the home directory, else the path: for output.
std::string ShortPath(std::string_view path, const SetupEnv& env);

}  // namespace mcpgw::setup
