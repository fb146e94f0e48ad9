// Every file of the chosen hosts read once, in the order `mcpgw import`, `mcpgw hosts` and
// `mcpgw doctor` report them: each host's user file first (Claude Code's ~/.claude.json
// names the projects whose .mcp.json are read next), then its project files. Reads only.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "client/setup/host_servers.h"

namespace mcpgw::setup {

struct HostScan {
  Host host = Host::kCursor;
  bool installed = false;       // its folder exists (HostFolder)
  std::vector<HostRead> reads;  // reads[0] is the user file
};

std::vector<HostScan> ScanHosts(std::span<const Host> hosts, const SetupEnv& env);

// mcpgw's own mcp.json: $XDG_CONFIG_HOME/mcpgw/mcp.json, else ~/.config/mcpgw/mcp.json
// (where mcpgwd reads it by default).
std::string DefaultConfigPath(const SetupEnv& env);

}  // namespace mcpgw::setup
