// libmcpgw's socket work: connecting (with hello), writing frames without
// SIGPIPE, and the reader thread that dispatches replies (see client_impl.h).
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "client/lib/client_impl.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/socket_path.h"

namespace mcpgw::client {
namespace {

constexpr auto kWriteSlice = std::chrono::milliseconds(50);

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

// Fails every call waiting on `conn` with `message` and marks it dead.
void FailConnection(mcpgw_client* client, Connection& conn, mcpgw_status status,
                    const std::string& message) {
  std::lock_guard lock(client->mu);
  conn.dead = true;
  bool closing = client->closing;  // mcpgw_close() ended the connection
  for (auto& [id, pending] : conn.pending) {
    pending->done = true;
    pending->status = closing ? MCPGW_CANCELLED : status;
    pending->text = closing ? "the client handle was closed" : message;
  }
  conn.pending.clear();
  client->cv.notify_all();
}

// Hands a reply to the call waiting for it. Returns an error message when the
// daemon refused our hello (the connection is then useless).
std::optional<std::string> Dispatch(mcpgw_client* client, Connection& conn,
                                    const proto::Message& m) {
  if (m.type != proto::MessageType::kResponse) return std::nullopt;
  if (m.id == conn.hello_id) {
    if (!m.is_error) return std::nullopt;
    return "mcpgwd at " + client->path + " refused this client: " + m.error_message;
  }
  std::lock_guard lock(client->mu);
  auto it = conn.pending.find(m.id);
  if (it == conn.pending.end()) return std::nullopt;  // cancelled or timed out meanwhile
  Pending& p = *it->second;
  if (m.is_error) {
    p.status = StatusOf(m.error_kind);
    p.text = m.error_message;
  } else if (p.want_json) {
    p.text = proto::CompactJson(*m.result);
  } else if (m.result->IsObject() && m.result->HasMember("text") &&
             (*m.result)["text"].IsString()) {
    const rapidjson::Value& text = (*m.result)["text"];
    p.text.assign(text.GetString(), text.GetStringLength());
  } else {
    p.status = MCPGW_TRANSPORT;
    p.text = "mcpgwd sent a result without text; is it a different version?";
  }
  p.done = true;
  conn.pending.erase(it);
  client->cv.notify_all();
  return std::nullopt;
}

// The reader thread. Marking the connection dead is the last thing it does
// with the handle, so a thread holding the handle's lock may join it.
void ReadLoop(mcpgw_client* client, std::shared_ptr<Connection> conn) {
  proto::FrameDecoder decoder;
  std::string failure = LostConnectionMessage(client->path);
  char buf[64 * 1024];
  bool running = true;
  while (running) {
    ssize_t n = recv(conn->fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    decoder.Append(std::string_view(buf, static_cast<size_t>(n)));
    std::string_view frame;
    proto::FrameDecoder::Status status;
    while (running && (status = decoder.Next(&frame)) == proto::FrameDecoder::Status::kFrame) {
      proto::Decoded d = proto::DecodeMessage(frame);
      if (!d.ok) continue;
      if (auto refused = Dispatch(client, *conn, d.message)) {
        failure = std::move(*refused);
        running = false;
      }
    }
    if (status == proto::FrameDecoder::Status::kTooLarge) running = false;
  }
  Shutdown(*conn);
  FailConnection(client, *conn, MCPGW_UNAVAILABLE, failure);
}

}  // namespace

Connection::~Connection() {
  if (reader.joinable()) reader.detach();  // not reached: the handle joins first
  if (fd >= 0) close(fd);
}

std::string LostConnectionMessage(const std::string& path) {
  return "lost the connection to mcpgwd at " + path +
         " (it stopped or restarted); the call's outcome is unknown, retry it";
}

std::shared_ptr<Connection> Connect(mcpgw_client* client, std::string* error) {
  const std::string& path = client->path;
  if (std::string bad = proto::CheckSocketPath(path); !bad.empty()) {
    *error = "cannot reach mcpgwd: " + bad;
    return nullptr;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = std::string("cannot create a socket: ") + std::strerror(errno);
    return nullptr;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.data(), path.size());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int err = errno;
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
    return nullptr;
  }
  uid_t peer_uid = 0;
  if (!PeerIsTrusted(fd, &peer_uid)) {
    close(fd);
    *error = "the socket " + path + " is served by uid " + std::to_string(peer_uid) +
             ", not by this user; refusing to use it";
    return nullptr;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
#if defined(SO_NOSIGPIPE)
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
  auto conn = std::make_shared<Connection>();
  conn->fd = fd;
  conn->hello_id = std::to_string(client->next_id++);
  // The socket is new and empty, so this small write completes at once, and
  // it precedes every request on the connection.
  if (WriteFrame(*conn, proto::EncodeHello(conn->hello_id, "libmcpgw " MCPGW_VERSION),
                 [] { return false; }) != WriteResult::kOk) {
    close(fd);
    *error = "cannot talk to mcpgwd at " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  conn->reader = std::thread(ReadLoop, client, conn);
  return conn;
}

WriteResult WriteFrame(Connection& conn, std::string_view frame,
                       const std::function<bool()>& abort) {
  {
    std::unique_lock lock(conn.write_mu);
    while (conn.writing) {
      if (abort()) return WriteResult::kAborted;
      conn.write_cv.wait_for(lock, kWriteSlice);
    }
    conn.writing = true;
  }
  struct Release {
    Connection& conn;
    ~Release() {
      {
        std::lock_guard lock(conn.write_mu);
        conn.writing = false;
      }
      conn.write_cv.notify_one();
    }
  } release{conn};
  size_t sent = 0;
  while (sent < frame.size()) {
    ssize_t n =
        send(conn.fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (abort()) {
        if (sent > 0) Shutdown(conn);  // half a frame: the stream is unusable
        return WriteResult::kAborted;
      }
      pollfd p{conn.fd, POLLOUT, 0};
      poll(&p, 1, static_cast<int>(kWriteSlice.count()));
      continue;
    }
    Shutdown(conn);
    return WriteResult::kFailed;
  }
  return WriteResult::kOk;
}

void Shutdown(Connection& conn) { shutdown(conn.fd, SHUT_RDWR); }

}  // namespace mcpgw::client
