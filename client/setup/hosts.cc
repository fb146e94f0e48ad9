#include "client/setup/hosts.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdlib>

#include "config/config.h"

namespace mcpgw::setup {
namespace {

constexpr std::array kHosts = {Host::kClaudeDesktop, Host::kClaudeCode, Host::kCursor,
                               Host::kVsCode,        Host::kWindsurf,   Host::kGemini,
                               Host::kCodex};

std::string Join(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (path.empty() || path.back() != '/') path += '/';
  path += name;
  return path;
}

// Linux applications keep their settings under $XDG_CONFIG_HOME (~/.config), macOS ones
// under ~/Library/Application Support: Claude Desktop and VS Code do.
std::string AppSupport(const SetupEnv& env) {
  if (env.platform == Platform::kMacos) return Join(env.home, "Library/Application Support");
  return env.Env("XDG_CONFIG_HOME").value_or(Join(env.home, ".config"));
}

// Claude Code keeps ~/.claude.json in $CLAUDE_CONFIG_DIR when that is set.
std::string ClaudeJson(const SetupEnv& env) {
  if (auto dir = env.Env("CLAUDE_CONFIG_DIR")) return Join(*dir, ".claude.json");
  return Join(env.home, ".claude.json");
}

std::string GeminiHome(const SetupEnv& env) {
  return env.Env("GEMINI_CLI_HOME").value_or(env.home);
}

std::string CodexHome(const SetupEnv& env) {
  return env.Env("CODEX_HOME").value_or(Join(env.home, ".codex"));
}

}  // namespace

std::optional<std::string> SetupEnv::Env(std::string_view name) const {
  if (!get_env) return std::nullopt;
  std::optional<std::string> value = get_env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

SetupEnv SystemSetupEnv() {
  SetupEnv env;
  config::ParseEnv parse = config::SystemParseEnv();
  env.home = parse.home;
  env.get_env = parse.get_env;
  struct utsname name = {};
  if (uname(&name) == 0 && std::string_view(name.sysname) == "Darwin") {
    env.platform = Platform::kMacos;
  }
  std::array<char, 4096> cwd{};
  if (getcwd(cwd.data(), cwd.size()) != nullptr) env.cwd = cwd.data();
  return env;
}

std::span<const Host> AllHosts() { return kHosts; }

std::string_view HostName(Host host) {
  switch (host) {
    case Host::kClaudeDesktop:
      return "claude-desktop";
    case Host::kClaudeCode:
      return "claude-code";
    case Host::kCursor:
      return "cursor";
    case Host::kVsCode:
      return "vscode";
    case Host::kWindsurf:
      return "windsurf";
    case Host::kGemini:
      return "gemini";
    case Host::kCodex:
      return "codex";
  }
  return "?";
}

std::optional<Host> ParseHost(std::string_view name) {
  for (Host host : kHosts) {
    if (HostName(host) == name) return host;
  }
  return std::nullopt;
}

std::string HostNames() {
  std::string names;
  for (Host host : kHosts) {
    if (!names.empty()) names += ", ";
    names += HostName(host);
  }
  return names;
}

HostFile UserFile(Host host, const SetupEnv& env) {
  switch (host) {
    case Host::kClaudeDesktop:
      return {host, Join(AppSupport(env), "Claude/claude_desktop_config.json"), Format::kJson, ""};
    case Host::kClaudeCode:
      return {host, ClaudeJson(env), Format::kJson, ""};
    case Host::kCursor:
      return {host, Join(env.home, ".cursor/mcp.json"), Format::kJson, ""};
    case Host::kVsCode:
      return {host, Join(AppSupport(env), "Code/User/mcp.json"), Format::kJsonc, ""};
    case Host::kWindsurf:
      return {host, Join(env.home, ".codeium/windsurf/mcp_config.json"), Format::kJson, ""};
    case Host::kGemini:
      // Gemini CLI strips comments from its settings before parsing them.
      return {host, Join(GeminiHome(env), ".gemini/settings.json"), Format::kJsonc, ""};
    case Host::kCodex:
      return {host, Join(CodexHome(env), "config.toml"), Format::kToml, ""};
  }
  return {};
}

std::string HostFolder(Host host, const SetupEnv& env) {
  switch (host) {
    case Host::kClaudeDesktop:
      return Join(AppSupport(env), "Claude");
    case Host::kClaudeCode:
      // ~/.claude.json sits beside the folder, or inside $CLAUDE_CONFIG_DIR.
      return env.Env("CLAUDE_CONFIG_DIR").value_or(Join(env.home, ".claude"));
    case Host::kCursor:
      return Join(env.home, ".cursor");
    case Host::kVsCode:
      return Join(AppSupport(env), "Code/User");
    case Host::kWindsurf:
      return Join(env.home, ".codeium/windsurf");
    case Host::kGemini:
      return Join(GeminiHome(env), ".gemini");
    case Host::kCodex:
      return CodexHome(env);
  }
  return {};
}

std::vector<HostFile> ImportFiles(Host host, const SetupEnv& env,
                                  const std::vector<std::string>& claude_projects) {
  std::vector<HostFile> files = {UserFile(host, env)};
  auto project = [&](const std::string& dir, std::string_view name, Format format) {
    if (dir.empty()) return;
    const std::string path = Join(dir, name);
    for (const HostFile& f : files) {
      if (f.path == path) return;
    }
    files.push_back({host, path, format, dir});
  };
  switch (host) {
    case Host::kClaudeCode:
      project(env.cwd, ".mcp.json", Format::kJson);
      for (const std::string& dir : claude_projects) project(dir, ".mcp.json", Format::kJson);
      break;
    case Host::kCursor:
      project(env.cwd, ".cursor/mcp.json", Format::kJson);
      break;
    case Host::kVsCode:
      project(env.cwd, ".vscode/mcp.json", Format::kJsonc);
      break;
    case Host::kGemini:
      // A project's own settings, unless the working directory is the home directory
      // (then it is the user's file).
      if (env.cwd != GeminiHome(env)) project(env.cwd, ".gemini/settings.json", Format::kJsonc);
      break;
    case Host::kCodex:
      project(env.cwd, ".codex/config.toml", Format::kToml);
      break;
    case Host::kClaudeDesktop:
    case Host::kWindsurf:
      break;
  }
  return files;
}

std::string_view ServersKey(Host host) { return host == Host::kVsCode ? "servers" : "mcpServers"; }

std::string ShortPath(std::string_view path, const SetupEnv& env) {
  if (!env.home.empty() && path.size() > env.home.size() &&
      path.substr(0, env.home.size()) == env.home && path[env.home.size()] == '/') {
    return "~" + std::string(path.substr(env.home.size()));
  }
  return std::string(path);
}

}  // namespace mcpgw::setup
