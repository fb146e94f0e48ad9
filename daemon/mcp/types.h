// The plain types of an upstream MCP server's client, whatever it runs over:
// its bounds and deadlines, what hosts see of it (status), where its
// conversation is in its life (phase), how a call ends, and the actions a
// conversation asks its driver to carry out that no transport is involved
// in. The transports' own actions are in http_actions.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace mcpgw::mcp {

using mcpgw::Clock;
using mcpgw::Duration;
using mcpgw::TimePoint;

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

// Where the conversation is in its life. Status is derived from it and from
// whether the server was ever ready: a ready server stays ready (BEHAVIOR.md
// §3) while it re-initializes or backs off; its calls wait or fail. Waiting
// for credentials is no phase: the phase stays where the refusal struck and
// awaiting_authorization() says so.
enum class Phase {
  kIdle,         // constructed; Start() not called yet
  kDiscovering,  // the era probe of a new attempt: server/discover at
                 // 2026-07-28 (asked once more at a version a refusal lists).
                 // A modern answer lists tools next; anything else means a
                 // 2025 server, initialized next. Skipped while the server is
                 // known to speak 2025-11-25 and behaves like it.
  kConnecting,   // a legacy session's handshake: initialize, then
                 // notifications/initialized
  kListing,      // the new session lists every page of tools; it serves
                 // nothing before that (a restarted server may have others)
  kReady,        // serving calls; list_changed re-lists in the background;
                 // the stream of what the server sends unasked is open, or
                 // not offered
  kBackingOff,   // no usable session: the last attempt failed and the next
                 // starts after the back-off (1 s doubling to 60 s), or at
                 // once when a ready server gets a call
  kClosed,       // shut down: nothing starts; the transport may still end
                 // the session (a DELETE)
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

using CallId = uint64_t;

// How a call that was failed by the gateway's own shutdown reads.
inline constexpr std::string_view kShuttingDown = "gateway shutting down";
// The end of a call's error text when the server may have run it.
inline constexpr std::string_view kMayHaveRun =
    "; the tool may have run, and calling it again may run it again";

// The version the client names in clientInfo.
#ifdef MCPGW_VERSION
inline constexpr std::string_view kClientVersion = MCPGW_VERSION;
#else
inline constexpr std::string_view kClientVersion = "0.0.0";
#endif

// --- what a conversation asks of its driver ---

struct CallFinished {
  CallId id;
  CallOutcome outcome;
};
// Status, reason, tools or protocol version changed; read them with the
// accessors. At most one per event.
struct StateChanged {};
// Something an operator may want in the log. Secret-free: the text names no
// url, header value or session id; server text in it is cleaned. The driver
// adds the server's name.
enum class LogLevel { kDebug, kInfo, kWarn };
struct LogLine {
  LogLevel level;
  std::string text;
};

}  // namespace mcpgw::mcp
