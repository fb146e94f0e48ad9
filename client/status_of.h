// The host-facing status (mcpgw.h's mcpgw_status) for an error kind of the
// local protocol (proto/PROTOCOL.md), shared by libmcpgw and the CLI's own
// requests. Header-only: libmcpgw hides its symbols, so the CLI cannot link
// to one copy inside it.
#pragma once

#include <optional>

#include "mcpgw.h"
#include "proto/messages.h"

namespace mcpgw::client {

// No kind (a malformed error) counts as a transport failure, as does a kind
// that never crosses the wire (base/status.h).
inline mcpgw_status StatusOf(std::optional<proto::ErrorKind> kind) {
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
    default:  // kinds that never cross the wire read as transport there
      return MCPGW_TRANSPORT;
  }
}

}  // namespace mcpgw::client
