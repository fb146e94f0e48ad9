// The report of `mcpgwd --config FILE --check`: what the daemon would make of
// an mcp.json, without connecting anywhere. The daemon's main parses the file,
// prints FormatCheckReport and exits with CheckExitCode. Format: docs/CONFIG.md.
#pragma once

#include <string>
#include <string_view>

#include "config/config.h"

namespace mcpgw::config {

// A first line with the path and counts, notes about the file, then one line
// per entry in file order, each followed by its notes:
//   <path>: 2 servers: 1 accepted, 1 refused
//   github: accepted (https://api.example.com/mcp, 1 header)
//     note: headers.Authorization: ${TOKEN} is not expanded; write ${env:TOKEN}
//   local: refused: local MCP servers (command) are not supported yet
// Names that are empty or hold control characters, spaces, '"', '\' or ':'
// are printed JSON-escaped in double quotes. An unusable file gives
//   <path>: unusable configuration
//   <the parse error>
// Every line ends with '\n'. Contains no secret: urls are url_redacted.
std::string FormatCheckReport(const ParseResult& result, std::string_view path);

// 0 when the configuration is usable (refused entries included), 1 when not.
int CheckExitCode(const ParseResult& result);

}  // namespace mcpgw::config
