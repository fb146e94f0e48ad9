// The MCP protocol revisions mcpgw speaks, written once for both of its MCP
// ends: the daemon's sessions, a client of remote servers (daemon/mcp), and
// `mcpgw stdio`, a server to AI hosts (client/stdio). They are MCP's
// constants, not the local protocol's; they live here because proto/ is the
// one library both ends link.
#pragma once

#include <array>
#include <string_view>

namespace mcpgw::proto {

// The legacy revision (an initialize handshake, sessions): what the daemon asks
// servers for, and what the bridge answers a host that asks for none it knows.
inline constexpr std::string_view kMcpLegacyVersion = "2025-11-25";

// Every legacy revision accepted, newest first: from a server in answer to
// initialize, from a host in its initialize.
inline constexpr std::array<std::string_view, 3> kMcpLegacyVersions = {kMcpLegacyVersion,
                                                                       "2025-06-18", "2025-03-26"};

// The stateless revision: every request carries its version and the client's
// identity in _meta; no initialize.
inline constexpr std::string_view kMcpModernVersion = "2026-07-28";

// The JSON-RPC error code of that revision for an unsupported version (its
// data lists the supported ones).
inline constexpr int kMcpUnsupportedVersionCode = -32022;

constexpr bool IsMcpLegacyVersion(std::string_view version) {
  for (std::string_view legacy : kMcpLegacyVersions) {
    if (legacy == version) return true;
  }
  return false;
}

}  // namespace mcpgw::proto
