// Who is on the other end of an accepted Unix socket connection: the kernel's
// word for the peer's uid (and pid where the platform tells). IpcServer asks
// on every accept; one implementation per platform (peer_cred_linux.cc uses
// SO_PEERCRED, peer_cred_macos.cc getpeereid).
#pragma once

#include <optional>

#include "daemon/ipc/ipc_server.h"

namespace mcpgw {

// nullopt when the kernel cannot say (the connection must then be refused).
std::optional<Peer> ReadPeerCredentials(int fd);

}  // namespace mcpgw
