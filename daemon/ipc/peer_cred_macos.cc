// Peer credentials on macOS: getpeereid for the uid, LOCAL_PEERPID for the
// pid (see peer_cred.h).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/ipc/peer_cred.h"

namespace mcpgw {

std::optional<Peer> ReadPeerCredentials(int fd) {
  uid_t uid = 0;
  gid_t gid = 0;
  if (getpeereid(fd, &uid, &gid) != 0) return std::nullopt;
  Peer peer;
  peer.uid = uid;
  pid_t pid = 0;
  socklen_t len = sizeof(pid);
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &len) == 0) peer.pid = pid;
  return peer;
}

}  // namespace mcpgw
