// What an HTTP outcome means to a session: one pure function from the facts
// of a transfer — what it was for, the wire it went out on, its status and
// media type, whether it broke and whether its request may have reached the
// server, the error body it carried — to the remedy the session carries out
// (BEHAVIOR.md §3, §5, §6). It reads no session state: the session gathers
// the facts, including what it knows of the request (sent again already?
// resumable? can it wait for credentials?), and does what the verdict says.
// The rules are in outcome.cc in the order they are tried, and
// tests/daemon/mcp/outcome_test.cc states each one as a row.
//
// The rule that matters most (BEHAVIOR.md §5): a tools/call runs at most
// once. It is sent again only when the server provably never took it — a 404
// to the very POST that carried the session id, a 400 that says the server's
// era changed, a 401/403 held until credentials come — and a call that fails
// after it may have reached the server says so.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/text.h"
#include "daemon/mcp/types.h"

namespace mcpgw::mcp {

// What a transfer was for. A request's target is its role (wire.h).
enum class Target {
  kProbe,    // the era probe (server/discover): whatever comes is its answer
  kOpen,     // the request that opens a session (initialize)
  kRead,     // a request that may go out once more when the server never took it
             // (a tools/list page, a task's tasks/get or tasks/result)
  kCall,     // a request that runs at most once (tools/call, task-augmented or not)
  kConfirm,  // notifications/initialized, the end of the handshake
  kNotify,   // any other notification, or a reply to the server
  kListen,   // the GET stream (subscriptions/listen on the 2026-07-28 wire)
  kDelete,   // DELETE of an abandoned session
  kTell,     // a request whose answer is not read (tasks/cancel)
};
std::string_view TargetName(Target t);

// The body a response head announced, as the session reads it.
enum class BodyKind { kNone, kJson, kSse };

// The facts of one outcome. Fields of a part that did not happen keep their
// defaults.
struct Outcome {
  Target target = Target::kCall;

  // --- the transfer ---
  bool resuming = false;         // a GET resuming its request's stream (Last-Event-ID)
  bool modern = false;           // sent on the 2026-07-28 wire
  bool carried_session = false;  // it carried Mcp-Session-Id
  bool current_session = true;   // sent in the upstream session that is current now

  // --- the response head, once it arrived ---
  bool head = false;
  int status = 0;
  std::string_view media = {};   // "application/json": lower case, no parameters
  bool scope_challenge = false;  // WWW-Authenticate says error="insufficient_scope"

  // --- the end of the transfer, no answer to its request having come ---
  bool done = false;
  bool failed = false;              // the exchange broke (TransferResult::ok false) ...
  bool request_sent = true;         // ... after any of the request may have been written
  std::string_view error = {};      // the transport's words for the failure
  BodyKind body = BodyKind::kNone;  // what was being read
  // Non-empty: the response could not be used, for this reason (over a
  // bound, broken JSON, no response to this request). Decided at once,
  // whether or not the transfer ended.
  std::string_view invalid = {};

  // --- the JSON body of an error status (Remedy::kReadErrorBody), once read ---
  bool error_body = false;               // it was read (whole, bounded, a JSON object or not)
  int64_t modern_error = 0;              // the revision's own error it held (-32020..-32022), or 0
  std::string_view modern_message = {};  // that error's message, cleaned
  bool rpc_error = false;                // a JSON-RPC error response to this request (or id null)

  // --- what the session knows of the request ---
  bool resent = false;      // sent again once already (after a 404 or a 400)
  bool resumable = false;   // its stream gave a usable event id, resumptions remain,
                            // and its session is the current one
  bool can_hold = false;    // the session can wait for credentials, or waits already
  bool may_probe = false;   // initialize: the server was taken for 2025-11-25
                            // without a probe in this attempt
  bool had_stream = false;  // listen: this session's stream was open before
};

enum class Remedy {
  kNone,            // nothing to do now (a reason, when given, is worth a log line)
  kReadJson,        // a JSON body follows: read it whole, bounded
  kReadSse,         // an event stream follows: decode it as it comes
  kReadErrorBody,   // an error status whose JSON body may say what it means:
                    // read it (bounded), then judge again with it
  kAnswer,          // the error body is the server's JSON-RPC answer: deliver it
  kJudgeEra,        // server/discover: whatever came is the probe's answer
  kProbeEra,        // initialize refused the way a 2026-07-28 server refuses it:
                    // probe the era now
  kHold,            // refused for lack of authorization: hold it, ask for
                    // credentials, send it again once they come
  kResend,          // the server never took it: once more, in a new session
  kReprobe,         // refused as if the server's era changed: once more, after
                    // probing the era again
  kResume,          // its stream broke after an event id: GET with Last-Event-ID
  kFail,            // the request fails with `reason`
  kFailAttempt,     // the handshake failed: the attempt fails with `reason`
  kHandshakeDone,   // notifications/initialized accepted: list tools next
  kOpenStream,      // the GET stream is open
  kRetryStream,     // the GET stream ended: open it again after a pause
  kNoStream,        // the session offers no GET stream (stream unsupported)
  kSessionExpired,  // the GET stream's 404 says the session expired
};
std::string_view RemedyName(Remedy r);

struct Verdict {
  Remedy remedy = Remedy::kNone;
  std::string reason;         // the failure's text (kMayHaveRun ends a call's when it may have run)
  bool may_have_run = false;  // kFail: the request may have reached the server
  bool backend = false;       // kFail of a call: the server's own refusal, not transport
  // Non-empty: the upstream session the request was sent in is gone (a 404
  // to its session id), for this reason; the session opens a new one.
  std::string session_expired;
  // kReprobe: the refusal came from the current session, so its era is in
  // question (a request of a replaced session just waits for the new one).
  bool era_doubted = false;
  // kFail: the failure is the transport's or the server's passing trouble
  // (the exchange broke, nothing came, HTTP 408, 429 or 5xx), not an answer:
  // a read may be asked again later (a task's tasks/get).
  bool transient = false;
};

Verdict Classify(const Outcome& facts);

// The media type of a Content-Type value, as Outcome::media wants it.
using base::MediaType;

}  // namespace mcpgw::mcp
