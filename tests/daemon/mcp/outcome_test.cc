// What an HTTP outcome means (daemon/mcp/outcome.h), one row per rule: the
// facts of a transfer → the remedy the session carries out. Read it as the
// specification of BEHAVIOR.md §3, §5 and §6 for a session's HTTP exchanges;
// the session tests check that each remedy is carried out.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "daemon/mcp/outcome.h"

namespace mcpgw::mcp {
namespace {

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kSse = "text/event-stream";
const std::string kRun(kMayHaveRun);

struct Row {
  const char* rule;
  Outcome facts;
  Remedy remedy;
  std::string reason = "";  // exact
  bool may_have_run = false;
  std::string session_expired = "";
  bool backend = false;
  bool era_doubted = false;
};

void Check(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    INFO("rule: " << row.rule);
    const Verdict v = Classify(row.facts);
    CHECK(RemedyName(v.remedy) == RemedyName(row.remedy));
    CHECK(v.reason == row.reason);
    CHECK(v.may_have_run == row.may_have_run);
    CHECK(v.session_expired == row.session_expired);
    CHECK(v.backend == row.backend);
    CHECK(v.era_doubted == row.era_doubted);
  }
}

TEST_CASE("outcome: a request's response head", "[outcome]") {
  Check({
      {.rule = "a JSON answer is read whole",
       .facts = {.target = Target::kCall, .head = true, .status = 200, .media = kJson},
       .remedy = Remedy::kReadJson},
      {.rule = "an event stream is decoded as it comes",
       .facts = {.target = Target::kCall, .head = true, .status = 200, .media = kSse},
       .remedy = Remedy::kReadSse},
      {.rule = "a resumption answers with events only",
       .facts =
           {.target = Target::kCall, .resuming = true, .head = true, .status = 200, .media = kJson},
       .remedy = Remedy::kFail,
       .reason = "unexpected content type from server"},
      {.rule = "202 is no answer",
       .facts = {.target = Target::kCall, .head = true, .status = 202},
       .remedy = Remedy::kFail,
       .reason = "server accepted the request without answering it"},
      {.rule = "another content type is no answer",
       .facts = {.target = Target::kCall, .head = true, .status = 200, .media = "text/html"},
       .remedy = Remedy::kFail,
       .reason = "unexpected content type from server"},
      {.rule = "a redirect is refused",
       .facts = {.target = Target::kCall, .carried_session = true, .head = true, .status = 307},
       .remedy = Remedy::kFail,
       .reason = "redirect refused (HTTP 307)"},
      {.rule = "another error status fails it",
       .facts = {.target = Target::kCall, .carried_session = true, .head = true, .status = 500},
       .remedy = Remedy::kFail,
       .reason = "HTTP 500 from server"},
  });
}

TEST_CASE("outcome: a request is sent again only when the server never took it", "[outcome]") {
  Check({
      {.rule = "404 to a POST carrying the current session's id: once more, in a new session",
       .facts = {.target = Target::kCall, .carried_session = true, .head = true, .status = 404},
       .remedy = Remedy::kResend,
       .reason = "HTTP 404 from server",
       .session_expired = "HTTP 404 from server"},
      {.rule = "404 from a session replaced meanwhile: once more, in the new one",
       .facts = {.target = Target::kCall,
                 .carried_session = true,
                 .current_session = false,
                 .head = true,
                 .status = 404},
       .remedy = Remedy::kResend,
       .reason = "HTTP 404 from server"},
      {.rule = "a listing page answered 404 is listed anew in the new session",
       .facts = {.target = Target::kRead, .carried_session = true, .head = true, .status = 404},
       .remedy = Remedy::kResend,
       .reason = "HTTP 404 from server",
       .session_expired = "HTTP 404 from server"},
      {.rule = "404 to a call sent again already: it fails, and the session is gone",
       .facts = {.target = Target::kCall,
                 .carried_session = true,
                 .head = true,
                 .status = 404,
                 .resent = true},
       .remedy = Remedy::kFail,
       .reason = "HTTP 404 from server",
       .session_expired = "HTTP 404 from server"},
      {.rule = "404 without a session id says nothing of a session",
       .facts = {.target = Target::kCall, .head = true, .status = 404},
       .remedy = Remedy::kFail,
       .reason = "HTTP 404 from server"},
      {.rule =
           "400 to a request of a 2025 session: the era may have changed; probe, then once more",
       .facts = {.target = Target::kCall, .carried_session = true, .head = true, .status = 400},
       .remedy = Remedy::kReprobe,
       .reason = "HTTP 400 from server",
       .era_doubted = true},
      {.rule = "400 to a request of a replaced session: once more, no new probe",
       .facts = {.target = Target::kCall,
                 .carried_session = true,
                 .current_session = false,
                 .head = true,
                 .status = 400},
       .remedy = Remedy::kReprobe,
       .reason = "HTTP 400 from server"},
      {.rule = "400 without a body on the modern wire: the era may have changed",
       .facts = {.target = Target::kCall, .modern = true, .head = true, .status = 400},
       .remedy = Remedy::kReprobe,
       .reason = "HTTP 400 from server",
       .era_doubted = true},
      {.rule = "400 to a call sent again already fails it",
       .facts = {.target = Target::kCall,
                 .carried_session = true,
                 .head = true,
                 .status = 400,
                 .resent = true},
       .remedy = Remedy::kFail,
       .reason = "HTTP 400 from server"},
  });
}

TEST_CASE("outcome: authorization refusals wait for credentials", "[outcome]") {
  Check({
      {.rule = "401 is held until credentials come",
       .facts = {.target = Target::kCall,
                 .carried_session = true,
                 .head = true,
                 .status = 401,
                 .can_hold = true},
       .remedy = Remedy::kHold,
       .reason = "HTTP 401 from server"},
      {.rule = "403 asking for more scope is held",
       .facts = {.target = Target::kCall,
                 .head = true,
                 .status = 403,
                 .scope_challenge = true,
                 .can_hold = true},
       .remedy = Remedy::kHold,
       .reason = "HTTP 403 from server"},
      {.rule = "the probe refused 401 is held too",
       .facts = {.target = Target::kProbe,
                 .modern = true,
                 .head = true,
                 .status = 401,
                 .media = kJson,
                 .can_hold = true},
       .remedy = Remedy::kHold,
       .reason = "HTTP 401 from server"},
      {.rule = "403 without a scope challenge is a plain error",
       .facts = {.target = Target::kCall, .head = true, .status = 403, .can_hold = true},
       .remedy = Remedy::kFail,
       .reason = "HTTP 403 from server"},
      {.rule = "401 where the session cannot wait (backing off) fails it",
       .facts = {.target = Target::kCall, .head = true, .status = 401},
       .remedy = Remedy::kFail,
       .reason = "HTTP 401 from server"},
  });
}

TEST_CASE("outcome: a call that may have reached the server says so", "[outcome]") {
  Check({
      {.rule = "its stream ended after an event id: resumed",
       .facts = {.target = Target::kCall, .done = true, .body = BodyKind::kSse, .resumable = true},
       .remedy = Remedy::kResume,
       .reason = "stream ended before the response"},
      {.rule = "its stream ended and cannot be resumed",
       .facts = {.target = Target::kCall, .done = true, .body = BodyKind::kSse},
       .remedy = Remedy::kFail,
       .reason = "stream ended before the response" + kRun,
       .may_have_run = true},
      {.rule = "its stream broke",
       .facts = {.target = Target::kCall,
                 .done = true,
                 .failed = true,
                 .error = "connection reset by peer",
                 .body = BodyKind::kSse},
       .remedy = Remedy::kFail,
       .reason = "connection reset by peer" + kRun,
       .may_have_run = true},
      {.rule =
           "the connection was lost after the request was sent (the transport re-sends no call)",
       .facts = {.target = Target::kCall,
                 .done = true,
                 .failed = true,
                 .request_sent = true,
                 .error = "the connection was lost after the request was sent"},
       .remedy = Remedy::kFail,
       .reason = "the connection was lost after the request was sent" + kRun,
       .may_have_run = true},
      {.rule = "its JSON answer broke off",
       .facts = {.target = Target::kCall,
                 .head = true,
                 .status = 200,
                 .done = true,
                 .failed = true,
                 .error = "connection reset by peer",
                 .body = BodyKind::kJson},
       .remedy = Remedy::kFail,
       .reason = "connection reset by peer" + kRun,
       .may_have_run = true},
      {.rule = "a resumption that failed",
       .facts = {.target = Target::kCall,
                 .resuming = true,
                 .done = true,
                 .failed = true,
                 .error = "connection refused"},
       .remedy = Remedy::kFail,
       .reason = "connection refused" + kRun,
       .may_have_run = true},
      {.rule = "a resumption answered 404: and the session is gone",
       .facts = {.target = Target::kCall,
                 .resuming = true,
                 .carried_session = true,
                 .head = true,
                 .status = 404},
       .remedy = Remedy::kFail,
       .reason = "its stream broke and resuming it failed: HTTP 404 from server" + kRun,
       .may_have_run = true,
       .session_expired = "HTTP 404 resuming a stream"},
      {.rule = "a resumption refused otherwise",
       .facts = {.target = Target::kCall,
                 .resuming = true,
                 .carried_session = true,
                 .head = true,
                 .status = 405},
       .remedy = Remedy::kFail,
       .reason = "its stream broke and resuming it failed: HTTP 405 from server" + kRun,
       .may_have_run = true},
      {.rule = "a listing page's broken stream fails the listing (no call, no warning)",
       .facts = {.target = Target::kRead, .done = true, .body = BodyKind::kSse},
       .remedy = Remedy::kFail,
       .reason = "stream ended before the response",
       .may_have_run = true},
  });
}

TEST_CASE("outcome: a call that cannot have run fails plainly", "[outcome]") {
  Check({
      {.rule = "nothing of the request was written",
       .facts = {.target = Target::kCall,
                 .done = true,
                 .failed = true,
                 .request_sent = false,
                 .error = "connection refused"},
       .remedy = Remedy::kFail,
       .reason = "connection refused"},
      {.rule = "a transport failure without words",
       .facts = {.target = Target::kCall, .done = true, .failed = true, .request_sent = false},
       .remedy = Remedy::kFail,
       .reason = "transfer failed"},
      {.rule = "the exchange ended without any response",
       .facts = {.target = Target::kCall, .done = true},
       .remedy = Remedy::kFail,
       .reason = "no response from server"},
      {.rule = "an answer over a bound (the server answered: no resumption, no retry)",
       .facts = {.target = Target::kCall,
                 .head = true,
                 .status = 200,
                 .invalid = "response exceeds 1 KiB"},
       .remedy = Remedy::kFail,
       .reason = "response exceeds 1 KiB"},
      {.rule = "broken JSON",
       .facts = {.target = Target::kCall,
                 .head = true,
                 .status = 200,
                 .done = true,
                 .body = BodyKind::kJson,
                 .invalid = "invalid JSON from server"},
       .remedy = Remedy::kFail,
       .reason = "invalid JSON from server"},
  });
}

TEST_CASE("outcome: the modern wire's error bodies", "[outcome]") {
  Check({
      {.rule = "400, 404 or 405 with a JSON body: read it first",
       .facts =
           {.target = Target::kCall, .modern = true, .head = true, .status = 404, .media = kJson},
       .remedy = Remedy::kReadErrorBody},
      {.rule = "another status's body is not read",
       .facts =
           {.target = Target::kCall, .modern = true, .head = true, .status = 500, .media = kJson},
       .remedy = Remedy::kFail,
       .reason = "HTTP 500 from server"},
      {.rule = "a missing client capability is the server's own refusal",
       .facts = {.target = Target::kCall,
                 .modern = true,
                 .head = true,
                 .status = 400,
                 .done = true,
                 .body = BodyKind::kJson,
                 .error_body = true,
                 .modern_error = -32021,
                 .modern_message = "needs sampling"},
       .remedy = Remedy::kFail,
       .reason =
           "the server requires client capabilities the gateway does not have (it declares none): "
           "error -32021: needs sampling",
       .backend = true},
      {.rule = "a header mismatch: the era is in question",
       .facts = {.target = Target::kCall,
                 .modern = true,
                 .head = true,
                 .status = 400,
                 .done = true,
                 .body = BodyKind::kJson,
                 .error_body = true,
                 .modern_error = -32020,
                 .modern_message = "Header mismatch",
                 .rpc_error = true},
       .remedy = Remedy::kReprobe,
       .reason = "HTTP 400 from server: error -32020: Header mismatch",
       .era_doubted = true},
      {.rule = "a 400 body that is no JSON object: the era is in question",
       .facts = {.target = Target::kCall,
                 .modern = true,
                 .head = true,
                 .status = 400,
                 .done = true,
                 .error_body = true},
       .remedy = Remedy::kReprobe,
       .reason = "HTTP 400 from server",
       .era_doubted = true},
      {.rule = "a JSON-RPC error answering the request is the server's answer",
       .facts = {.target = Target::kCall,
                 .modern = true,
                 .head = true,
                 .status = 404,
                 .done = true,
                 .body = BodyKind::kJson,
                 .error_body = true,
                 .rpc_error = true},
       .remedy = Remedy::kAnswer},
      {.rule = "any other body: the status says it",
       .facts = {.target = Target::kCall,
                 .modern = true,
                 .head = true,
                 .status = 405,
                 .done = true,
                 .error_body = true},
       .remedy = Remedy::kFail,
       .reason = "HTTP 405 from server"},
  });
}

TEST_CASE("outcome: the era probe and the handshake", "[outcome]") {
  Check({
      {.rule = "the probe refused with a JSON body: read it for the verdict",
       .facts =
           {.target = Target::kProbe, .modern = true, .head = true, .status = 400, .media = kJson},
       .remedy = Remedy::kReadErrorBody},
      {.rule = "the probe's error body is the verdict's to judge",
       .facts = {.target = Target::kProbe,
                 .modern = true,
                 .head = true,
                 .status = 400,
                 .done = true,
                 .error_body = true,
                 .modern_error = -32021},
       .remedy = Remedy::kJudgeEra},
      {.rule = "the probe refused without JSON: a 2025 server's answer",
       .facts = {.target = Target::kProbe,
                 .modern = true,
                 .head = true,
                 .status = 404,
                 .media = "text/plain"},
       .remedy = Remedy::kJudgeEra},
      {.rule = "the probe answered 202 or text: a 2025 server's answer",
       .facts = {.target = Target::kProbe, .modern = true, .head = true, .status = 202},
       .remedy = Remedy::kJudgeEra},
      {.rule = "the probe answered broken JSON: a 2025 server's answer",
       .facts = {.target = Target::kProbe,
                 .modern = true,
                 .head = true,
                 .status = 200,
                 .done = true,
                 .body = BodyKind::kJson,
                 .invalid = "invalid JSON from server"},
       .remedy = Remedy::kJudgeEra},
      {.rule = "a transport failure says nothing of the era: the attempt fails",
       .facts = {.target = Target::kProbe,
                 .modern = true,
                 .done = true,
                 .failed = true,
                 .request_sent = false,
                 .error = "connection refused"},
       .remedy = Remedy::kFail,
       .reason = "connection refused"},
      {.rule = "initialize refused 400/404/405 by a server taken for 2025 unprobed: probe now",
       .facts = {.target = Target::kOpen, .head = true, .status = 405, .may_probe = true},
       .remedy = Remedy::kProbeEra,
       .reason = "HTTP 405 from server"},
      {.rule = "initialize refused after this attempt's probe found 2025: the attempt fails",
       .facts = {.target = Target::kOpen, .head = true, .status = 400},
       .remedy = Remedy::kFail,
       .reason = "HTTP 400 from server"},
      {.rule = "initialize answered 404 is never resent",
       .facts = {.target = Target::kOpen, .head = true, .status = 404},
       .remedy = Remedy::kFail,
       .reason = "HTTP 404 from server"},
      {.rule = "notifications/initialized accepted: list tools",
       .facts = {.target = Target::kConfirm, .head = true, .status = 202, .done = true},
       .remedy = Remedy::kHandshakeDone},
      {.rule = "notifications/initialized's head: wait for its end",
       .facts = {.target = Target::kConfirm, .head = true, .status = 202},
       .remedy = Remedy::kNone},
      {.rule = "notifications/initialized refused: the attempt fails",
       .facts = {.target = Target::kConfirm, .head = true, .status = 400},
       .remedy = Remedy::kFailAttempt,
       .reason = "HTTP 400 from server"},
      {.rule = "notifications/initialized lost: the attempt fails",
       .facts = {.target = Target::kConfirm, .done = true, .failed = true, .error = "timed out"},
       .remedy = Remedy::kFailAttempt,
       .reason = "timed out"},
      {.rule = "notifications/initialized ended without a response",
       .facts = {.target = Target::kConfirm, .done = true},
       .remedy = Remedy::kFailAttempt,
       .reason = "no response from server"},
  });
}

TEST_CASE("outcome: the GET stream", "[outcome]") {
  Check({
      {.rule = "an event stream: open",
       .facts = {.target = Target::kListen,
                 .carried_session = true,
                 .head = true,
                 .status = 200,
                 .media = kSse},
       .remedy = Remedy::kOpenStream},
      {.rule = "405: the session offers none",
       .facts = {.target = Target::kListen, .carried_session = true, .head = true, .status = 405},
       .remedy = Remedy::kNoStream,
       .reason = "the server offers no GET stream (HTTP 405)"},
      {.rule = "404 to a session's first GET: it offers none",
       .facts = {.target = Target::kListen, .carried_session = true, .head = true, .status = 404},
       .remedy = Remedy::kNoStream,
       .reason = "the server offers no GET stream (HTTP 404)"},
      {.rule = "404 after the session's stream was open: the session expired",
       .facts = {.target = Target::kListen,
                 .carried_session = true,
                 .head = true,
                 .status = 404,
                 .had_stream = true},
       .remedy = Remedy::kSessionExpired,
       .reason = "HTTP 404 on the GET stream"},
      {.rule = "another error: opened again after a pause",
       .facts = {.target = Target::kListen, .carried_session = true, .head = true, .status = 500},
       .remedy = Remedy::kRetryStream,
       .reason = "HTTP 500 from server"},
      {.rule = "a 2xx that is no event stream: opened again after a pause",
       .facts = {.target = Target::kListen,
                 .carried_session = true,
                 .head = true,
                 .status = 200,
                 .media = kJson},
       .remedy = Remedy::kRetryStream,
       .reason = "HTTP 200 from server"},
      {.rule = "the stream ended or broke: opened again after a pause",
       .facts = {.target = Target::kListen,
                 .head = true,
                 .status = 200,
                 .done = true,
                 .failed = true,
                 .error = "connection reset"},
       .remedy = Remedy::kRetryStream,
       .reason = "connection reset"},
      {.rule = "an event over the bound drops it: opened again after a pause",
       .facts = {.target = Target::kListen,
                 .head = true,
                 .status = 200,
                 .invalid = "server event exceeds 256 bytes"},
       .remedy = Remedy::kRetryStream,
       .reason = "server event exceeds 256 bytes"},
      {.rule = "subscriptions/listen refused (4xx): the server offers none",
       .facts =
           {.target = Target::kListen, .modern = true, .head = true, .status = 404, .media = kJson},
       .remedy = Remedy::kNoStream,
       .reason =
           "the server refused subscriptions/listen (HTTP 404 from server); tools are listed again "
           "when the listing is stale"},
      {.rule = "subscriptions/listen answered at once: asked again after a pause",
       .facts =
           {.target = Target::kListen, .modern = true, .head = true, .status = 200, .media = kJson},
       .remedy = Remedy::kRetryStream,
       .reason = "HTTP 200 from server"},
  });
}

TEST_CASE("outcome: notifications, replies and DELETEs", "[outcome]") {
  Check({
      {.rule = "a notification's answer is not waited on",
       .facts = {.target = Target::kNotify, .head = true, .status = 500, .done = true},
       .remedy = Remedy::kNone},
      {.rule = "a DELETE that worked",
       .facts = {.target = Target::kDelete, .head = true, .status = 204, .done = true},
       .remedy = Remedy::kNone},
      {.rule = "a DELETE refused is worth a log line",
       .facts = {.target = Target::kDelete, .head = true, .status = 405, .done = true},
       .remedy = Remedy::kNone,
       .reason = "DELETE of an abandoned session: HTTP 405 from server"},
      {.rule = "a DELETE lost is worth a log line",
       .facts =
           {.target = Target::kDelete, .done = true, .failed = true, .error = "connection refused"},
       .remedy = Remedy::kNone,
       .reason = "DELETE of an abandoned session: connection refused"},
  });
}

TEST_CASE("outcome: a task's reads and tasks/cancel", "[outcome]") {
  Check({
      {.rule = "a read refused 404 for an expired session goes once more, in a new session",
       .facts = {.target = Target::kRead, .carried_session = true, .head = true, .status = 404},
       .remedy = Remedy::kResend,
       .reason = "HTTP 404 from server",
       .session_expired = "HTTP 404 from server"},
      {.rule = "a read that broke says nothing of a tool having run",
       .facts = {.target = Target::kRead, .done = true, .failed = true, .error = "reset"},
       .remedy = Remedy::kFail,
       .reason = "reset",
       .may_have_run = true},
      {.rule = "a tasks/cancel that worked",
       .facts = {.target = Target::kTell, .head = true, .status = 200, .done = true},
       .remedy = Remedy::kNone},
      {.rule = "a tasks/cancel refused is worth a log line",
       .facts = {.target = Target::kTell, .head = true, .status = 404, .done = true},
       .remedy = Remedy::kNone,
       .reason = "tasks/cancel: HTTP 404 from server"},
  });
  // Which failures are passing trouble: a tasks/get that met one is asked
  // again at the next interval; any other failure ends the call.
  struct Transient {
    const char* rule;
    Outcome facts;
    bool transient;
  };
  const Transient rows[] = {
      {"the connection was lost",
       {.target = Target::kRead, .done = true, .failed = true, .error = "reset"},
       true},
      {"nothing of it was written",
       {.target = Target::kRead, .done = true, .failed = true, .request_sent = false},
       true},
      {"its stream ended before the answer",
       {.target = Target::kRead, .done = true, .body = BodyKind::kSse},
       true},
      {"HTTP 503", {.target = Target::kRead, .head = true, .status = 503}, true},
      {"HTTP 500", {.target = Target::kRead, .head = true, .status = 500}, true},
      {"HTTP 429", {.target = Target::kRead, .head = true, .status = 429}, true},
      {"HTTP 408", {.target = Target::kRead, .head = true, .status = 408}, true},
      {"HTTP 403", {.target = Target::kRead, .head = true, .status = 403}, false},
      {"a redirect", {.target = Target::kRead, .head = true, .status = 302}, false},
      {"202 without an answer", {.target = Target::kRead, .head = true, .status = 202}, false},
      {"broken JSON",
       {.target = Target::kRead, .head = true, .status = 200, .invalid = "invalid JSON"},
       false},
  };
  for (const Transient& row : rows) {
    INFO("rule: " << row.rule);
    const Verdict v = Classify(row.facts);
    CHECK(RemedyName(v.remedy) == RemedyName(Remedy::kFail));
    CHECK(v.transient == row.transient);
  }
}

TEST_CASE("outcome: the media type of a Content-Type", "[outcome]") {
  CHECK(MediaType("application/json; charset=utf-8") == "application/json");
  CHECK(MediaType("Text/Event-Stream") == "text/event-stream");
  CHECK(MediaType(" application/json ;") == "application/json");
  CHECK(MediaType("").empty());
}

}  // namespace
}  // namespace mcpgw::mcp
