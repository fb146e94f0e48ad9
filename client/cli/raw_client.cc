#include "client/cli/raw_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/platform.h"
#include "client/status_of.h"
#include "proto/daemon_socket.h"
#include "proto/frame.h"
#include "proto/messages.h"
#include "proto/socket_path.h"

#ifndef MCPGW_VERSION
#define MCPGW_VERSION "0.0.0"
#endif

namespace mcpgw::cli {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), base::SendNoSignal());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

RawClient::RawClient(std::string socket_path) : path_(proto::ResolveSocketPath(socket_path)) {}

ApiResult RawClient::Request(std::string_view method, const std::string& params_json,
                             double timeout_s) {
  Fd sock;
  base::Result<int> connected = proto::ConnectToDaemon(path_, /*nonblocking=*/false);
  if (!connected.ok()) return {MCPGW_UNAVAILABLE, connected.message()};
  sock.fd = *connected;
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
      if (m.is_error) return {client::StatusOf(m.error_kind), m.error_message};
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
