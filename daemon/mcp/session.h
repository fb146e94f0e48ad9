// Session: one upstream MCP server — the MCP conversation (conversation.h)
// over its Streamable HTTP wire (http_wire.h) or, for a local server, its
// stdio wire (stdio_wire.h), behind one sans-I/O face (BEHAVIOR.md §3, §5,
// §6, §17). It owns no socket, no curl handle
// and reads no clock. Its driver (the daemon's ServerHost, or a unit test
// with a fake clock) feeds it events — response heads and bytes, transfer
// completions, timer expiry, calls, cancellations, authorization outcomes —
// each with the current time, then drains the actions they asked for
// (http_actions.h): HTTP requests to start or abort, calls finished, state
// changes, log lines. After every event the driver re-arms one timer at
// NextWakeup().
//
// Transfers are numbered by the wire (TransferId, unique per session). The
// driver reports every started transfer exactly once through OnTransferDone,
// unless the session aborted it first (then no further event for it arrives;
// events for unknown ids are ignored).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "daemon/mcp/conversation.h"
#include "daemon/mcp/http_actions.h"
#include "daemon/mcp/http_wire.h"
#include "daemon/mcp/stdio_wire.h"
#include "daemon/mcp/tool_list.h"
#include "daemon/mcp/types.h"
#include "daemon/net/http_types.h"

namespace mcpgw::mcp {

class Session final : private ConversationOut {
 public:
  Session(std::string name, config::RemoteServer server, SessionLimits limits = {});
  // A local server: the driver runs its process (SpawnProcess, WriteInput,
  // StopProcess) and reports its output and end.
  Session(std::string name, SessionLimits limits = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // --- events ---
  // Begins the first attempt (server/discover or initialize, then tools/list…).
  void Start(TimePoint now);
  // Response status and headers of a transfer, once, before any body bytes.
  void OnResponseHead(TransferId id, const ResponseHead& head, TimePoint now);
  // Body bytes as they arrive (any split).
  void OnResponseData(TransferId id, std::string_view bytes, TimePoint now);
  void OnTransferDone(TransferId id, const TransferResult& result, TimePoint now);
  // A local server's current process wrote `bytes` on stdout, or ended.
  void OnProcessOutput(std::string_view bytes, TimePoint now);
  void OnProcessExited(const std::string& reason, TimePoint now);
  // The timer armed at NextWakeup() fired (calling it early is harmless).
  void OnTimer(TimePoint now);

  // A call of `tool` with `arguments_json` (a JSON object's text, sent byte
  // for byte). Ends in exactly one CallFinished unless cancelled first.
  void Call(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  // The caller no longer wants the call: abort its transfer and tell the
  // server (notifications/cancelled; on the modern wire closing the request's
  // stream is the cancellation). No CallFinished follows.
  void Cancel(CallId id, TimePoint now);
  // Daemon stopping or server retired: abort everything, fail pending calls
  // as transport ("gateway shutting down"), DELETE the session if one exists.
  // The driver runs the remaining transfers to completion (bounded by its own
  // grace time).
  void Shutdown(TimePoint now);

  // --- authorization (driven by whoever holds the credentials) ---
  // Every later request carries `Authorization: <value>`; empty = none.
  void SetAuthorization(Secret value);
  // New credentials: the requests refused with 401/403 are sent again (the
  // server never took them).
  void OnAuthorized(TimePoint now);
  // No credentials: like a failed attempt (error + back-off) before ready;
  // when ready, the waiting calls fail as transport with `reason`.
  void OnAuthorizationFailed(std::string reason, TimePoint now);

  // What the daemon learned earlier about this server's origin (EraCache):
  // the protocol version it spoke. A 2025 version skips the server/discover
  // probe until the server behaves otherwise; anything else changes nothing.
  // Call before Start.
  void SetEraHint(std::string_view version);

  // --- outputs ---
  std::vector<Action> TakeActions();
  std::optional<TimePoint> NextWakeup() const { return conversation_.NextWakeup(); }

  const std::string& name() const { return conversation_.name(); }
  Phase phase() const { return conversation_.phase(); }
  Status status() const { return conversation_.status(); }
  // A request was refused for lack of authorization and the session waits
  // for OnAuthorized or OnAuthorizationFailed.
  bool awaiting_authorization() const { return conversation_.awaiting_authorization(); }
  const std::string& reason() const { return conversation_.reason(); }  // empty unless kError
  std::shared_ptr<const ToolList> tools() const { return conversation_.tools(); }  // never null
  // "2026-07-28" on the modern wire, else what initialize negotiated; empty
  // before the first attempt got that far.
  const std::string& protocol_version() const { return conversation_.protocol_version(); }
  // Attempts begun to open an upstream session (handshake and listing): the
  // first, then one per reconnect after a failure, an expired session or an
  // era change. Only counted: no action follows a change of it.
  uint64_t attempts() const { return conversation_.attempts(); }
  // A local server: its stdout lines that were not JSON-RPC.
  uint64_t skipped_lines() const { return stdio_ ? stdio_->skipped_lines() : 0; }

 private:
  // ConversationOut: into the one list of actions.
  void Finished(CallFinished finished) override;
  void Changed() override;
  void Log(LogLevel level, std::string text) override;

  // Every event ends the same way: what waited for room goes out, and one
  // StateChanged when what hosts see changed.
  void EndEvent(TimePoint now);

  Wire& wire();

  std::vector<Action> actions_;
  std::unique_ptr<HttpWire> http_;    // a remote server
  std::unique_ptr<StdioWire> stdio_;  // a local server
  Conversation conversation_;
};

}  // namespace mcpgw::mcp
