// The rules for configured HTTP headers (BEHAVIOR.md §2): names are RFC 9110 tokens
// (base::IsHttpToken),
// values carry no CR, LF or NUL, and the headers the MCP client sets itself
// cannot be configured. Used by the entry parser; pure functions.
#pragma once

#include <string_view>

namespace mcpgw::config {

// Accept, Mcp-Session-Id, Last-Event-Id, MCP-Protocol-Version, and the
// headers of revision 2026-07-28 (Mcp-Method, Mcp-Name, Mcp-Param-*), any case.
bool IsClientOwnedHeader(std::string_view name);

// True when `value` contains CR, LF or NUL (header injection or truncation).
bool HasForbiddenHeaderByte(std::string_view value);

}  // namespace mcpgw::config
