// IpcServer: the daemon's end of the local protocol (proto/PROTOCOL.md) on a
// Unix socket, on the main libuv loop. It accepts peers of allowed uids only,
// reads newline-delimited frames with a size bound, answers `hello` itself and
// hands every other request to an IpcHandler as a ticket. The handler replies
// to a ticket exactly once, possibly later; a ticket whose connection closed
// or that the client cancelled is reported through OnCancel, and a reply to it
// afterwards is silently dropped. Replies are queued per connection and
// written once per loop turn, just before the loop waits (redis's
// beforeSleep); no reply frame is ever larger than the frame limit (an answer
// that would be fails alone, as transport). Single-threaded: call it on the
// loop thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>
#include <uv.h>

#include "base/status.h"
#include "config/settings.h"
#include "proto/proto.h"

namespace mcpgw {

struct Peer {
  pid_t pid = 0;
  uid_t uid = 0;
  uint64_t connection = 0;  // which connection: unique for the server's lifetime
};

using Ticket = uint64_t;  // unique for the server's lifetime

class IpcHandler {
 public:
  virtual ~IpcHandler() = default;
  // `method` is one of proto's request methods other than hello; `params` is
  // the request's params object (an empty object when absent); `frame` is the
  // request's frame as received, for what must be forwarded byte for byte:
  // proto::DecodeMessage read it, so its bytes are UTF-8 and it nests no
  // deeper than proto::kMaxJsonDepth. Both are valid during the call only.
  virtual void OnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                         const rapidjson::Value& params, std::string_view frame) = 0;
  // The ticket is gone (client cancel or connection closed): stop its work.
  virtual void OnCancel(Ticket ticket) = 0;
};

// How a handler answers tickets: IpcServer, or a recorder in tests. Replies
// to unknown or cancelled tickets are ignored.
class IpcReplies {
 public:
  virtual ~IpcReplies() = default;
  virtual void ReplyText(Ticket ticket, std::string_view text) = 0;  // result {"text": ...}
  // The same with `literal` already encoded by AppendJsonString (quotes
  // included): for large answers the daemon keeps encoded.
  virtual void ReplyTextLiteral(Ticket ticket, std::string_view literal) = 0;
  virtual void ReplyJson(Ticket ticket, std::string_view json_object) = 0;  // result is this object
  virtual void ReplyError(Ticket ticket, proto::ErrorKind kind, std::string_view message) = 0;
};

// The socket's bounds: the settings file's `ipc` object, as read.
using IpcServerOptions = IpcSettings;

class IpcServer : public IpcReplies {
 public:
  IpcServer(uv_loop_t* loop, IpcHandler* handler, IpcServerOptions options = {});
  ~IpcServer() override;
  IpcServer(const IpcServer&) = delete;
  IpcServer& operator=(const IpcServer&) = delete;

  // Creates the socket's directory (0700) if missing, replaces a stale socket
  // file, binds and listens (socket 0600).
  base::Status Listen(const std::string& path);
  // Serves an already listening socket (systemd/launchd socket activation).
  base::Status ListenFd(int fd);
  // Stops accepting; open connections stay until CloseAll().
  void StopAccepting();
  // Closes every connection (their tickets are cancelled) and the listener.
  void CloseAll();

  void ReplyText(Ticket ticket, std::string_view text) override;
  void ReplyTextLiteral(Ticket ticket, std::string_view literal) override;
  void ReplyJson(Ticket ticket, std::string_view json_object) override;
  void ReplyError(Ticket ticket, proto::ErrorKind kind, std::string_view message) override;

  size_t connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw
