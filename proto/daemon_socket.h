// Connecting a client to mcpgwd's Unix socket (BEHAVIOR.md §7), shared by libmcpgw
// and the CLI's own requests: checks the path, connects, and refuses a socket
// served by another user (a planted socket must not receive this user's tool
// arguments). No state; the caller owns the descriptor it gets.
#pragma once

#include <string>

#include "base/status.h"

namespace mcpgw::proto {

// Connects to the daemon at `path`. Returns the connected socket (close-on-
// exec; non-blocking when `nonblocking`), or an error of kind kUnavailable
// whose message is for a person: why the daemon could not be reached and what
// to do about it.
base::Result<int> ConnectToDaemon(const std::string& path, bool nonblocking);

}  // namespace mcpgw::proto
