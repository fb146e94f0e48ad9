// `mcpgw hosts add|remove` (docs/SETUP.md): mcpgw registered in a host's own file as the
// stdio server `{"command": "<absolute path of mcpgw>", "args": ["stdio"]}` named "mcpgw" —
// in the host's own form (Claude Code's and VS Code's "type": "stdio"; Codex's
// [mcp_servers.mcpgw] table) — and taken out again, each a minimal edit (json_edit.h,
// toml_edit.h). An entry is mcpgw's when its command is a program named mcpgw and its first
// argument is "stdio", whatever its name. Pure: text in, text out.
#pragma once

#include <string>
#include <vector>

#include "client/setup/host_servers.h"

namespace mcpgw::setup {

inline constexpr const char* kEntryName = "mcpgw";

// The host entries that run mcpgw (found by ReadHostServers).
std::vector<const FoundServer*> Registrations(const HostRead& read);

struct HostEdit {
  enum class Result { kChanged, kUnchanged, kRefused };
  Result result = Result::kRefused;
  std::string text;     // kChanged: the new text
  std::string message;  // kUnchanged: why nothing is needed; kRefused: why not (no values)
};

// Registers `mcpgw_path` in the user file `read` (whose text may be missing: a new file).
HostEdit AddRegistration(const HostRead& read, const std::string& mcpgw_path);

// Takes every registration of mcpgw out of the file.
HostEdit RemoveRegistration(const HostRead& read);

// Takes the named entries out of a file (`mcpgw import --move`): `parent`/`name` as
// FoundServer has them.
HostEdit RemoveEntries(
    const HostRead& read,
    const std::vector<std::pair<std::vector<std::string>, std::string>>& entries);

}  // namespace mcpgw::setup
