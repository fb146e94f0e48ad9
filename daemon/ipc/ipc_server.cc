// The daemon's end of the local protocol (see ipc_server.h and
// proto/PROTOCOL.md). Each connection reads into a FrameDecoder, processes
// every complete frame, and queues its replies; a prepare handle writes every
// connection's queue once per loop turn, one uv_write per connection at a
// time, and replies that arrive meanwhile are coalesced.
#include "daemon/ipc/ipc_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "base/platform.h"
#include "base/text.h"
#include "daemon/ipc/peer_cred.h"
#include "daemon/ipc/socket_mode.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/methods.h"
#include "proto/socket_path.h"

namespace mcpgw {
namespace {

// Replies queued for a client that does not read them; past this it is
// disconnected rather than growing the daemon.
constexpr size_t kMaxQueuedOutput = 64u << 20;
constexpr size_t kReadBufferBytes = 64u << 10;
constexpr int kListenBacklog = 128;

std::string ModeText(mode_t mode) {
  char buf[8];
  snprintf(buf, sizeof(buf), "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

base::Status AlreadyListening() {
  return base::Status(base::ErrorKind::kInternal, "already listening");
}

// Creates `dir` (and missing parents) with mode 0700, or checks that the
// existing one is ours and closed to others.
base::Status PrepareDirectory(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return base::ErrnoError("cannot use socket directory " + dir, errno);
    for (size_t pos = 1; pos != std::string::npos;) {
      pos = dir.find('/', pos + 1);
      std::string prefix = dir.substr(0, pos);
      if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
        return base::ErrnoError("cannot create socket directory " + prefix, errno);
      }
    }
    if (chmod(dir.c_str(), 0700) != 0 || stat(dir.c_str(), &st) != 0) {
      return base::ErrnoError("cannot set up socket directory " + dir, errno);
    }
  }
  if (!S_ISDIR(st.st_mode)) {
    return base::InvalidInput("socket directory " + dir + " is not a directory");
  }
  if (st.st_uid != geteuid()) {
    return base::InvalidInput("socket directory " + dir + " belongs to uid " +
                              std::to_string(st.st_uid) + ", not to this user (uid " +
                              std::to_string(geteuid()) + "); refusing to listen there");
  }
  if ((st.st_mode & 022) != 0) {
    return base::InvalidInput("socket directory " + dir + " is writable by other users (mode " +
                              ModeText(st.st_mode) + "); run `chmod 700 " + dir +
                              "` or choose another --socket");
  }
  return base::Status();
}

// Removes a socket file left behind by a daemon that is gone; refuses when a
// daemon still answers on it or when the path is not a socket at all.
base::Status RemoveStaleSocket(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    return errno == ENOENT ? base::Status() : base::ErrnoError("cannot check " + path, errno);
  }
  if (!S_ISSOCK(st.st_mode)) {
    return base::InvalidInput(path +
                              " exists and is not a socket; remove it or choose another --socket");
  }
  int fd = base::OpenSocket(AF_UNIX, SOCK_STREAM, 0, /*nonblocking=*/true);
  if (fd < 0) return base::ErrnoError("cannot create a socket", errno);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.data(), path.size());
  int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  int err = errno;
  close(fd);
  if (rc == 0 || err == EAGAIN || err == EINPROGRESS) {
    return base::IoError("another mcpgwd is already listening on " + path);
  }
  if (err != ECONNREFUSED) return base::ErrnoError("cannot check the existing socket " + path, err);
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return base::ErrnoError("cannot remove the stale socket " + path, errno);
  }
  spdlog::info("removed stale socket {}", path);
  return base::Status();
}

// Binds a new socket to `path` and makes its file 0600, without listening
// yet: *fd and the file's *inode, or an error (nothing is left behind).
//
// No other user may ever connect, and the process's umask is not changed to
// see to it: it is shared by every thread, and one creating a file meanwhile
// would get the wrong mode. A socket file's mode matters only to connect(),
// and a socket that does not listen yet refuses every connect(), so the file
// is made 0600 before the caller's listen(). On Linux it is even born so
// (SetModeBeforeBind: 0600 less the umask): no window at all. On macOS it is
// born 0777 less the umask; the one window left is a connect() that passed
// its permission check before the chmod and reaches the socket once it
// listens, and the peer check at accept (Allowed) refuses another user there.
base::Status BindPrivateSocket(const std::string& path, int* fd_out, ino_t* inode) {
  const int fd = base::OpenSocket(AF_UNIX, SOCK_STREAM, 0, /*nonblocking=*/true);
  if (fd < 0) return base::ErrnoError("cannot create a socket", errno);
  if (const int err = SetModeBeforeBind(fd, 0600); err != 0) {
    close(fd);
    return base::ErrnoError("cannot set the mode of a socket for " + path, err);
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.data(), path.size());  // CheckSocketPath: it fits
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int err = errno;
    close(fd);
    return base::IoError("cannot listen on " + path + ": " +
                         uv_strerror(uv_translate_sys_error(err)));
  }
  struct stat st {};
  if (chmod(path.c_str(), 0600) != 0 || lstat(path.c_str(), &st) != 0) {
    base::Status error = base::ErrnoError("cannot set the mode of " + path, errno);
    unlink(path.c_str());
    close(fd);
    return error;
  }
  *fd_out = fd;
  *inode = st.st_ino;
  return base::Status();
}

}  // namespace

struct IpcServer::Impl {
  struct Conn;
  struct WriteReq {
    uv_write_t req;
    std::string data;
    Conn* conn;
  };
  struct Conn {
    uv_pipe_t pipe;  // pipe.data points back here
    Impl* server;
    Peer peer;
    proto::FrameDecoder decoder;
    bool counted = false;  // holds a slot in conns_per_uid
    bool hello_done = false;
    bool closing = false;
    bool close_after_flush = false;
    bool dirty = false;                                 // has replies queued for the next flush
    std::unordered_map<std::string, Ticket> in_flight;  // request id → ticket
    std::string pending_out;                            // not yet handed to uv_write
    size_t writing_bytes = 0;                           // handed to uv_write
    explicit Conn(Impl* s) : server(s), decoder(s->options.max_frame_bytes) {}
  };
  struct TicketInfo {
    Conn* conn;
    std::string id;
  };

  uv_loop_t* loop;
  IpcHandler* handler;
  IpcServerOptions options;
  uv_pipe_t* listener = nullptr;
  std::string bound_path;  // unlinked on stop if it is still our socket
  ino_t bound_inode = 0;
  std::unordered_set<Conn*> conns;
  std::vector<Conn*> dirty;         // connections with replies to write this turn (Conn::dirty)
  std::vector<Conn*> flushing;      // the batch OnPrepare writes, kept for its room
  uv_prepare_t* flusher = nullptr;  // writes them just before the loop waits
  std::unordered_map<uid_t, size_t> conns_per_uid;
  uint64_t connections_accepted = 0;
  std::unordered_map<Ticket, TicketInfo> tickets;
  Ticket next_ticket = 1;
  char read_buffer[kReadBufferBytes];

  bool Allowed(uid_t uid) const {
    if (options.allowed_uids.empty()) return uid == geteuid();
    for (uid_t allowed : options.allowed_uids) {
      if (allowed == uid) return true;
    }
    return false;
  }

  base::Status StartListening() {
    int rc = uv_listen(reinterpret_cast<uv_stream_t*>(listener), kListenBacklog, OnConnection);
    if (rc != 0) {
      CloseListener();
      return base::IoError(std::string("cannot listen: ") + uv_strerror(rc));
    }
    return base::Status();
  }

  void CloseListener() {
    if (listener == nullptr) return;
    uv_close(reinterpret_cast<uv_handle_t*>(listener),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_pipe_t*>(h); });
    listener = nullptr;
    struct stat st {};
    if (!bound_path.empty() && lstat(bound_path.c_str(), &st) == 0 && st.st_ino == bound_inode) {
      unlink(bound_path.c_str());
    }
    bound_path.clear();
  }

  static void OnConnection(uv_stream_t* server_stream, int status) {
    auto* self = static_cast<Impl*>(server_stream->data);
    if (status < 0) {
      spdlog::warn("ipc: accept failed: {}", uv_strerror(status));
      return;
    }
    auto* conn = new Conn(self);
    uv_pipe_init(self->loop, &conn->pipe, 0);
    conn->pipe.data = conn;
    auto* handle = reinterpret_cast<uv_handle_t*>(&conn->pipe);
    uv_os_fd_t fd = -1;
    std::optional<Peer> peer;
    if (uv_accept(server_stream, reinterpret_cast<uv_stream_t*>(&conn->pipe)) == 0 &&
        uv_fileno(handle, &fd) == 0) {
      peer = ReadPeerCredentials(fd);
    }
    if (!peer || !self->Allowed(peer->uid)) {
      if (peer) spdlog::debug("ipc: refused a connection from uid {}", peer->uid);
      uv_close(handle, OnClosed);
      return;
    }
    conn->peer = *peer;
    conn->peer.connection = ++self->connections_accepted;
    self->conns.insert(conn);
    size_t& count = self->conns_per_uid[peer->uid];
    if (count >= self->options.max_connections_per_uid) {
      spdlog::warn("ipc: uid {} already has {} connections; refusing another", peer->uid, count);
      self->Send(conn, proto::EncodeError("null", proto::ErrorKind::kInvalidRequest,
                                          "too many connections to mcpgwd from this user (limit " +
                                              std::to_string(count) + ")"));
      conn->close_after_flush = true;
      return;
    }
    ++count;
    conn->counted = true;
    uv_read_start(reinterpret_cast<uv_stream_t*>(&conn->pipe), OnAlloc, OnRead);
  }

  static void OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
    auto* conn = static_cast<Conn*>(handle->data);
    *buf = uv_buf_init(conn->server->read_buffer, kReadBufferBytes);
  }

  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
    auto* conn = static_cast<Conn*>(stream->data);
    Impl* self = conn->server;
    if (nread < 0) {
      self->CloseConn(conn);
      return;
    }
    if (nread == 0) return;
    conn->decoder.Append(std::string_view(buf->base, static_cast<size_t>(nread)));
    self->ProcessInput(conn);
  }

  static void OnClosed(uv_handle_t* handle) { delete static_cast<Conn*>(handle->data); }

  // Handles every complete frame buffered for `conn`.
  void ProcessInput(Conn* conn) {
    std::string_view frame;
    while (!conn->closing && !conn->close_after_flush) {
      switch (conn->decoder.Next(&frame)) {
        case proto::FrameDecoder::Status::kNeedMore:
          return;
        case proto::FrameDecoder::Status::kTooLarge:
          uv_read_stop(reinterpret_cast<uv_stream_t*>(&conn->pipe));
          Send(conn, proto::EncodeProtocolError("null", proto::kCodeInvalidRequest,
                                                "frame exceeded " +
                                                    std::to_string(options.max_frame_bytes) +
                                                    " bytes; closing the connection"));
          conn->close_after_flush = true;
          return;
        case proto::FrameDecoder::Status::kFrame:
          HandleFrame(conn, frame);
          break;
      }
    }
  }

  void HandleFrame(Conn* conn, std::string_view frame) {
    proto::Decoded d = proto::DecodeMessage(frame);
    if (!d.ok) {
      Send(conn, proto::EncodeProtocolError(d.error.id, d.error.code, d.error.message));
      return;
    }
    proto::Message& m = d.message;
    if (m.type == proto::MessageType::kResponse) return;  // clients have nothing to answer
    if (m.type == proto::MessageType::kNotification) {
      if (m.method == proto::kCancel) HandleCancel(conn, *m.params);
      return;
    }
    if (m.method == proto::kHello) {
      HandleHello(conn, m);
      return;
    }
    auto refuse = [&](int code, std::string message) {
      Send(conn, proto::EncodeProtocolError(m.id, code, message));
    };
    if (!conn->hello_done) {
      return refuse(proto::kCodeInvalidRequest,
                    "send hello first: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"hello\","
                    "\"params\":{\"version\":1,\"client\":\"<name>\"}}");
    }
    if (const proto::Method* known = proto::FindMethod(m.method);
        known == nullptr || known->kind != proto::MethodKind::kRequest) {
      std::string quoted;
      proto::AppendJsonString(&quoted, m.method);
      return refuse(proto::kCodeMethodNotFound,
                    "unknown method " + quoted + "; methods: " + proto::RequestNames());
    }
    if (conn->in_flight.count(m.id) != 0) {
      return refuse(
          proto::kCodeInvalidRequest,
          "request id " + m.id + " is already in flight on this connection; use a new id");
    }
    if (conn->in_flight.size() >= options.max_in_flight_per_connection) {
      Send(conn, proto::EncodeError(m.id, proto::ErrorKind::kInvalidRequest,
                                    "too many requests in flight (limit " +
                                        std::to_string(options.max_in_flight_per_connection) +
                                        "); wait for answers before sending more"));
      return;
    }
    Ticket ticket = next_ticket++;
    conn->in_flight.emplace(m.id, ticket);
    tickets.emplace(ticket, TicketInfo{conn, m.id});
    handler->OnRequest(ticket, conn->peer, m.method, *m.params, frame);
  }

  void HandleHello(Conn* conn, const proto::Message& m) {
    auto version = m.params->FindMember("version");
    if (version == m.params->MemberEnd() || !version->value.IsInt()) {
      Send(conn,
           proto::EncodeProtocolError(m.id, proto::kCodeInvalidParams,
                                      "hello needs params {\"version\":1,\"client\":\"<name>\"}"));
      return;
    }
    int v = version->value.GetInt();
    if (v < 1 || v > proto::kProtocolVersion) {
      Send(conn, proto::EncodeError(m.id, proto::ErrorKind::kInvalidRequest,
                                    "this mcpgwd speaks protocol version " +
                                        std::to_string(proto::kProtocolVersion) +
                                        ", the client asked for " + std::to_string(v) +
                                        "; upgrade whichever of the two is older"));
      return;
    }
    conn->hello_done = true;
    Send(conn, proto::EncodeHelloResult(m.id, "mcpgwd " MCPGW_VERSION));
  }

  void HandleCancel(Conn* conn, const rapidjson::Value& params) {
    auto id = params.FindMember("id");
    if (id == params.MemberEnd() || !(id->value.IsString() || id->value.IsNumber())) return;
    auto it = conn->in_flight.find(proto::CompactJson(id->value));
    if (it == conn->in_flight.end()) return;
    Ticket ticket = it->second;
    conn->in_flight.erase(it);
    tickets.erase(ticket);
    handler->OnCancel(ticket);
  }

  void Send(Conn* conn, std::string frame) {
    if (conn->closing) return;
    if (conn->pending_out.size() + conn->writing_bytes + frame.size() > kMaxQueuedOutput) {
      spdlog::warn("ipc: closing a connection (pid {}) that does not read its replies",
                   conn->peer.pid);
      CloseConn(conn);
      return;
    }
    if (conn->pending_out.empty()) {
      conn->pending_out = std::move(frame);
    } else {
      conn->pending_out += frame;
    }
    if (!conn->dirty) {
      conn->dirty = true;
      dirty.push_back(conn);
    }
  }

  static void OnPrepare(uv_prepare_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    std::vector<Conn*>& batch = self->flushing;
    batch.swap(self->dirty);
    for (Conn* conn : batch) {
      conn->dirty = false;
      if (conn->closing) continue;
      if (conn->pending_out.empty() && conn->writing_bytes == 0 && conn->close_after_flush) {
        self->CloseConn(conn);
      } else {
        self->Flush(conn);
      }
    }
    batch.clear();
  }

  // Writes what is queued at once when the socket takes it (no request, no
  // completion to wait for, no change to the loop's registration); what it
  // does not take goes to uv_write.
  void Flush(Conn* conn) {
    if (conn->closing || conn->writing_bytes != 0 || conn->pending_out.empty()) return;
    auto* stream = reinterpret_cast<uv_stream_t*>(&conn->pipe);
    uv_buf_t all =
        uv_buf_init(conn->pending_out.data(), static_cast<unsigned>(conn->pending_out.size()));
    int written = uv_try_write(stream, &all, 1);
    if (written == static_cast<int>(conn->pending_out.size())) {
      conn->pending_out.clear();
      if (conn->close_after_flush) CloseConn(conn);
      return;
    }
    if (written < 0 && written != UV_EAGAIN) {
      CloseConn(conn);
      return;
    }
    if (written > 0) conn->pending_out.erase(0, static_cast<size_t>(written));
    auto* req = new WriteReq{{}, std::move(conn->pending_out), conn};
    conn->pending_out.clear();
    conn->writing_bytes = req->data.size();
    uv_buf_t buf = uv_buf_init(req->data.data(), static_cast<unsigned>(req->data.size()));
    int rc = uv_write(&req->req, reinterpret_cast<uv_stream_t*>(&conn->pipe), &buf, 1, OnWritten);
    if (rc != 0) {
      delete req;
      conn->writing_bytes = 0;
      CloseConn(conn);
    }
  }

  static void OnWritten(uv_write_t* uv_req, int status) {
    auto* req = reinterpret_cast<WriteReq*>(uv_req);
    Conn* conn = req->conn;
    delete req;
    if (conn->closing) return;  // the server may be gone; only the conn is alive
    conn->writing_bytes = 0;
    if (status < 0) {
      conn->server->CloseConn(conn);
    } else if (!conn->pending_out.empty()) {
      conn->server->Flush(conn);
    } else if (conn->close_after_flush) {
      conn->server->CloseConn(conn);
    }
  }

  // Closes `conn` and cancels every ticket it had in flight.
  void CloseConn(Conn* conn) {
    if (conn->closing) return;
    conn->closing = true;
    if (conn->dirty) std::erase(dirty, conn);
    conns.erase(conn);
    if (conn->counted) {
      auto it = conns_per_uid.find(conn->peer.uid);
      if (it != conns_per_uid.end() && --it->second == 0) conns_per_uid.erase(it);
    }
    std::vector<Ticket> cancelled;
    cancelled.reserve(conn->in_flight.size());
    for (auto& [id, ticket] : conn->in_flight) {
      tickets.erase(ticket);
      cancelled.push_back(ticket);
    }
    conn->in_flight.clear();
    uv_close(reinterpret_cast<uv_handle_t*>(&conn->pipe), OnClosed);
    for (Ticket ticket : cancelled) handler->OnCancel(ticket);
  }

  void Reply(Ticket ticket, const std::function<std::string(std::string_view id)>& encode) {
    auto it = tickets.find(ticket);
    if (it == tickets.end()) return;
    Conn* conn = it->second.conn;
    std::string id = std::move(it->second.id);
    tickets.erase(it);
    conn->in_flight.erase(id);
    std::string frame = encode(id);
    // Clients refuse a frame over the limit and lose the whole connection
    // with it: an answer that large fails alone instead.
    const size_t limit = std::min(options.max_frame_bytes, proto::kMaxFrameBytes);
    if (frame.size() > limit) {
      spdlog::warn("ipc: an answer of {} exceeds the frame limit of {}",
                   base::DescribeSize(frame.size()), base::DescribeSize(limit));
      frame =
          proto::EncodeError(id, proto::ErrorKind::kTransport,
                             "the answer is " + base::DescribeSize(frame.size()) + ", over the " +
                                 base::DescribeSize(limit) + " frame limit of the local socket");
    }
    Send(conn, std::move(frame));
  }
};

IpcServer::IpcServer(uv_loop_t* loop, IpcHandler* handler, IpcServerOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->loop = loop;
  impl_->handler = handler;
  impl_->options = std::move(options);
  impl_->flusher = new uv_prepare_t;
  uv_prepare_init(loop, impl_->flusher);
  impl_->flusher->data = impl_.get();
  uv_prepare_start(impl_->flusher, &Impl::OnPrepare);
  uv_unref(reinterpret_cast<uv_handle_t*>(impl_->flusher));  // keeps no loop alive by itself
}

IpcServer::~IpcServer() {
  CloseAll();
  uv_close(reinterpret_cast<uv_handle_t*>(impl_->flusher),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_prepare_t*>(h); });
}

base::Status IpcServer::Listen(const std::string& path) {
  if (impl_->listener != nullptr) return AlreadyListening();
  if (base::Status error = proto::CheckSocketPath(path); !error.ok()) return error;
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (base::Status error = PrepareDirectory(dir); !error.ok()) return error;
  if (base::Status error = RemoveStaleSocket(path); !error.ok()) return error;

  int fd = -1;
  ino_t inode = 0;
  if (base::Status error = BindPrivateSocket(path, &fd, &inode); !error.ok()) return error;
  impl_->listener = new uv_pipe_t;
  uv_pipe_init(impl_->loop, impl_->listener, 0);
  impl_->listener->data = impl_.get();
  impl_->bound_path = path;
  impl_->bound_inode = inode;
  if (int rc = uv_pipe_open(impl_->listener, fd); rc != 0) {
    close(fd);
    impl_->CloseListener();
    return base::IoError("cannot listen on " + path + ": " + uv_strerror(rc));
  }
  return impl_->StartListening();
}

base::Status IpcServer::ListenFd(int fd) {
  if (impl_->listener != nullptr) return AlreadyListening();
  impl_->listener = new uv_pipe_t;
  uv_pipe_init(impl_->loop, impl_->listener, 0);
  impl_->listener->data = impl_.get();
  int rc = uv_pipe_open(impl_->listener, fd);
  if (rc != 0) {
    impl_->CloseListener();
    return base::IoError(std::string("cannot use the inherited socket: ") + uv_strerror(rc));
  }
  return impl_->StartListening();
}

void IpcServer::StopAccepting() { impl_->CloseListener(); }

void IpcServer::CloseAll() {
  impl_->CloseListener();
  std::vector<Impl::Conn*> all(impl_->conns.begin(), impl_->conns.end());
  for (Impl::Conn* conn : all) impl_->CloseConn(conn);
}

void IpcServer::ReplyText(Ticket ticket, std::string_view text) {
  impl_->Reply(ticket, [&](std::string_view id) { return proto::EncodeTextResult(id, text); });
}

void IpcServer::ReplyTextLiteral(Ticket ticket, std::string_view literal) {
  impl_->Reply(ticket,
               [&](std::string_view id) { return proto::EncodeTextLiteralResult(id, literal); });
}

void IpcServer::ReplyJson(Ticket ticket, std::string_view json_object) {
  // Checked because it is spliced into the frame as is: a broken object would
  // leave the client with a reply it cannot attribute to its request.
  rapidjson::Document check;
  check.Parse<rapidjson::kParseIterativeFlag>(json_object.data(), json_object.size());
  if (check.HasParseError() || !check.IsObject()) {
    spdlog::error("ipc: dropping a reply that is not a JSON object");
    ReplyError(ticket, proto::ErrorKind::kTransport, "mcpgwd produced an invalid reply");
    return;
  }
  impl_->Reply(ticket, [&](std::string_view id) { return proto::EncodeResult(id, json_object); });
}

void IpcServer::ReplyError(Ticket ticket, proto::ErrorKind kind, std::string_view message) {
  impl_->Reply(ticket, [&](std::string_view id) { return proto::EncodeError(id, kind, message); });
}

size_t IpcServer::connections() const { return impl_->conns.size(); }

}  // namespace mcpgw
