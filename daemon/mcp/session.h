// Session: the sans-I/O state machine of one upstream MCP server (SPEC §3, §5,
// §6). It owns no socket, no curl handle and reads no clock. Its driver (the
// daemon's worker thread, or a unit test with a fake clock) feeds it events —
// transfer bytes and completions, timer expiry, calls and cancellations — each
// with the current time, then drains the actions it queued: HTTP requests to
// start or abort, calls finished, status changes. After every event the driver
// re-arms one timer at NextWakeup().
//
// Transfers are numbered by the session (TransferId, unique per session). The
// driver reports every started transfer exactly once through OnTransferDone,
// unless the session aborted it first (then no further event for it arrives;
// events for unknown ids are ignored).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/config.h"

namespace mcpgw::mcp {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = Clock::duration;

// Bounds and deadlines; all configurable, these are the defaults.
struct SessionLimits {
  size_t max_response_bytes = 16u << 20;                      // per HTTP response body
  int max_json_depth = 128;                                   // nesting of any JSON message
  size_t max_sse_event_bytes = 16u << 20;                     // one SSE event's data
  size_t max_tools = 10000;                                   // tools per server
  int max_list_pages = 1000;                                  // tools/list pages per listing
  Duration first_attempt_deadline = std::chrono::minutes(2);  // connect..last page
  Duration call_deadline = std::chrono::minutes(5);
  Duration request_deadline = std::chrono::minutes(2);  // any other request (re-list, re-init)
  Duration backoff_initial = std::chrono::seconds(1);
  Duration backoff_max = std::chrono::seconds(60);
};

enum class Status { kLoading, kReady, kError };
std::string_view StatusName(Status s);  // "loading", "ready", "error"

// One tool as the server listed it. Strings are untrusted server text.
struct Tool {
  std::string name;
  std::string description;        // description, else title, else name (§4)
  std::string input_schema_json;  // compact JSON object text ({"type":"object"} if absent)
  bool read_only_hint = false;    // annotations.readOnlyHint === true (untrusted)
};
using ToolList = std::vector<Tool>;  // sorted by name (byte order), names unique

// The error kinds a call can end in (the subset of SPEC §4 a session produces).
enum class CallErrorKind { kNone, kBackend, kTransport };

struct CallOutcome {
  CallErrorKind kind = CallErrorKind::kNone;
  std::string text;  // result text (§5) on success; a message otherwise
  // For the call log: the exact `params` bytes of the tools/call sent (empty if
  // nothing was sent) and the response body bytes received.
  std::string request_params;
  size_t bytes_out = 0;
  size_t bytes_in = 0;
};

using TransferId = uint64_t;
using CallId = uint64_t;

enum class HttpMethod { kPost, kGet, kDelete };

// Actions the driver carries out.
struct StartTransfer {
  TransferId id;
  HttpMethod method;
  const config::RemoteServer* server;  // url and configured headers (owned by the session)
  // Protocol headers to add after the configured ones, e.g. {"Accept", ...},
  // {"Content-Type", "application/json"}, {"Mcp-Session-Id", ...},
  // {"MCP-Protocol-Version", ...}, {"Last-Event-ID", ...}.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // POST only
};
struct AbortTransfer {
  TransferId id;
};
struct CallFinished {
  CallId id;
  CallOutcome outcome;
};
// Status, reason or tools changed; read them with status()/reason()/tools().
struct StateChanged {};
using Action = std::variant<StartTransfer, AbortTransfer, CallFinished, StateChanged>;

// How a transfer ended, from the driver's point of view.
struct TransferResult {
  bool ok = true;     // the HTTP exchange completed (any status code)
  std::string error;  // when !ok: short, human, secret-free ("connection refused",
                      // "TLS: certificate verify failed", "timed out")
};

class Session {
 public:
  Session(std::string name, config::RemoteServer server, SessionLimits limits = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // --- events ---
  // Begins the first attempt (initialize, notifications/initialized, tools/list…).
  void Start(TimePoint now);
  // Response status and headers of a transfer, once, before any body bytes.
  void OnResponseHead(TransferId id, int http_status, std::string_view content_type,
                      std::string_view session_id, TimePoint now);
  // Body bytes as they arrive (any split).
  void OnResponseData(TransferId id, std::string_view bytes, TimePoint now);
  void OnTransferDone(TransferId id, const TransferResult& result, TimePoint now);
  // The timer armed at NextWakeup() fired (calling it early is harmless).
  void OnTimer(TimePoint now);

  // A call of `tool` with `arguments_json` (a JSON object's text). Ends in
  // exactly one CallFinished unless cancelled first.
  void Call(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  // The caller no longer wants the call: abort its transfer and tell the
  // server (notifications/cancelled). No CallFinished follows.
  void Cancel(CallId id, TimePoint now);
  // Daemon stopping: abort everything, fail pending calls as transport
  // ("gateway shutting down"), DELETE the session if one exists. The driver
  // runs the remaining transfers to completion (bounded by its own grace time).
  void Shutdown(TimePoint now);

  // --- outputs ---
  std::vector<Action> TakeActions();
  std::optional<TimePoint> NextWakeup() const;

  const std::string& name() const;
  Status status() const;
  const std::string& reason() const;              // empty unless status is kError
  std::shared_ptr<const ToolList> tools() const;  // never null
  const std::string& protocol_version() const;    // negotiated, empty before

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw::mcp
