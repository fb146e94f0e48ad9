// Minimal edits of Codex's config.toml (docs/SETUP.md): a server is the table
// [mcp_servers.NAME] with its sub-tables ([mcp_servers.NAME.env], ...). Adding one appends
// its table at the end of the file; removing one cuts exactly its lines (keys written as
// `NAME = {...}` or `NAME.url = ...` under [mcp_servers] included). Every other line —
// comments, blank lines, order, quoting — stays as it was. Every edit is checked by parsing
// the result with toml++ and comparing it with the intended document; one that would change
// anything else is refused. Pure.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace mcpgw::setup {

// Ok when `text` is valid TOML, else an error `PATH:LINE:COLUMN: invalid TOML: ...`.
base::Status CheckToml(std::string_view text, std::string_view path);

// A TOML basic string holding `text` ("...", with escapes).
std::string TomlString(std::string_view text);

// The edits return the new text, or why the edit cannot be made.
//
// Sets [mcp_servers.NAME] to the given keys (each value already TOML text, e.g.
// TomlString(...) or ["stdio"]), replacing the table if it is there.
base::Result<std::string> SetServerTable(
    std::string_view text, std::string_view name,
    const std::vector<std::pair<std::string, std::string>>& keys);

// Removes the server NAME (its table, sub-tables and dotted keys); the text is returned as it
// is when there is none.
base::Result<std::string> RemoveServerTable(std::string_view text, std::string_view name);

}  // namespace mcpgw::setup
