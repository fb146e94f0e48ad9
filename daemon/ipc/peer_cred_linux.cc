// Peer credentials on Linux: SO_PEERCRED (see peer_cred.h).
#include <sys/socket.h>

#include "daemon/ipc/peer_cred.h"

namespace mcpgw {

std::optional<Peer> ReadPeerCredentials(int fd) {
  struct ucred cred {};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred)) {
    return std::nullopt;
  }
  return Peer{cred.pid, cred.uid};
}

}  // namespace mcpgw
