// What a session (session.h) asks its driver to do: the transfers its
// Streamable HTTP wire starts and ends, the wait for credentials, a local
// server's process (its stdio wire), and the conversation's own actions
// (types.h), in the one order they were asked.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "config/config.h"
#include "daemon/mcp/types.h"
#include "daemon/net/http_types.h"

namespace mcpgw::mcp {

// Transfers are numbered by the wire (unique per session); the driver
// reports every started transfer exactly once through OnTransferDone, unless
// the wire aborted it first.
using TransferId = uint64_t;

struct StartTransfer {
  TransferId id;
  HttpMethod method;
  const config::RemoteServer* server;  // url and configured headers (owned by the session)
  // Protocol headers to add after the configured ones (Accept, Content-Type,
  // Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Authorization).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // POST only
  // A stream kept open for what the server sends unasked (the standalone
  // GET stream, subscriptions/listen): small events, rarely; the transport
  // gives it a small receive buffer, as one is held for every server.
  bool long_lived = false;
  // A tools/call: the transport must not send it again by itself.
  bool at_most_once = false;
};
// No further events for the transfer. `answered`: its SSE stream carried
// the response it was for (HttpTransport::Finish), else it is cut
// (HttpTransport::Abort).
struct AbortTransfer {
  TransferId id;
  bool answered = false;
};
// A request was refused for lack of authorization: HTTP 401, or HTTP 403
// whose WWW-Authenticate carries error="insufficient_scope". The session
// waits (awaiting_authorization(); the phase stays; status loading if it was
// not ready yet, a ready server stays ready and its calls wait within their
// deadlines) until the driver calls OnAuthorized or OnAuthorizationFailed.
// Emitted once per wait.
struct AuthorizationNeeded {
  int http_status;
  std::string www_authenticate;  // untrusted server text, as received
};

// --- a local server's process (stdio_wire.h) ---
// Start the server's process; its stdout comes back through
// Session::OnProcessOutput and its end through Session::OnProcessExited. A
// process still running is stopped first (StopProcess).
struct SpawnProcess {};
// Bytes for the current process's stdin (whole lines).
struct WriteInput {
  std::string bytes;
};
// The current process is given up: stdin closed, then SIGTERM and SIGKILL to
// its process group if it does not end (BEHAVIOR.md §17). No further output
// or exit of it reaches the session.
struct StopProcess {};

using Action = std::variant<StartTransfer, AbortTransfer, CallFinished, StateChanged,
                            AuthorizationNeeded, LogLine, SpawnProcess, WriteInput, StopProcess>;

}  // namespace mcpgw::mcp
