#include "proto/daemon_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "base/platform.h"
#include "proto/socket_path.h"

namespace mcpgw::proto {
namespace {

// The daemon must run as this user (or root).
bool PeerIsTrusted(int fd, uid_t* peer_uid) {
#if defined(__linux__)
  struct ucred cred {};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  *peer_uid = cred.uid;
#else
  gid_t gid = 0;
  if (getpeereid(fd, peer_uid, &gid) != 0) return false;
#endif
  return *peer_uid == geteuid() || *peer_uid == 0;
}

base::Status Unreachable(std::string message) {
  return base::Status(base::ErrorKind::kUnavailable, std::move(message));
}

}  // namespace

base::Result<int> ConnectToDaemon(const std::string& path, bool nonblocking) {
  if (base::Status bad = CheckSocketPath(path); !bad.ok()) {
    return Unreachable("cannot reach mcpgwd: " + bad.message());
  }
  int fd = base::OpenSocket(AF_UNIX, SOCK_STREAM, 0, nonblocking);
  if (fd < 0) return Unreachable(std::string("cannot create a socket: ") + std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int err = errno;
    close(fd);
    if (err == ENOENT || err == ECONNREFUSED) {
      return Unreachable(
          "mcpgwd is not running (cannot connect to " + path + ": " + std::strerror(err) +
          "): start it with `mcpgwd --config FILE` (or `systemctl --user start mcpgwd`, on "
          "macOS `launchctl kickstart gui/$UID/com.mcpgw.mcpgwd`), "
          "or point MCPGW_SOCKET / --socket at the socket it listens on");
    }
    if (err == EAGAIN) {
      return Unreachable("mcpgwd at " + path +
                         " is too busy to accept a connection; retry shortly");
    }
    return Unreachable("cannot connect to mcpgwd at " + path + ": " + std::strerror(err));
  }
  uid_t peer_uid = 0;
  if (!PeerIsTrusted(fd, &peer_uid)) {
    close(fd);
    return Unreachable("the socket " + path + " is served by uid " + std::to_string(peer_uid) +
                       ", not by this user; refusing to use it");
  }
  return fd;  // OpenSocket: no SIGPIPE from it on macOS either
}

}  // namespace mcpgw::proto
