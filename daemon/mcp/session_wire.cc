// Session transfers: the HTTP requests the session starts and the headers
// each carries (built in one place, RequestHeaders), response heads and bodies
// (JSON or SSE, bounded while they stream in), the facts each outcome is
// classified from (FactsOf; what they mean is outcome.h's to say), the queue
// of notifications and replies, deadlines of transfers that are not requests,
// and the server's own requests and notifications. The GET stream lives in
// session_listen.cc.
#include <algorithm>

#include "base/json_arena.h"
#include "base/text.h"
#include "daemon/mcp/bounded_json.h"
#include "daemon/mcp/convert.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

constexpr std::string_view kAcceptPost = "application/json, text/event-stream";
constexpr std::string_view kEventStream = "text/event-stream";
constexpr size_t kMaxNotifyTransfers = 32;  // notification and reply POSTs in flight
// Replies to server requests waiting for a slot; past this a flooding server's
// pings go unanswered (and the log says so). Cancellations always wait.
constexpr size_t kMaxQueuedReplies = 256;
// The JSON body of an error status, read to learn what the refusal means.
constexpr size_t kMaxErrorBodyBytes = 64u << 10;

// ParseBoundedJson's byte and depth reasons are ours; its syntax errors are
// summarised.
std::string JsonReason(const std::string& error) {
  if (error.rfind("invalid JSON", 0) == 0) return "invalid JSON from server";
  return error;
}

}  // namespace

// --- starting and ending transfers ---

TransferId Session::Impl::StartHttp(Purpose purpose, HttpMethod method, std::string body,
                                    RpcId rpc_id, TimePoint now, std::string_view last_event_id) {
  if (phase_ == Phase::kClosed && purpose != Purpose::kDelete) return 0;
  const TransferId id = next_transfer_++;
  Transfer t;
  t.purpose = purpose;
  t.method = method;
  t.rpc_id = rpc_id;
  t.gen = gen_;
  bool initialize = false;
  bool modern = false;
  bool call = false;
  switch (purpose) {
    case Purpose::kRequest: {
      auto it = requests_.find(rpc_id);
      if (it != requests_.end()) {
        t.deadline = it->second.deadline;
        initialize = it->second.kind == Kind::kInitialize;
        modern = it->second.modern;
        call = it->second.kind == Kind::kCall;
      }
      break;
    }
    case Purpose::kInitialized:
      t.deadline = attempt_deadline_.value_or(now + limits_.request_deadline);
      break;
    case Purpose::kListen:
      t.deadline = now + limits_.request_deadline;  // for the head; then the lifetime
      t.modern = era_.modern();
      break;
    case Purpose::kNotify:
    case Purpose::kDelete:
      t.deadline = now + limits_.notify_deadline;
      break;
  }
  t.carried_session = !initialize && !modern && !session_id_.empty();
  if (purpose == Purpose::kRequest) t.modern = modern;
  StartTransfer start{id,
                      method,
                      &server_,
                      RequestHeaders(t, last_event_id, initialize),
                      {},
                      /*long_lived=*/purpose == Purpose::kListen,
                      /*at_most_once=*/call && method == HttpMethod::kPost};
  if (method == HttpMethod::kPost) start.body = std::move(body);
  if (purpose == Purpose::kNotify) ++notify_transfers_;
  transfers_.emplace(id, std::move(t));
  actions_.emplace_back(std::in_place_type<StartTransfer>, std::move(start));
  return id;
}

// The one place request headers are decided. The modern wire carries the
// protocol headers each request was built with (BuildWire) and no session;
// the legacy wire the session id and negotiated version, except initialize,
// which opens a new session and carries neither.
std::vector<std::pair<std::string, std::string>> Session::Impl::RequestHeaders(
    const Transfer& t, std::string_view last_event_id, bool initialize) const {
  std::vector<std::pair<std::string, std::string>> headers;
  if (t.method == HttpMethod::kPost) {
    headers.emplace_back("Accept", kAcceptPost);
    headers.emplace_back("Content-Type", "application/json");
  } else if (t.method == HttpMethod::kGet) {
    headers.emplace_back("Accept", kEventStream);
  }
  const Request* req = nullptr;
  if (t.purpose == Purpose::kRequest) {
    auto it = requests_.find(t.rpc_id);
    if (it != requests_.end()) req = &it->second;
  }
  if (req != nullptr && req->modern) {
    headers.insert(headers.end(), req->wire_headers.begin(), req->wire_headers.end());
  } else if (t.purpose == Purpose::kListen && t.modern) {
    for (auto& h : ModernHeaders(protocol_version_, "subscriptions/listen")) {
      headers.push_back(std::move(h));
    }
  } else if (!initialize) {
    if (!session_id_.empty()) headers.emplace_back("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) {
      headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    }
  }
  if (!last_event_id.empty()) headers.emplace_back("Last-Event-ID", last_event_id);
  if (!authorization_.empty()) headers.emplace_back("Authorization", authorization_.Reveal());
  return headers;
}

void Session::Impl::Abort(TransferId id) {
  if (id == 0) return;
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  if (it->second.purpose == Purpose::kNotify) --notify_transfers_;
  transfers_.erase(it);
  if (id == initialized_transfer_) initialized_transfer_ = 0;
  actions_.emplace_back(std::in_place_type<AbortTransfer>, AbortTransfer{id});
}

// Ends the transfers tied to session `gen` itself: its GET stream, its
// handshake and listing. Requests that outlive a session (calls) keep theirs.
void Session::Impl::AbortGeneration(uint64_t gen) {
  std::vector<TransferId> ids;
  for (const auto& [id, t] : transfers_) {
    if (t.gen == gen && (t.purpose == Purpose::kListen || t.purpose == Purpose::kInitialized)) {
      ids.push_back(id);
    }
  }
  for (TransferId id : ids) Abort(id);
  listen_.Stopped();
}

void Session::Impl::SendRequest(Request& req, TimePoint now) {
  BuildWire(req);
  req.resume_at.reset();
  req.last_event_id.clear();
  req.retry_ms.reset();
  req.resumes = 0;
  req.transfer = StartHttp(Purpose::kRequest, HttpMethod::kPost, req.body, req.rpc_id, now);
  if (req.transfer == 0) return;
  req.gen = gen_;
  req.bytes_out += req.body.size();
}

void Session::Impl::Resume(Request& req, TimePoint now) {
  req.resume_at.reset();
  req.transfer =
      StartHttp(Purpose::kRequest, HttpMethod::kGet, "", req.rpc_id, now, req.last_event_id);
}

void Session::Impl::StartDelete(TimePoint now) {
  StartHttp(Purpose::kDelete, HttpMethod::kDelete, "", 0, now);
}

// --- the notification queue ---

// Queues a notification or reply for session `gen`. Nothing is dropped
// silently: a message for a session that is gone has no one to go to, and a
// reply past the queue's bound is counted and logged.
void Session::Impl::Notify(std::string body, bool must, uint64_t gen, TimePoint now) {
  if (gen != gen_) {
    Log(LogLevel::kDebug, "not sent: its session is gone: " + CleanServerText(body, 120));
    return;
  }
  if (!must && notices_.size() >= kMaxQueuedReplies) {
    ++dropped_replies_;
    return;
  }
  notices_.push_back(Notice{std::move(body), gen, must});
  PumpNotices(now);
}

void Session::Impl::PumpNotices(TimePoint now) {
  if (dropped_replies_ > 0) {
    Log(LogLevel::kWarn, "the server sent more requests than the client answers at once; " +
                             std::to_string(dropped_replies_) + " left unanswered");
    dropped_replies_ = 0;
  }
  while (notify_transfers_ < kMaxNotifyTransfers && !notices_.empty()) {
    Notice notice = std::move(notices_.front());
    notices_.pop_front();
    if (notice.gen != gen_) continue;  // its session is gone
    StartHttp(Purpose::kNotify, HttpMethod::kPost, std::move(notice.body), 0, now);
  }
}

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
  Abort(id);
  if (verdict.remedy == Remedy::kFailAttempt) return FailAttempt(verdict.reason, now);
  if (verdict.remedy == Remedy::kRetryStream && listening) ListenEnded(now);
}

void Session::Impl::HandleEvent(TransferId id, const SseEvent& event, TimePoint now) {
  if (event.type != "message") return;
  base::JsonArena<> arena;
  rapidjson::Document& doc = arena.doc();
  std::string error;
  const JsonLimits limits{limits_.max_sse_event_bytes, limits_.max_json_depth};
  auto it = transfers_.find(id);
  const uint64_t gen = it->second.gen;
  if (!ParseBoundedJson(event.data, limits, doc, error)) {
    // A broken message fails the request whose stream carried it; on the
    // GET stream it is skipped.
    if (it->second.purpose == Purpose::kRequest) OnInvalid(id, JsonReason(error), now);
    return;
  }
  const Message msg = ClassifyMessage(doc);
  if (msg.kind == MessageKind::kResponse) {
    if (!msg.int_id) return;
    auto req = requests_.find(*msg.int_id);
    if (req == requests_.end()) return;
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
    Log(LogLevel::kDebug, "the server sent a request (" + CleanServerText(msg.method, 64) +
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
  std::string error;
  const rapidjson::Value* message = nullptr;
  std::optional<ModernError> modern;
  std::string invalid;
  if (t.error_body) {
    // The refusal's body, when it was whole, bounded and JSON.
    facts.error_body = true;
    const JsonLimits limits{kMaxErrorBodyBytes, limits_.max_json_depth};
    if (!facts.failed && t.body == BodyKind::kJson &&
        ParseBoundedJson(t.json, limits, doc, error) && doc.IsObject()) {
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
    const JsonLimits limits{limits_.max_response_bytes, limits_.max_json_depth};
    if (!ParseBoundedJson(t.json, limits, doc, error)) {
      invalid = JsonReason(error);
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
