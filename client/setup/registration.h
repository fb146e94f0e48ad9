// `mcpgw hosts add|remove` (docs/SETUP.md): mcpgw registered in a host's own file as the
// stdio server `{"command": "<absolute path of mcpgw>", "args": ["stdio"]}` named "mcpgw" —
// in the host's own form (Claude Code's and VS Code's "type": "stdio"; Codex's
// [mcp_servers.mcpgw] table) — and taken out again, each a minimal edit (json_edit.h,
// toml_edit.h). An entry is mcpgw's when its command is a program named mcpgw and its first
// argument is "stdio", whatever its name. Pure: text in, text out.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "client/setup/host_servers.h"

namespace mcpgw::setup {

inline constexpr const char* kEntryName = "mcpgw";

// The host entries that run mcpgw (found by ReadHostServers).
std::vector<const FoundServer*> Registrations(const HostRead& read);

// An edit of a host file. Refused, it is an error saying why (no values).
struct HostEdit {
  bool changed = false;
  std::string text;     // changed: the new text
  std::string message;  // unchanged: why nothing is needed
};

// Registers `mcpgw_path` in the user file `read` (whose text may be missing: a new file).
base::Result<HostEdit> AddRegistration(const HostRead& read, const std::string& mcpgw_path);

// Takes every registration of mcpgw out of the file.
base::Result<HostEdit> RemoveRegistration(const HostRead& read);

// Takes the named entries out of a file (`mcpgw import --move`): `parent`/`name` as
// FoundServer has them.
base::Result<HostEdit> RemoveEntries(
    const HostRead& read,
    const std::vector<std::pair<std::vector<std::string>, std::string>>& entries);

}  // namespace mcpgw::setup
