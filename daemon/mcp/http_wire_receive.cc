// The Streamable HTTP wire, the receiving side: response heads, bodies (JSON
// or SSE, bounded while they stream in) and ends, each turned into the facts
// of an outcome (FactsOf) for the classifier (outcome.h) and its verdict
// carried out: an answer delivered, a stream resumed, a loss reported to the
// conversation; deadlines of transfers that are no request; the server's own
// requests and notifications passed on.
#include <algorithm>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/json_arena.h"
#include "base/text.h"
#include "daemon/mcp/http_wire.h"
#include "daemon/mcp/modern_wire.h"

namespace mcpgw::mcp {

namespace {

// The JSON body of an error status, read to learn what the refusal means.
constexpr size_t kMaxErrorBodyBytes = 64u << 10;
constexpr size_t kMaxSessionIdBytes = 1024;
constexpr int kMaxResumes = 5;  // resumptions in a row that brought no new event
constexpr auto kDefaultResumeDelay = std::chrono::milliseconds(500);
constexpr long kMaxResumeDelayMs = 10'000;

// ParseBoundedJson's byte and depth reasons are ours; its syntax errors are
// summarised.
std::string JsonReason(const std::string& error) {
  if (error.rfind("invalid JSON", 0) == 0) return "invalid JSON from server";
  return error;
}

// The spec allows visible ASCII only; anything else could split a header.
bool ValidSessionId(std::string_view id) {
  if (id.size() > kMaxSessionIdBytes) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

// A Last-Event-ID must stay one header line.
bool UsableEventId(std::string_view id) {
  return !id.empty() && id.size() <= 1024 && std::none_of(id.begin(), id.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
}

bool Is2xx(int status) { return status >= 200 && status < 300; }

std::string How(int status) {
  return status == 0 ? std::string() : "HTTP " + std::to_string(status);
}

Target TargetOf(Role role) {
  switch (role) {
    case Role::kProbe:
      return Target::kProbe;
    case Role::kOpen:
      return Target::kOpen;
    case Role::kRead:
      return Target::kRead;
    case Role::kCall:
      break;
  }
  return Target::kCall;
}

// What the conversation hears of a verdict that ends a request unanswered.
Loss LossOf(const Verdict& verdict) {
  Loss loss;
  switch (verdict.remedy) {
    case Remedy::kResend:
      loss.remedy = Loss::Remedy::kResend;
      break;
    case Remedy::kReprobe:
      loss.remedy = Loss::Remedy::kReprobe;
      break;
    case Remedy::kHold:
      loss.remedy = Loss::Remedy::kHold;
      break;
    case Remedy::kProbeEra:
      loss.remedy = Loss::Remedy::kProbeEra;
      break;
    default:
      loss.remedy = Loss::Remedy::kFail;
      break;
  }
  loss.reason = verdict.reason;
  loss.backend = verdict.backend;
  loss.transient = verdict.transient;
  loss.session_expired = verdict.session_expired;
  loss.era_doubted = verdict.era_doubted;
  return loss;
}

}  // namespace

// --- the facts of an outcome ---

// What the wire knows of transfer `t` and its request; the caller adds what
// happened (the head, the end, the body).
Outcome HttpWire::Receiver::FactsOf(const Transfer& t) const {
  Outcome o;
  o.modern = t.modern;
  o.carried_session = t.carried_session;
  o.current_session = t.gen == w_.gen_;
  o.head = t.head;
  o.status = t.http_status;
  o.body = t.body;
  switch (t.purpose) {
    case Purpose::kConfirm:
      o.target = Target::kConfirm;
      return o;
    case Purpose::kNotify:
      o.target = Target::kNotify;
      return o;
    case Purpose::kDelete:
      o.target = Target::kDelete;
      return o;
    case Purpose::kTell:
      o.target = Target::kTell;
      return o;
    case Purpose::kListen:
      o.target = Target::kListen;
      o.had_stream = w_.listen_.had_stream();
      return o;
    case Purpose::kRequest:
      break;
  }
  o.resuming = t.method == HttpMethod::kGet;
  auto it = w_.outs_.find(t.rpc_id);
  if (it == w_.outs_.end()) return o;
  const Out& out = it->second;
  o.target = TargetOf(out.role);
  o.resent = out.resent;
  o.resumable = UsableEventId(out.last_event_id) && out.resumes < kMaxResumes &&
                out.gen == w_.gen_ && w_.state_ == HttpSessionState::kOpen;
  o.can_hold = w_.listener_->CanHold();
  o.may_probe = out.role == Role::kOpen && w_.listener_->MayProbe();
  return o;
}

// --- events ---

void HttpWire::Receiver::OnHead(TransferId id, const ResponseHead& head, TimePoint now) {
  auto it = w_.transfers_.find(id);
  if (it == w_.transfers_.end()) return;
  Transfer& t = it->second;
  t.head = true;
  t.http_status = head.status;
  switch (t.purpose) {
    case Purpose::kNotify:
    case Purpose::kDelete:
    case Purpose::kTell:
      return;  // judged when they end
    case Purpose::kConfirm: {
      const Verdict verdict = Classify(FactsOf(t));
      if (verdict.remedy == Remedy::kFailAttempt) {
        w_.Abort(id);
        w_.listener_->OnAttemptFailed(verdict.reason, now);
      }
      return;
    }
    case Purpose::kListen:
      return OnListenHead(id, t, head, now);
    case Purpose::kRequest:
      return OnRequestHead(id, t, head, now);
  }
}

void HttpWire::Receiver::OnRequestHead(TransferId id, Transfer& t, const ResponseHead& head,
                                       TimePoint now) {
  const RpcId rpc_id = t.rpc_id;
  auto out = w_.outs_.find(rpc_id);
  if (out == w_.outs_.end()) return w_.Abort(id);
  const std::string media = MediaType(head.content_type);
  Outcome facts = FactsOf(t);
  facts.media = media;
  facts.scope_challenge =
      head.www_authenticate.find("insufficient_scope") != std::string_view::npos;
  const Verdict verdict = Classify(facts);
  switch (verdict.remedy) {
    case Remedy::kReadJson:
    case Remedy::kReadSse:
      if (verdict.remedy == Remedy::kReadJson) {
        t.body = BodyKind::kJson;
      } else {
        t.body = BodyKind::kSse;
        t.sse = std::make_unique<SseDecoder>(w_.limits_.max_sse_event_bytes);
      }
      if (out->second.role == Role::kOpen && !facts.resuming) {
        out->second.head_session_id = std::string(head.session_id);
      }
      return;
    case Remedy::kReadErrorBody:
      t.body = BodyKind::kJson;
      t.error_body = true;
      return;
    case Remedy::kHold:
      w_.refusal_status_ = head.status;
      w_.refusal_challenge_ = std::string(head.www_authenticate);
      break;
    default:
      break;
  }
  Settle(rpc_id, verdict, head.status, nullptr, now);
}

void HttpWire::Receiver::OnListenHead(TransferId id, Transfer& t, const ResponseHead& head,
                                      TimePoint now) {
  // Only the current session's stream is ever open (AbortGeneration).
  if (id != w_.listen_.transfer()) return w_.Abort(id);
  const std::string media = MediaType(head.content_type);
  Outcome facts = FactsOf(t);
  facts.media = media;
  const Verdict verdict = Classify(facts);
  if (verdict.remedy == Remedy::kOpenStream) {
    t.body = BodyKind::kSse;
    t.sse = std::make_unique<SseDecoder>(w_.limits_.max_sse_event_bytes);
    t.deadline = now + w_.limits_.listen_lifetime;
    w_.AddReminder(kTransferDeadline, id, t.deadline);
    w_.listen_.Answered();
    return;
  }
  w_.Abort(id);
  switch (verdict.remedy) {
    case Remedy::kNoStream:
      w_.listen_.Refused();
      w_.Log(LogLevel::kDebug, verdict.reason);
      return;
    case Remedy::kSessionExpired:
      return w_.listener_->OnSessionExpired(verdict.reason, now);
    default:
      return w_.ListenEnded(now);
  }
}

void HttpWire::Receiver::OnData(TransferId id, std::string_view bytes, TimePoint now) {
  auto it = w_.transfers_.find(id);
  if (it == w_.transfers_.end()) return;
  Transfer& t = it->second;
  Out* out = nullptr;
  if (t.purpose == Purpose::kRequest) {
    auto o = w_.outs_.find(t.rpc_id);
    if (o != w_.outs_.end()) out = &o->second;
    w_.listener_->OnReceived(t.rpc_id, bytes.size());
  }
  // The GET stream is long-lived: only its events are bounded.
  if (t.purpose != Purpose::kListen) {
    t.bytes_in += bytes.size();
    if (t.bytes_in > w_.limits_.max_response_bytes) {
      return OnInvalid(id, "response exceeds " + base::DescribeSize(w_.limits_.max_response_bytes),
                       now);
    }
  }
  if (t.body == BodyKind::kJson) {
    if (t.error_body && t.json.size() + bytes.size() > kMaxErrorBodyBytes) {
      t.body = BodyKind::kNone;  // too long to be a refusal: judged without it
      t.json.clear();
      return;
    }
    t.json.append(bytes);
    return;
  }
  if (t.body != BodyKind::kSse) return;

  std::vector<SseEvent> events;
  const bool ok = t.sse->Feed(bytes, events);
  if (out != nullptr) {
    const std::string& last = t.sse->last_event_id();
    if (!last.empty() && last != out->last_event_id) {
      out->last_event_id = last;
      out->resumes = 0;  // the stream made progress
    }
    if (t.sse->retry_ms()) out->retry_ms = t.sse->retry_ms();
  }
  if (t.purpose == Purpose::kListen && !events.empty()) w_.listen_.Progress();
  for (const SseEvent& event : events) {
    HandleEvent(id, event, now);
    if (!w_.transfers_.count(id)) return;  // the event ended this transfer
  }
  if (!ok) {
    OnInvalid(id, "server event exceeds " + base::DescribeSize(w_.limits_.max_sse_event_bytes),
              now);
  }
}

// The response cannot be used (over a bound, broken): the transfer ends here,
// and the classifier says what becomes of what it was for.
void HttpWire::Receiver::OnInvalid(TransferId id, const std::string& why, TimePoint now) {
  auto it = w_.transfers_.find(id);
  if (it == w_.transfers_.end()) return;
  const Transfer& t = it->second;
  Outcome facts = FactsOf(t);
  facts.invalid = why;
  const Verdict verdict = Classify(facts);
  if (t.purpose == Purpose::kRequest && w_.outs_.count(t.rpc_id)) {
    return Settle(t.rpc_id, verdict, t.http_status, nullptr, now);
  }
  const bool listening = id == w_.listen_.transfer();
  const bool tell = t.purpose == Purpose::kTell;
  w_.Abort(id);
  if (tell) return w_.AfterTell(now);
  if (verdict.remedy == Remedy::kFailAttempt) {
    return w_.listener_->OnAttemptFailed(verdict.reason, now);
  }
  if (verdict.remedy == Remedy::kRetryStream && listening) w_.ListenEnded(now);
}

void HttpWire::Receiver::HandleEvent(TransferId id, const SseEvent& event, TimePoint now) {
  if (event.type != "message") return;
  base::JsonArena<> arena;
  rapidjson::Document& doc = arena.doc();
  const base::JsonLimits limits{w_.limits_.max_sse_event_bytes, w_.limits_.max_json_depth};
  auto it = w_.transfers_.find(id);
  const uint64_t gen = it->second.gen;
  if (base::Status parsed = base::ParseBoundedJson(event.data, limits, doc); !parsed.ok()) {
    // A broken message fails the request whose stream carried it; on the
    // GET stream it is skipped.
    if (it->second.purpose == Purpose::kRequest) {
      OnInvalid(id, JsonReason(parsed.message()), now);
    }
    return;
  }
  const Message msg = ClassifyMessage(doc);
  if (msg.kind == MessageKind::kResponse) {
    if (!msg.int_id) return;
    // The stream of the request it answers has done its work.
    if (it->second.purpose == Purpose::kRequest && it->second.rpc_id == *msg.int_id) {
      it->second.answered = true;
    }
    const int status = it->second.http_status;
    const std::string how = How(status);
    return Deliver(*msg.int_id, Answer{&doc, &msg, !Is2xx(status), how, {}}, now);
  }
  w_.listener_->OnServerMessage(msg, From{gen, gen == w_.gen_}, now);
}

void HttpWire::Receiver::OnDone(TransferId id, const TransferResult& result, TimePoint now) {
  auto node = w_.transfers_.extract(id);
  if (node.empty()) return;
  Transfer t = std::move(node.mapped());
  Outcome facts = FactsOf(t);
  facts.done = true;
  facts.failed = !result.ok;
  facts.request_sent = result.request_sent;
  facts.error = result.error;
  switch (t.purpose) {
    case Purpose::kNotify:
      --w_.notify_transfers_;
      return;
    case Purpose::kDelete: {
      const Verdict verdict = Classify(facts);
      if (!verdict.reason.empty()) w_.Log(LogLevel::kDebug, verdict.reason);
      return;
    }
    case Purpose::kTell: {
      --w_.notify_transfers_;
      const Verdict verdict = Classify(facts);
      if (!verdict.reason.empty()) w_.Log(LogLevel::kDebug, verdict.reason);
      return w_.AfterTell(now);
    }
    case Purpose::kListen:
      if (id == w_.listen_.transfer() && Classify(facts).remedy == Remedy::kRetryStream) {
        w_.ListenEnded(now);
      }
      return;
    case Purpose::kConfirm: {
      w_.confirm_transfer_ = 0;
      const Verdict verdict = Classify(facts);
      if (verdict.remedy == Remedy::kHandshakeDone) return w_.listener_->OnConfirmed(now);
      return w_.listener_->OnAttemptFailed(verdict.reason, now);
    }
    case Purpose::kRequest:
      return OnRequestDone(t, facts, now);
  }
}

// A request's transfer ended: its JSON answer, or what the classifier makes
// of its absence (an error body read, a broken stream, nothing at all).
void HttpWire::Receiver::OnRequestDone(Transfer& t, Outcome facts, TimePoint now) {
  const RpcId rpc_id = t.rpc_id;
  auto it = w_.outs_.find(rpc_id);
  if (it == w_.outs_.end()) return;
  it->second.transfer = 0;
  base::JsonArena<> arena;
  rapidjson::Document& doc = arena.doc();
  const rapidjson::Value* message = nullptr;
  std::optional<ModernError> modern;
  std::string invalid;
  if (t.error_body) {
    // The refusal's body, when it was whole, bounded and JSON.
    facts.error_body = true;
    const base::JsonLimits limits{kMaxErrorBodyBytes, w_.limits_.max_json_depth};
    if (!facts.failed && t.body == BodyKind::kJson &&
        base::ParseBoundedJson(t.json, limits, doc).ok() && doc.IsObject()) {
      message = &doc;
      modern = RecognizeModernError(doc);
      if (modern) {
        facts.modern_error = modern->code;
        facts.modern_message = modern->message;
      }
      const Message msg = ClassifyMessage(doc);
      facts.rpc_error = msg.kind == MessageKind::kResponse && msg.is_error &&
                        (!msg.int_id || *msg.int_id == rpc_id);
    }
  } else if (t.body == BodyKind::kJson && !facts.failed) {
    const base::JsonLimits limits{w_.limits_.max_response_bytes, w_.limits_.max_json_depth};
    if (base::Status parsed = base::ParseBoundedJson(t.json, limits, doc); !parsed.ok()) {
      invalid = JsonReason(parsed.message());
    } else {
      const Message msg = ClassifyMessage(doc);
      if (msg.kind == MessageKind::kResponse && msg.int_id == rpc_id) {
        const std::string how = How(t.http_status);
        return Deliver(rpc_id, Answer{&doc, &msg, !Is2xx(t.http_status), how, {}}, now);
      }
      invalid = "invalid response from server";
    }
    facts.invalid = invalid;
  }
  Settle(rpc_id, Classify(facts), t.http_status, message, now);
}

// A transfer that is no request outlived its deadline.
void HttpWire::Receiver::OnTransferTimeout(TransferId id, TimePoint now) {
  auto it = w_.transfers_.find(id);
  if (it == w_.transfers_.end()) return;
  const Purpose purpose = it->second.purpose;
  const bool head = it->second.head;
  w_.Abort(id);
  switch (purpose) {
    case Purpose::kNotify:
      w_.Log(LogLevel::kDebug, "a notification got no answer in " +
                                   base::DescribeDuration(w_.limits_.notify_deadline) +
                                   "; abandoned");
      return;
    case Purpose::kDelete:
      w_.Log(LogLevel::kDebug, "a DELETE got no answer in " +
                                   base::DescribeDuration(w_.limits_.notify_deadline) +
                                   "; abandoned");
      return;
    case Purpose::kTell:
      w_.Log(LogLevel::kDebug, "a tasks/cancel got no answer in " +
                                   base::DescribeDuration(w_.limits_.notify_deadline) +
                                   "; abandoned");
      return w_.AfterTell(now);
    case Purpose::kListen:
      // No head in time: a hung endpoint, backed off. A stream past its
      // lifetime: opened afresh at once.
      return w_.ListenEnded(now, /*at_once=*/head);
    case Purpose::kConfirm:
      return w_.listener_->OnAttemptFailed(w_.confirm_timeout_, now);
    case Purpose::kRequest:
      return;
  }
}

// --- what becomes of a request ---

void HttpWire::Receiver::Deliver(RpcId rpc_id, const Answer& answer, TimePoint now) {
  auto it = w_.outs_.find(rpc_id);
  if (it == w_.outs_.end()) return w_.listener_->OnAnswer(rpc_id, answer, now);
  Out& out = it->second;
  // A stream has served its purpose once the response is in.
  w_.Abort(out.transfer);
  Answer opened = answer;
  if (out.role == Role::kOpen && answer.classified != nullptr && !answer.classified->is_error) {
    // Whatever else is wrong, a session the server made is ours to DELETE.
    if (ValidSessionId(out.head_session_id)) {
      w_.session_id_ = out.head_session_id;
      w_.Move(HttpSessionEvent::kOpened);
    } else {
      opened.unusable = "invalid session id from server";
    }
  }
  w_.kept_outs_.Erase(w_.outs_, it);
  w_.listener_->OnAnswer(rpc_id, opened, now);
}

// Carries out the classifier's verdict on a request: its transfer ended (or
// was refused) without an answer, or its refusal's body is the answer.
void HttpWire::Receiver::Settle(RpcId rpc_id, const Verdict& verdict, int http_status,
                                const rapidjson::Value* message, TimePoint now) {
  auto it = w_.outs_.find(rpc_id);
  if (it == w_.outs_.end()) return;
  Out& out = it->second;
  switch (verdict.remedy) {
    case Remedy::kAnswer:
      if (message != nullptr) {
        const Message msg = ClassifyMessage(*message);
        return Deliver(rpc_id, Answer{message, &msg, true, How(http_status), {}}, now);
      }
      break;
    case Remedy::kJudgeEra: {
      // Whatever came is a probe's answer.
      std::optional<Message> msg;
      if (message != nullptr) msg = ClassifyMessage(*message);
      const std::string how = How(http_status);
      return Deliver(rpc_id, Answer{message, msg ? &*msg : nullptr, !Is2xx(http_status), how, {}},
                     now);
    }
    case Remedy::kResume: {
      w_.Abort(out.transfer);
      out.transfer = 0;
      ++out.resumes;
      Duration delay = kDefaultResumeDelay;
      if (out.retry_ms) {
        delay = std::chrono::milliseconds(std::clamp(*out.retry_ms, 0L, kMaxResumeDelayMs));
      }
      out.resume_at = now + delay;
      w_.AddReminder(kResume, static_cast<uint64_t>(rpc_id), *out.resume_at);
      w_.Log(LogLevel::kDebug, "stream ended early (" + verdict.reason + "); resuming it in " +
                                   base::DescribeDuration(delay));
      return;
    }
    default:
      break;
  }
  w_.Abort(out.transfer);
  w_.kept_outs_.Erase(w_.outs_, it);
  w_.listener_->OnLost(rpc_id, LossOf(verdict), now);
}

}  // namespace mcpgw::mcp
