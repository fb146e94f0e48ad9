// Session transfers, the receiving side: response heads, bodies (JSON or SSE,
// bounded while they stream in) and ends, each turned into the facts of an
// outcome (FactsOf) for the classifier (outcome.h) and its verdict carried
// out; deadlines of transfers that are not requests; the server's own
// requests and notifications. The sending side lives in session_wire.cc.
#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/json_arena.h"
#include "base/text.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

// The JSON body of an error status, read to learn what the refusal means.
constexpr size_t kMaxErrorBodyBytes = 64u << 10;

// ParseBoundedJson's byte and depth reasons are ours; its syntax errors are
// summarised.
std::string JsonReason(const std::string& error) {
  if (error.rfind("invalid JSON", 0) == 0) return "invalid JSON from server";
  return error;
}

}  // namespace

// --- the facts of an outcome ---

// What the session knows of transfer `t` and its request; the caller adds
// what happened (the head, the end, the body).
Outcome Session::Impl::FactsOf(const Transfer& t) const {
  Outcome o;
  o.modern = t.modern;
  o.carried_session = t.carried_session;
  o.current_session = t.gen == gen_;
  o.head = t.head;
  o.status = t.http_status;
  o.body = t.body;
  switch (t.purpose) {
    case Purpose::kInitialized:
      o.target = Target::kInitialized;
      return o;
    case Purpose::kNotify:
      o.target = Target::kNotify;
      return o;
    case Purpose::kDelete:
      o.target = Target::kDelete;
      return o;
    case Purpose::kCancelTask:
      o.target = Target::kCancelTask;
      return o;
    case Purpose::kListen:
      o.target = Target::kListen;
      o.had_stream = listen_.had_stream();
      return o;
    case Purpose::kRequest:
      break;
  }
  o.resuming = t.method == HttpMethod::kGet;
  auto it = requests_.find(t.rpc_id);
  if (it == requests_.end()) return o;
  const Request& req = it->second;
  switch (req.kind) {
    case Kind::kDiscover:
      o.target = Target::kDiscover;
      break;
    case Kind::kInitialize:
      o.target = Target::kInitialize;
      break;
    case Kind::kListTools:
      o.target = Target::kListTools;
      break;
    case Kind::kCall:
      o.target = Target::kCall;
      break;
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      o.target = Target::kTaskRead;
      break;
  }
  o.resent = req.resent;
  o.resumable = Resumable(req);
  o.can_hold = CanHold();
  o.may_probe = phase_ == Phase::kConnecting && era_.may_probe();
  return o;
}

// --- events ---

void Session::Impl::OnHead(TransferId id, const ResponseHead& head, TimePoint now) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  Transfer& t = it->second;
  t.head = true;
  t.http_status = head.status;
  switch (t.purpose) {
    case Purpose::kNotify:
    case Purpose::kDelete:
    case Purpose::kCancelTask:
      return;  // judged when they end
    case Purpose::kInitialized: {
      const Verdict verdict = Classify(FactsOf(t));
      if (verdict.remedy == Remedy::kFailAttempt) {
        Abort(id);
        FailAttempt(verdict.reason, now);
      }
      return;
    }
    case Purpose::kListen:
      return OnListenHead(id, t, head, now);
    case Purpose::kRequest:
      return OnRequestHead(id, t, head, now);
  }
}

void Session::Impl::OnRequestHead(TransferId id, Transfer& t, const ResponseHead& head,
                                  TimePoint now) {
  const RpcId rpc_id = t.rpc_id;
  auto req = requests_.find(rpc_id);
  if (req == requests_.end()) return Abort(id);
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
        t.sse = std::make_unique<SseDecoder>(limits_.max_sse_event_bytes);
      }
      if (req->second.kind == Kind::kInitialize && !facts.resuming) {
        req->second.head_session_id = std::string(head.session_id);
      }
      return;
    case Remedy::kReadErrorBody:
      t.body = BodyKind::kJson;
      t.error_body = true;
      return;
    case Remedy::kHold:
      NeedAuthorization(head.status, head.www_authenticate);
      break;
    default:
      break;
  }
  Settle(rpc_id, verdict, head.status, nullptr, now);
}

void Session::Impl::OnData(TransferId id, std::string_view bytes, TimePoint now) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  Transfer& t = it->second;
  Request* req = nullptr;
  if (t.purpose == Purpose::kRequest) {
    auto r = requests_.find(t.rpc_id);
    if (r != requests_.end()) req = &r->second;
    if (req) req->bytes_in += bytes.size();
  }
  // The GET stream is long-lived: only its events are bounded.
  if (t.purpose != Purpose::kListen) {
    t.bytes_in += bytes.size();
    if (t.bytes_in > limits_.max_response_bytes) {
      return OnInvalid(id, "response exceeds " + base::DescribeSize(limits_.max_response_bytes),
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
  if (req) {
    const std::string& last = t.sse->last_event_id();
    if (!last.empty() && last != req->last_event_id) {
      req->last_event_id = last;
      req->resumes = 0;  // the stream made progress
    }
    if (t.sse->retry_ms()) req->retry_ms = t.sse->retry_ms();
  }
  if (t.purpose == Purpose::kListen && !events.empty()) listen_.Progress();
  for (const SseEvent& event : events) {
    HandleEvent(id, event, now);
    if (!transfers_.count(id)) return;  // the event ended this transfer
  }
  if (!ok) {
    OnInvalid(id, "server event exceeds " + base::DescribeSize(limits_.max_sse_event_bytes), now);
  }
}

// The response cannot be used (over a bound, broken): the transfer ends here,
// and the classifier says what becomes of what it was for.
void Session::Impl::OnInvalid(TransferId id, const std::string& why, TimePoint now) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  const Transfer& t = it->second;
  Outcome facts = FactsOf(t);
  facts.invalid = why;
  const Verdict verdict = Classify(facts);
  if (t.purpose == Purpose::kRequest && requests_.count(t.rpc_id)) {
    return Settle(t.rpc_id, verdict, t.http_status, nullptr, now);
  }
  const bool listening = id == listen_.transfer();
  const bool cancel_task = t.purpose == Purpose::kCancelTask;
  Abort(id);
  if (cancel_task) return AfterTaskCancel(now);
  if (verdict.remedy == Remedy::kFailAttempt) return FailAttempt(verdict.reason, now);
  if (verdict.remedy == Remedy::kRetryStream && listening) ListenEnded(now);
}

void Session::Impl::HandleEvent(TransferId id, const SseEvent& event, TimePoint now) {
  if (event.type != "message") return;
  base::JsonArena<> arena;
  rapidjson::Document& doc = arena.doc();
  const base::JsonLimits limits{limits_.max_sse_event_bytes, limits_.max_json_depth};
  auto it = transfers_.find(id);
  const uint64_t gen = it->second.gen;
  if (base::Status parsed = base::ParseBoundedJson(event.data, limits, doc); !parsed.ok()) {
    // A broken message fails the request whose stream carried it; on the
    // GET stream it is skipped.
    if (it->second.purpose == Purpose::kRequest) OnInvalid(id, JsonReason(parsed.message()), now);
    return;
  }
  const Message msg = ClassifyMessage(doc);
  if (msg.kind == MessageKind::kResponse) {
    if (!msg.int_id) return;
    auto req = requests_.find(*msg.int_id);
    if (req == requests_.end()) return;
    // The stream of the request it answers has done its work.
    if (it->second.purpose == Purpose::kRequest && it->second.rpc_id == *msg.int_id) {
      it->second.answered = true;
    }
    if (req->second.kind == Kind::kDiscover) {
      return OnDiscoverAnswer(*msg.int_id, it->second.http_status, &doc, now);
    }
    OnResponse(*msg.int_id, msg, now);
    return;
  }
  HandleServerMessage(msg, gen, now);
}

void Session::Impl::HandleServerMessage(const Message& msg, uint64_t gen, TimePoint now) {
  // The modern wire has no server requests (they travel inside results) and
  // the client sends no responses: one arriving is not answered.
  if (msg.kind == MessageKind::kRequest && era_.modern()) {
    Log(LogLevel::kDebug, "the server sent a request (" + base::CleanServerText(msg.method, 64) +
                              ") on the 2026-07-28 wire; not answered");
    return;
  }
  if (msg.kind == MessageKind::kRequest) {
    if (msg.method == "ping") {
      Notify(BuildEmptyResult(*msg.id), /*must=*/false, gen, now);
    } else {
      Notify(BuildErrorResponse(*msg.id, kMethodNotFound, "method not supported by this client"),
             /*must=*/false, gen, now);
    }
  } else if (msg.kind == MessageKind::kNotification) {
    // Only the current session speaks for the server's tools.
    if (msg.method == "notifications/tools/list_changed" && gen == gen_) ToolsChanged(now);
  }
}

void Session::Impl::OnDone(TransferId id, const TransferResult& result, TimePoint now) {
  auto node = transfers_.extract(id);
  if (node.empty()) return;
  Transfer t = std::move(node.mapped());
  Outcome facts = FactsOf(t);
  facts.done = true;
  facts.failed = !result.ok;
  facts.request_sent = result.request_sent;
  facts.error = result.error;
  switch (t.purpose) {
    case Purpose::kNotify:
      --notify_transfers_;
      return;
    case Purpose::kDelete: {
      const Verdict verdict = Classify(facts);
      if (!verdict.reason.empty()) Log(LogLevel::kDebug, verdict.reason);
      return;
    }
    case Purpose::kCancelTask: {
      --notify_transfers_;
      const Verdict verdict = Classify(facts);
      if (!verdict.reason.empty()) Log(LogLevel::kDebug, verdict.reason);
      return AfterTaskCancel(now);
    }
    case Purpose::kListen:
      if (id == listen_.transfer() && Classify(facts).remedy == Remedy::kRetryStream) {
        ListenEnded(now);
      }
      return;
    case Purpose::kInitialized: {
      initialized_transfer_ = 0;
      const Verdict verdict = Classify(facts);
      if (verdict.remedy == Remedy::kHandshakeDone) return HandshakeDone(now);
      return FailAttempt(verdict.reason, now);
    }
    case Purpose::kRequest:
      return OnRequestDone(t, facts, now);
  }
}

// A request's transfer ended: its JSON answer, or what the classifier makes
// of its absence (an error body read, a broken stream, nothing at all).
void Session::Impl::OnRequestDone(Transfer& t, Outcome facts, TimePoint now) {
  const RpcId rpc_id = t.rpc_id;
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  it->second.transfer = 0;
  const bool discover = it->second.kind == Kind::kDiscover;
  base::JsonArena<> arena;
  rapidjson::Document& doc = arena.doc();
  const rapidjson::Value* message = nullptr;
  std::optional<ModernError> modern;
  std::string invalid;
  if (t.error_body) {
    // The refusal's body, when it was whole, bounded and JSON.
    facts.error_body = true;
    const base::JsonLimits limits{kMaxErrorBodyBytes, limits_.max_json_depth};
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
    const base::JsonLimits limits{limits_.max_response_bytes, limits_.max_json_depth};
    if (base::Status parsed = base::ParseBoundedJson(t.json, limits, doc); !parsed.ok()) {
      invalid = JsonReason(parsed.message());
    } else {
      const Message msg = ClassifyMessage(doc);
      if (msg.kind == MessageKind::kResponse && msg.int_id == rpc_id) {
        if (discover) return OnDiscoverAnswer(rpc_id, t.http_status, &doc, now);
        return OnResponse(rpc_id, msg, now);
      }
      invalid = "invalid response from server";
    }
    facts.invalid = invalid;
  }
  Settle(rpc_id, Classify(facts), t.http_status, message, now);
}

// A transfer that is no request outlived its deadline.
void Session::Impl::OnTransferTimeout(TransferId id, TimePoint now) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  const Purpose purpose = it->second.purpose;
  const bool head = it->second.head;
  Abort(id);
  switch (purpose) {
    case Purpose::kNotify:
      Log(LogLevel::kDebug, "a notification got no answer in " +
                                base::DescribeDuration(limits_.notify_deadline) + "; abandoned");
      return;
    case Purpose::kDelete:
      Log(LogLevel::kDebug, "a DELETE got no answer in " +
                                base::DescribeDuration(limits_.notify_deadline) + "; abandoned");
      return;
    case Purpose::kCancelTask:
      Log(LogLevel::kDebug, "a tasks/cancel got no answer in " +
                                base::DescribeDuration(limits_.notify_deadline) + "; abandoned");
      return AfterTaskCancel(now);
    case Purpose::kListen:
      // No head in time: a hung endpoint, backed off. A stream past its
      // lifetime: opened afresh at once.
      return ListenEnded(now, /*at_once=*/head);
    case Purpose::kInitialized:
      return FailAttempt("timed out after " +
                             base::DescribeDuration(served_ ? limits_.request_deadline
                                                            : limits_.first_attempt_deadline) +
                             " initializing",
                         now);
    case Purpose::kRequest:
      return;
  }
}

}  // namespace mcpgw::mcp
