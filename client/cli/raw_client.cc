#include "client/cli/raw_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/socket_path.h"

#ifndef MCPGW_VERSION
#define MCPGW_VERSION "0.0.0"
#endif

namespace mcpgw::cli {
namespace {

mcpgw_status StatusOf(const proto::Message& m) {
  if (!m.error_kind) return MCPGW_TRANSPORT;
  switch (*m.error_kind) {
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

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool PeerIsTrusted(int fd) {
#if defined(__linux__)
  struct ucred cred {};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  const uid_t uid = cred.uid;
#else
  uid_t uid = 0;
  gid_t gid = 0;
  if (getpeereid(fd, &uid, &gid) != 0) return false;
#endif
  return uid == geteuid() || uid == 0;
}

}  // namespace

RawClient::RawClient(std::string socket_path) : path_(proto::ResolveSocketPath(socket_path)) {}

ApiResult RawClient::Request(std::string_view method, const std::string& params_json,
                             double timeout_s) {
  if (std::string bad = proto::CheckSocketPath(path_); !bad.empty()) {
    return {MCPGW_UNAVAILABLE, "cannot reach mcpgwd: " + bad};
  }
  Fd sock;
  sock.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock.fd < 0)
    return {MCPGW_UNAVAILABLE, std::string("cannot create a socket: ") + strerror(errno)};
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path_.data(), path_.size());
  if (connect(sock.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return {MCPGW_UNAVAILABLE, "mcpgwd is not running (cannot connect to " + path_ + ": " +
                                   std::strerror(errno) + ")"};
  }
  if (!PeerIsTrusted(sock.fd)) {
    return {MCPGW_UNAVAILABLE, "the socket " + path_ + " is not served by this user; refusing it"};
  }
  const std::string frames = proto::EncodeHello("1", "mcpgw " MCPGW_VERSION) +
                             proto::EncodeRequest("2", method, params_json);
  if (!SendAll(sock.fd, frames)) {
    return {MCPGW_UNAVAILABLE, "cannot talk to mcpgwd at " + path_ + ": " + std::strerror(errno)};
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
  proto::FrameDecoder decoder;
  char buf[16384];
  for (;;) {
    std::string_view frame;
    proto::FrameDecoder::Status st;
    while ((st = decoder.Next(&frame)) == proto::FrameDecoder::Status::kFrame) {
      proto::Decoded d = proto::DecodeMessage(frame);
      if (!d.ok || d.message.type != proto::MessageType::kResponse) continue;
      const proto::Message& m = d.message;
      if (m.id == "1") {
        if (m.is_error)
          return {MCPGW_UNAVAILABLE, "mcpgwd refused this client: " + m.error_message};
        continue;
      }
      if (m.id != "2") continue;
      if (m.is_error) return {StatusOf(m), m.error_message};
      return {MCPGW_OK, proto::CompactJson(*m.result)};
    }
    if (st == proto::FrameDecoder::Status::kTooLarge) {
      return {MCPGW_TRANSPORT, "mcpgwd sent a frame over the size limit"};
    }
    int wait_ms = -1;
    if (timeout_s > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return {MCPGW_TRANSPORT, "mcpgwd did not answer in time"};
      wait_ms = static_cast<int>(left);
    }
    pollfd p{sock.fd, POLLIN, 0};
    const int rc = poll(&p, 1, wait_ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) continue;  // the deadline check above ends it
    const ssize_t n = recv(sock.fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return {MCPGW_UNAVAILABLE, "lost the connection to mcpgwd at " + path_};
    }
    decoder.Append(std::string_view(buf, static_cast<size_t>(n)));
  }
}

}  // namespace mcpgw::cli
