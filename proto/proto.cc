// Error kind names and exit codes of the local protocol (proto/PROTOCOL.md).
#include "proto/proto.h"

namespace mcpgw::proto {

std::string_view ErrorKindName(ErrorKind kind) {
  return base::KindName(base::IsWireKind(kind) ? kind : ErrorKind::kTransport);
}

std::optional<ErrorKind> ParseErrorKind(std::string_view name) {
  for (ErrorKind kind : {ErrorKind::kInvalidRequest, ErrorKind::kNotReady, ErrorKind::kBackend,
                         ErrorKind::kTransport, ErrorKind::kDenied, ErrorKind::kUnavailable}) {
    if (ErrorKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

int ExitCode(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kBackend:
      return 1;
    case ErrorKind::kInvalidRequest:
      return 3;
    case ErrorKind::kNotReady:
      return 4;
    case ErrorKind::kTransport:
      return 5;
    case ErrorKind::kDenied:
      return 6;
    case ErrorKind::kUnavailable:
      return 7;
    default:  // a kind hosts never see reads as transport
      return 5;
  }
}

}  // namespace mcpgw::proto
