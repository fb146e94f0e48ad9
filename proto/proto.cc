// Error kind names and exit codes of the local protocol (proto/PROTOCOL.md).
#include "proto/proto.h"

namespace mcpgw::proto {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidRequest:
      return "invalid_request";
    case ErrorKind::kNotReady:
      return "not_ready";
    case ErrorKind::kBackend:
      return "backend";
    case ErrorKind::kTransport:
      return "transport";
    case ErrorKind::kDenied:
      return "denied";
    case ErrorKind::kUnavailable:
      return "unavailable";
  }
  return "transport";
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
  }
  return 5;
}

}  // namespace mcpgw::proto
