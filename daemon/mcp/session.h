// Session: the sans-I/O state machine of one upstream MCP server (BEHAVIOR.md §3, §5,
// §6). It owns no socket, no curl handle and reads no clock. Its driver (the
// daemon's ServerHost, or a unit test with a fake clock) feeds it events —
// response heads and bytes, transfer completions, timer expiry, calls,
// cancellations, authorization outcomes — each with the current time, then
// drains the actions it queued: HTTP requests to start or abort, calls
// finished, state changes, log lines. After every event the driver re-arms
// one timer at NextWakeup().
//
// The session is always in exactly one Phase (below), its lifecycle; beside
// it, small machines of their own say whether it waits for credentials
// (auth_hold.h), what became of its GET stream (listen_stream.h) and which
// protocol era the server speaks (era.h). session.cc holds the phases' table
// of allowed moves and the one function that makes them. Transfers are
// numbered by the session (TransferId, unique per session) and stamped with
// the generation of the upstream session they belong to, so events of a
// replaced session cannot touch the new one. The driver reports every started
// transfer exactly once through OnTransferDone, unless the session aborted it
// first (then no further event for it arrives; events for unknown ids are
// ignored).
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
#include "daemon/mcp/tool_list.h"
#include "daemon/net/http_types.h"

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
  Duration notify_deadline = std::chrono::seconds(30);  // a notification, a reply, a DELETE
  // The standalone GET stream: its response head must come within
  // request_deadline; after listen_lifetime it is closed and opened afresh.
  Duration listen_lifetime = std::chrono::minutes(10);
  Duration backoff_initial = std::chrono::seconds(1);
  Duration backoff_max = std::chrono::seconds(60);
};

// What hosts see (BEHAVIOR.md §3).
enum class Status { kLoading, kReady, kError };
std::string_view StatusName(Status s);  // "loading", "ready", "error"

// Where the session is in its life. Status is derived from it and from
// whether the server was ever ready: a ready server stays ready (BEHAVIOR.md §3)
// while it re-initializes or backs off; its calls wait or fail. Waiting for
// credentials is no phase: the phase stays where the refusal struck and
// awaiting_authorization() says so.
enum class Phase {
  kIdle,         // constructed; Start() not called yet
  kDiscovering,  // the era probe of a new attempt: server/discover at
                 // 2026-07-28 (asked once more at a version a refusal lists).
                 // A modern answer lists tools next; anything else means a
                 // 2025 server, initialized next. Skipped while the server is
                 // known to speak 2025-11-25 and behaves like it.
  kConnecting,   // a legacy upstream session's handshake: initialize, then
                 // notifications/initialized
  kListing,      // the new session lists every page of tools; it serves
                 // nothing before that (a restarted server may have others)
  kReady,        // serving calls; list_changed re-lists in the background;
                 // the standalone GET stream (modern: a subscriptions/listen
                 // request) is open, or not offered
  kBackingOff,   // no usable session: the last attempt failed and the next
                 // starts after the back-off (1 s doubling to 60 s), or at
                 // once when a ready server gets a call
  kClosed,       // shut down: nothing starts; a DELETE may still run
};
std::string_view PhaseName(Phase p);

// The error kinds a call can end in (the subset of BEHAVIOR.md §4 a session produces).
enum class CallErrorKind { kNone, kBackend, kTransport };

struct CallOutcome {
  CallErrorKind kind = CallErrorKind::kNone;
  std::string text;  // result text (BEHAVIOR §5) on success; a message otherwise
  // For the call log: the exact `params` bytes of the tools/call sent (empty if
  // nothing was sent) and the response body bytes received.
  std::string request_params;
  size_t bytes_out = 0;
  size_t bytes_in = 0;
  // Set when the gateway cut the text to its client's bound (BEHAVIOR.md §11):
  // the whole text's size, and the file that keeps it (empty when none could).
  size_t full_text_bytes = 0;
  std::string kept_file;
};

using TransferId = uint64_t;
using CallId = uint64_t;

// Actions the driver carries out.
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
struct CallFinished {
  CallId id;
  CallOutcome outcome;
};
// Status, reason, tools or protocol version changed; read them with the
// accessors. At most one per event.
struct StateChanged {};
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
// Something an operator may want in the log. Secret-free: the text names no
// url, header value or session id; server text in it is cleaned. The driver
// adds the server's name.
enum class LogLevel { kDebug, kInfo, kWarn };
struct LogLine {
  LogLevel level;
  std::string text;
};
using Action = std::variant<StartTransfer, AbortTransfer, CallFinished, StateChanged,
                            AuthorizationNeeded, LogLine>;

class Session {
 public:
  Session(std::string name, config::RemoteServer server, SessionLimits limits = {});
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
  std::optional<TimePoint> NextWakeup() const;

  const std::string& name() const;
  Phase phase() const;
  Status status() const;
  // A request was refused for lack of authorization and the session waits
  // for OnAuthorized or OnAuthorizationFailed.
  bool awaiting_authorization() const;
  const std::string& reason() const;              // empty unless status is kError
  std::shared_ptr<const ToolList> tools() const;  // never null
  // "2026-07-28" on the modern wire, else what initialize negotiated; empty
  // before the first attempt got that far.
  const std::string& protocol_version() const;
  // Attempts begun to open an upstream session (handshake and listing): the
  // first, then one per reconnect after a failure, an expired session or an
  // era change. Only counted: no action follows a change of it.
  uint64_t attempts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw::mcp
