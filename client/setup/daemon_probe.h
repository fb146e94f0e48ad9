// What `mcpgw import` and `mcpgw doctor` ask the running daemon, handed in by the CLI so
// the setup code needs no socket: its status object (proto/PROTOCOL.md, `status`) at the
// default socket and at the socket a host with a stripped environment would use, and a way
// to wait between polls. Tests pass scripted answers.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"

namespace mcpgw::setup {

struct DaemonProbe {
  // The status JSON from the daemon the CLI talks to, or why it cannot be reached.
  std::function<base::Result<std::string>()> status;
  // The same through the socket mcpgw would find without XDG_RUNTIME_DIR and
  // MCPGW_SOCKET (what `mcpgw stdio` started by a host finds); `socket` gets its path.
  std::function<base::Result<std::string>(std::string* socket)> stripped_status;
  std::function<void(double seconds)> sleep;
  // Asks the daemon `pid` to reload (SIGHUP), for when its watch of mcp.json has not fired;
  // false when the signal could not be sent. May be empty.
  std::function<bool(long pid)> reload;
};

}  // namespace mcpgw::setup
