// libmcpgw's socket plumbing: connecting to the daemon (and checking who
// serves the socket), and turning reply frames into outcomes. Pure helpers
// for the Core (client_impl.h); no state of their own.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "client/lib/client_impl.h"
#include "proto/messages.h"
#include "proto/socket_path.h"

namespace mcpgw::client {
namespace {

mcpgw_status StatusOf(std::optional<proto::ErrorKind> kind) {
  if (!kind) return MCPGW_TRANSPORT;
  switch (*kind) {
    case proto::ErrorKind::kInvalidRequest:
      return MCPGW_INVALID_REQUEST;
    case proto::ErrorKind::kNotReady:
      return MCPGW_NOT_READY;
    case proto::ErrorKind::kBackend:
      return MCPGW_BACKEND;
    case proto::ErrorKind::kTransport:
      return MCPGW_TRANSPORT;
    case proto::ErrorKind::kDenied:
      return MCPGW_DENIED;
    case proto::ErrorKind::kUnavailable:
      return MCPGW_UNAVAILABLE;
  }
  return MCPGW_TRANSPORT;
}

// The daemon must run as this user (or root): a socket planted by someone
// else must not receive this user's tool arguments.
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

}  // namespace

Connection::~Connection() {
  if (fd >= 0) close(fd);
}

std::string LostConnectionMessage(const std::string& path) {
  return "lost the connection to mcpgwd at " + path +
         " (it stopped or restarted); the call's outcome is unknown, retry it";
}

int ConnectSocket(const std::string& path, std::string* error) {
  if (std::string bad = proto::CheckSocketPath(path); !bad.empty()) {
    *error = "cannot reach mcpgwd: " + bad;
    return -1;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = std::string("cannot create a socket: ") + std::strerror(errno);
    return -1;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int err = errno;
    close(fd);
    if (err == ENOENT || err == ECONNREFUSED) {
      *error = "mcpgwd is not running (cannot connect to " + path + ": " + std::strerror(err) +
               "): start it with `mcpgwd --config FILE` (or `systemctl --user start mcpgwd`), "
               "or point MCPGW_SOCKET / --socket at the socket it listens on";
    } else if (err == EAGAIN) {
      *error = "mcpgwd at " + path + " is too busy to accept a connection; retry shortly";
    } else {
      *error = "cannot connect to mcpgwd at " + path + ": " + std::strerror(err);
    }
    return -1;
  }
  uid_t peer_uid = 0;
  if (!PeerIsTrusted(fd, &peer_uid)) {
    close(fd);
    *error = "the socket " + path + " is served by uid " + std::to_string(peer_uid) +
             ", not by this user; refusing to use it";
    return -1;
  }
#if defined(SO_NOSIGPIPE)
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
  return fd;
}

bool DecodeReply(std::string_view frame, uint64_t* id, Outcome* outcome, bool* has_text) {
  proto::Decoded d = proto::DecodeMessage(frame);
  if (!d.ok || d.message.type != proto::MessageType::kResponse) return false;
  const proto::Message& m = d.message;
  const char* first = m.id.data();
  const char* last = first + m.id.size();
  if (std::from_chars(first, last, *id).ptr != last) return false;  // not one of our ids
  *has_text = false;
  if (m.is_error) {
    outcome->status = StatusOf(m.error_kind);
    outcome->text = m.error_message;
    return true;
  }
  outcome->status = MCPGW_OK;
  const rapidjson::Value& result = *m.result;
  if (result.IsObject()) {
    auto text = result.FindMember("text");
    if (text != result.MemberEnd() && text->value.IsString()) {
      outcome->text.assign(text->value.GetString(), text->value.GetStringLength());
      *has_text = true;
      return true;
    }
  }
  outcome->text = proto::CompactJson(result);
  return true;
}

}  // namespace mcpgw::client
