// The classifier's rules, in the order they are tried. Each function below is
// one moment of a transfer (its head, its end, its error body) for one kind
// of target; what becomes of a request that ends without an answer is the
// retry table's (kRetryRules) to say.
#include "daemon/mcp/outcome.h"

#include <iterator>

#include "base/clean_text.h"
#include "base/text.h"
#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/modern_wire.h"

namespace mcpgw::mcp {

namespace {

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kEventStream = "text/event-stream";

bool Is2xx(int status) { return status >= 200 && status < 300; }

std::string StatusReason(int status) {
  if (status >= 300 && status < 400) {
    return "redirect refused (HTTP " + std::to_string(status) + ")";
  }
  return "HTTP " + std::to_string(status) + " from server";
}

std::string TransportReason(std::string_view error) {
  std::string text = base::CleanServerText(error);
  return text.empty() ? "transfer failed" : text;
}

Verdict Of(Remedy remedy, std::string reason = {}) {
  Verdict v;
  v.remedy = remedy;
  v.reason = std::move(reason);
  return v;
}

// What ended a request without an answer.
enum class Loss {
  kExpired,       // its POST, carrying the session id, was answered 404
  kRefused,       // 401, or 403 insufficient_scope
  kBroken,        // the exchange broke, or its stream ended, after the request
                  // may have reached the server
  kResumeFailed,  // a GET resuming its stream failed (404 included)
  kRejected,      // a 400 that says the server may speak another era now
  kFailed,        // anything else: an HTTP error, an unusable response, a
                  // transfer that never wrote the request
};

// The retry table. A request is sent again only when the server cannot have
// taken it.
struct RetryRule {
  Loss loss;
  Remedy remedy;
  bool may_have_run;  // when it fails here, the server may have run it
};
constexpr RetryRule kRetryRules[] = {
    // The 404 answered this very POST: the server never saw the request.
    {Loss::kExpired, Remedy::kResend, false},
    // Refused before it ran.
    {Loss::kRefused, Remedy::kHold, false},
    // Resumed if the server made that possible.
    {Loss::kBroken, Remedy::kResume, true},
    // Nothing more can be learnt.
    {Loss::kResumeFailed, Remedy::kFail, true},
    // Refused before it ran, by a server that may have changed era.
    {Loss::kRejected, Remedy::kReprobe, false},
    {Loss::kFailed, Remedy::kFail, false},
};

const RetryRule& RuleFor(Loss loss) {
  for (const RetryRule& rule : kRetryRules) {
    if (rule.loss == loss) return rule;
  }
  return kRetryRules[std::size(kRetryRules) - 1];
}

// The retry table's remedy, narrowed by what the session knows of the
// request: it is sent again once at most, and only a call or a listing page
// (a new attempt sends its own handshake and probe); it is held only where
// the session can wait; resumed only when its stream allows.
Verdict Lost(const Outcome& o, Loss loss, std::string reason) {
  const RetryRule& rule = RuleFor(loss);
  Verdict v = Of(rule.remedy, std::move(reason));
  const bool again = !o.resent && (o.target == Target::kCall || o.target == Target::kRead);
  if ((v.remedy == Remedy::kResend || v.remedy == Remedy::kReprobe) && !again) {
    v.remedy = Remedy::kFail;
  }
  if (v.remedy == Remedy::kHold && !o.can_hold) v.remedy = Remedy::kFail;
  if (v.remedy == Remedy::kResume && !o.resumable) v.remedy = Remedy::kFail;
  if (v.remedy == Remedy::kFail && rule.may_have_run) {
    v.may_have_run = true;
    if (o.target == Target::kCall) v.reason += kMayHaveRun;
  }
  // A 404 to the current session's id says that session is gone, whatever
  // becomes of the request.
  if (o.head && o.status == 404 && o.carried_session && o.current_session) {
    v.session_expired = o.resuming ? "HTTP 404 resuming a stream" : StatusReason(404);
  }
  v.era_doubted = v.remedy == Remedy::kReprobe && o.current_session;
  v.transient = v.remedy == Remedy::kFail &&
                (loss == Loss::kBroken || loss == Loss::kResumeFailed || o.failed ||
                 (o.head && (o.status >= 500 || o.status == 408 || o.status == 429)));
  return v;
}

// An error status whose head said nothing final.
Verdict Refusal(const Outcome& o) {
  const bool era_hint = o.status == 400 || o.status == 404 || o.status == 405;
  // Its JSON body says what it means: the probe's verdict, or one of the
  // modern wire's errors.
  if (o.media == kJson && (o.target == Target::kProbe || (o.modern && era_hint))) {
    return Of(Remedy::kReadErrorBody);
  }
  // Whatever a 2025 server makes of the probe is its answer.
  if (o.target == Target::kProbe) return Of(Remedy::kJudgeEra);
  if (o.target == Target::kOpen && era_hint && o.may_probe) {
    return Of(Remedy::kProbeEra, StatusReason(o.status));
  }
  // On the legacy wire any 400 to a request of the session; on the modern
  // wire a 400 without a body that says otherwise.
  if (o.status == 400 && (o.carried_session || o.modern)) {
    return Lost(o, Loss::kRejected, StatusReason(o.status));
  }
  return Lost(o, Loss::kFailed, StatusReason(o.status));
}

Verdict RequestHead(const Outcome& o) {
  if (o.resuming && !Is2xx(o.status)) {
    return Lost(o, Loss::kResumeFailed,
                "its stream broke and resuming it failed: " + StatusReason(o.status));
  }
  // MCP authorization, "Scope Challenge Handling".
  if (o.status == 401 || (o.status == 403 && o.scope_challenge)) {
    return Lost(o, Loss::kRefused, StatusReason(o.status));
  }
  if (o.status == 404 && o.carried_session) {
    return Lost(o, Loss::kExpired, StatusReason(o.status));
  }
  if (!Is2xx(o.status)) return Refusal(o);
  // A resumption answers with events only.
  if (o.media == kJson && !o.resuming) return Of(Remedy::kReadJson);
  if (o.media == kEventStream) return Of(Remedy::kReadSse);
  if (o.target == Target::kProbe) return Of(Remedy::kJudgeEra);
  if (o.status == 202) {
    return Lost(o, Loss::kFailed, "server accepted the request without answering it");
  }
  return Lost(o, Loss::kFailed, "unexpected content type from server");
}

// The transfer ended and no answer to the request came.
Verdict RequestEnd(const Outcome& o) {
  if (o.body == BodyKind::kSse) {
    return Lost(o, Loss::kBroken,
                o.failed ? TransportReason(o.error) : "stream ended before the response");
  }
  if (o.body == BodyKind::kJson) {
    if (o.failed) return Lost(o, Loss::kBroken, TransportReason(o.error));
    return Lost(o, Loss::kFailed, "invalid response from server");
  }
  if (o.failed) {
    if (o.resuming) return Lost(o, Loss::kResumeFailed, TransportReason(o.error));
    // Nothing of it was written: it cannot have run.
    if (!o.request_sent) return Lost(o, Loss::kFailed, TransportReason(o.error));
    return Lost(o, Loss::kBroken, TransportReason(o.error));
  }
  return Lost(o, o.resuming ? Loss::kResumeFailed : Loss::kFailed, "no response from server");
}

// The JSON body of an error status, read (Remedy::kReadErrorBody).
Verdict ErrorBody(const Outcome& o) {
  if (o.target == Target::kProbe) return Of(Remedy::kJudgeEra);
  const std::string error = o.modern_error == 0 ? std::string()
                                                : "error " + std::to_string(o.modern_error) + ": " +
                                                      std::string(o.modern_message);
  // The server wants client capabilities the gateway does not declare: its
  // own, final refusal.
  if (o.modern_error == kMissingRequiredClientCapability) {
    Verdict v = Of(Remedy::kFail,
                   "the server requires client capabilities the gateway does not have (it "
                   "declares none): " +
                       error);
    v.backend = true;
    return v;
  }
  std::string reason = "HTTP " + std::to_string(o.status) + " from server";
  if (!error.empty()) reason += ": " + error;
  // A header mismatch (the tool's annotations changed), an unsupported
  // version, or a 400 of no modern shape: the server's era is in question.
  if (o.status == 400) return Lost(o, Loss::kRejected, std::move(reason));
  // The server's own error answer to the request (a 404 with -32601, say).
  if (o.rpc_error) return Of(Remedy::kAnswer);
  return Lost(o, Loss::kFailed, std::move(reason));
}

Verdict Request(const Outcome& o) {
  if (!o.invalid.empty()) {
    // Whatever a 2025 server makes of the probe, it is no discover result.
    if (o.target == Target::kProbe) return Of(Remedy::kJudgeEra);
    return Lost(o, Loss::kFailed, std::string(o.invalid));
  }
  if (o.error_body) return ErrorBody(o);
  if (o.done) return RequestEnd(o);
  return RequestHead(o);
}

Verdict Initialized(const Outcome& o) {
  if (!o.invalid.empty()) return Of(Remedy::kFailAttempt, std::string(o.invalid));
  if (!o.done) {
    return Is2xx(o.status) ? Of(Remedy::kNone) : Of(Remedy::kFailAttempt, StatusReason(o.status));
  }
  if (o.failed) return Of(Remedy::kFailAttempt, TransportReason(o.error));
  if (!Is2xx(o.status)) return Of(Remedy::kFailAttempt, "no response from server");
  return Of(Remedy::kHandshakeDone);
}

Verdict Listen(const Outcome& o) {
  // Only its events are bounded; one over the bound drops the stream.
  if (!o.invalid.empty()) return Of(Remedy::kRetryStream, std::string(o.invalid));
  if (o.done) return Of(Remedy::kRetryStream, o.failed ? TransportReason(o.error) : "");
  if (Is2xx(o.status) && o.media == kEventStream) return Of(Remedy::kOpenStream);
  if (o.modern) {
    // Refused: the server offers none. Answered at once: the subscription
    // ended, and is asked for again.
    if (o.status >= 400 && o.status < 500) {
      return Of(Remedy::kNoStream, "the server refused subscriptions/listen (" +
                                       StatusReason(o.status) +
                                       "); tools are listed again when the listing is stale");
    }
    return Of(Remedy::kRetryStream, StatusReason(o.status));
  }
  if (o.status == 405) return Of(Remedy::kNoStream, "the server offers no GET stream (HTTP 405)");
  if (o.status == 404 && o.carried_session) {
    // A stream this session had is gone: the session expired. A 404 to a
    // session's first GET just means it has no stream to offer.
    if (o.had_stream) return Of(Remedy::kSessionExpired, "HTTP 404 on the GET stream");
    return Of(Remedy::kNoStream, "the server offers no GET stream (HTTP 404)");
  }
  return Of(Remedy::kRetryStream, StatusReason(o.status));
}

// Notifications, replies, DELETEs and tasks/cancel: nothing waits on their
// answer; a failed DELETE or tasks/cancel is worth a log line.
Verdict Quiet(const Outcome& o) {
  const bool logged = o.target == Target::kDelete || o.target == Target::kTell;
  if (logged && o.done && (o.failed || !Is2xx(o.status))) {
    const std::string_view what =
        o.target == Target::kDelete ? "DELETE of an abandoned session" : "tasks/cancel";
    return Of(Remedy::kNone, std::string(what) + ": " +
                                 (o.failed ? TransportReason(o.error) : StatusReason(o.status)));
  }
  return Of(Remedy::kNone);
}

}  // namespace

std::string_view TargetName(Target t) {
  switch (t) {
    case Target::kProbe:
      return "server/discover";
    case Target::kOpen:
      return "initialize";
    case Target::kRead:
      return "a request sent again freely";
    case Target::kCall:
      return "a request run at most once";
    case Target::kConfirm:
      return "notifications/initialized";
    case Target::kNotify:
      return "notification";
    case Target::kListen:
      return "GET stream";
    case Target::kDelete:
      return "DELETE";
    case Target::kTell:
      return "a request whose answer is not read";
  }
  return "notification";
}

std::string_view RemedyName(Remedy r) {
  switch (r) {
    case Remedy::kNone:
      return "none";
    case Remedy::kReadJson:
      return "read JSON";
    case Remedy::kReadSse:
      return "read SSE";
    case Remedy::kReadErrorBody:
      return "read the error body";
    case Remedy::kAnswer:
      return "answer";
    case Remedy::kJudgeEra:
      return "judge the era";
    case Remedy::kProbeEra:
      return "probe the era";
    case Remedy::kHold:
      return "hold for authorization";
    case Remedy::kResend:
      return "resend in a new session";
    case Remedy::kReprobe:
      return "resend after probing the era";
    case Remedy::kResume:
      return "resume with Last-Event-ID";
    case Remedy::kFail:
      return "fail";
    case Remedy::kFailAttempt:
      return "fail the attempt";
    case Remedy::kHandshakeDone:
      return "handshake done";
    case Remedy::kOpenStream:
      return "stream open";
    case Remedy::kRetryStream:
      return "reopen the stream later";
    case Remedy::kNoStream:
      return "stream unsupported";
    case Remedy::kSessionExpired:
      return "session expired";
  }
  return "none";
}

Verdict Classify(const Outcome& facts) {
  switch (facts.target) {
    case Target::kProbe:
    case Target::kOpen:
    case Target::kRead:
    case Target::kCall:
      return Request(facts);
    case Target::kConfirm:
      return Initialized(facts);
    case Target::kListen:
      return Listen(facts);
    case Target::kNotify:
    case Target::kDelete:
    case Target::kTell:
      return Quiet(facts);
  }
  return Quiet(facts);
}

}  // namespace mcpgw::mcp
