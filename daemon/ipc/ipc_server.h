// IpcServer: the daemon's end of the local protocol (proto/PROTOCOL.md) on a
// Unix socket, on the main libuv loop. It accepts peers of allowed uids only,
// reads newline-delimited frames with a size bound, answers `hello` itself and
// hands every other request to an IpcHandler as a ticket. The handler replies
// to a ticket exactly once, possibly later; a ticket whose connection closed
// or that the client cancelled is reported through OnCancel, and a reply to it
// afterwards is silently dropped. Single-threaded: call it on the loop thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>
#include <uv.h>

#include "proto/proto.h"

namespace mcpgw {

struct Peer {
  pid_t pid = 0;
  uid_t uid = 0;
};

using Ticket = uint64_t;  // unique for the server's lifetime

class IpcHandler {
 public:
  virtual ~IpcHandler() = default;
  // `method` is one of proto's request methods other than hello; `params` is
  // the request's params object (an empty object when absent).
  virtual void OnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                         const rapidjson::Value& params) = 0;
  // The ticket is gone (client cancel or connection closed): stop its work.
  virtual void OnCancel(Ticket ticket) = 0;
};

struct IpcServerOptions {
  std::vector<uid_t> allowed_uids;  // empty: only the daemon's own uid
  size_t max_frame_bytes = proto::kMaxFrameBytes;
  size_t max_connections_per_uid = 64;
  size_t max_in_flight_per_connection = 1024;
};

class IpcServer {
 public:
  IpcServer(uv_loop_t* loop, IpcHandler* handler, IpcServerOptions options = {});
  ~IpcServer();
  IpcServer(const IpcServer&) = delete;
  IpcServer& operator=(const IpcServer&) = delete;

  // Creates the socket's directory (0700) if missing, replaces a stale socket
  // file, binds and listens (socket 0600). Returns an error message or "".
  std::string Listen(const std::string& path);
  // Serves an already listening socket (systemd/launchd socket activation).
  std::string ListenFd(int fd);
  // Stops accepting; open connections stay until CloseAll().
  void StopAccepting();
  // Closes every connection (their tickets are cancelled) and the listener.
  void CloseAll();

  // Replies. Unknown or cancelled tickets are ignored.
  void ReplyText(Ticket ticket, std::string_view text);  // result {"text": ...}
  // The same with `literal` already encoded by proto::AppendJsonString (quotes
  // included): for large answers the daemon keeps encoded.
  void ReplyTextLiteral(Ticket ticket, std::string_view literal);
  void ReplyJson(Ticket ticket, std::string_view json_object);  // result is this object
  void ReplyError(Ticket ticket, proto::ErrorKind kind, std::string_view message);

  size_t connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw
