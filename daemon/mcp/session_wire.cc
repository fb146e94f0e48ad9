// Session transfers: the HTTP requests the session starts and the headers
// each carries (built in one place, RequestHeaders), response heads and bodies
// (JSON or SSE, bounded while they stream in), the standalone GET stream, the
// queue of notifications and replies, deadlines of transfers that are not
// requests, and the server's own requests and notifications. What a lost
// request becomes is the retry table's (session_calls.cc) to decide.
#include <algorithm>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/json_arena.h"
#include "base/text.h"
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

// "application/json; charset=utf-8" → "application/json".
std::string MediaType(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  std::string out;
  for (char c : content_type) {
    if (c != ' ' && c != '\t') out += base::ToLowerAscii(c);
  }
  return out;
}

bool Is2xx(int status) { return status >= 200 && status < 300; }

// 401, or 403 asking for more scope: the request was refused for lack of
// authorization (MCP authorization, "Scope Challenge Handling").
bool Unauthorized(const ResponseHead& head) {
  return head.status == 401 ||
         (head.status == 403 &&
          head.www_authenticate.find("insufficient_scope") != std::string_view::npos);
}

std::string StatusReason(int status) {
  if (status >= 300 && status < 400) {
    return "redirect refused (HTTP " + std::to_string(status) + ")";
  }
  return "HTTP " + std::to_string(status) + " from server";
}

// ParseBoundedJson's byte and depth reasons are ours; its syntax errors are
// summarised.
std::string JsonReason(const std::string& error) {
  if (error.rfind("invalid JSON", 0) == 0) return "invalid JSON from server";
  return error;
}

std::string TransportReason(const TransferResult& result) {
  std::string text = base::CleanServerText(result.error);
  return text.empty() ? "transfer failed" : text;
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
      break;
    case Purpose::kNotify:
    case Purpose::kDelete:
      t.deadline = now + limits_.notify_deadline;
      break;
  }
  t.carried_session = !initialize && !modern && !session_id_.empty();
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
  } else if (t.purpose == Purpose::kListen && era_ == Era::kModern) {
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
  if (id == listen_transfer_) listen_transfer_ = 0;
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
  listen_retry_at_.reset();
}

void Session::Impl::SendRequest(Request& req, TimePoint now) {
  BuildWire(req);
  req.resume_at.reset();
  req.last_event_id.clear();
  req.retry_ms.reset();
  req.resumes = 0;
  req.held = false;
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
    Log(LogLevel::kDebug, "not sent: its session is gone: " + base::CleanServerText(body, 120));
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

// --- the standalone GET stream ---

// The legacy wire's standalone GET stream; on the modern wire a
// subscriptions/listen request opting in to tools/list_changed, when the
// server said it sends those.
void Session::Impl::OpenListen(TimePoint now) {
  if (phase_ != Phase::kReady || listen_unsupported_ || listen_transfer_ != 0) return;
  if (era_ == Era::kModern) {
    if (!tools_list_changed_) return;
    listen_retry_at_.reset();
    listen_progress_ = false;
    const RpcId id = next_rpc_id_++;
    listen_transfer_ = StartHttp(
        Purpose::kListen, HttpMethod::kPost,
        BuildRequest(id, "subscriptions/listen", ListenParams(protocol_version_, kClientVersion)),
        0, now);
    return;
  }
  if (!have_session_) return;
  listen_retry_at_.reset();
  listen_progress_ = false;
  listen_transfer_ = StartHttp(Purpose::kListen, HttpMethod::kGet, "", 0, now);
}

// A stream that delivered something may reopen soon; one that did not backs
// off like a failed attempt, so a broken endpoint costs little.
void Session::Impl::ListenEnded(TimePoint now, bool reopen_now) {
  listen_transfer_ = 0;
  if (phase_ == Phase::kClosed || listen_unsupported_) return;
  if (reopen_now) {
    listen_retry_at_ = now;
    return;
  }
  if (listen_progress_ || listen_backoff_ == Duration::zero()) {
    listen_backoff_ = limits_.backoff_initial;
  } else {
    listen_backoff_ = std::min(listen_backoff_ * 2, limits_.backoff_max);
  }
  listen_retry_at_ = now + listen_backoff_;
  Log(LogLevel::kDebug, std::string(era_ == Era::kModern ? "subscriptions/listen" : "GET") +
                            " stream ended; reopening it in " +
                            base::DescribeDuration(listen_backoff_));
}

void Session::Impl::OnListenHead(TransferId id, Transfer& t, const ResponseHead& head,
                                 TimePoint now) {
  const std::string media = MediaType(head.content_type);
  if (Is2xx(head.status) && media == kEventStream) {
    t.body = BodyKind::kSse;
    t.sse = std::make_unique<SseDecoder>(limits_.max_sse_event_bytes);
    t.deadline = now + limits_.listen_lifetime;
    listen_opened_ = true;
    return;
  }
  const bool carried = t.carried_session;
  const uint64_t gen = t.gen;
  Abort(id);
  if (gen != gen_) return;
  if (era_ == Era::kModern) {
    // Answered at once (2xx): the subscription ended; reopened after a
    // back-off. Refused (4xx): the server offers none.
    if (head.status >= 400 && head.status < 500) {
      listen_unsupported_ = true;
      Log(LogLevel::kDebug, "the server refused subscriptions/listen (" +
                                StatusReason(head.status) + "); tools are listed again " +
                                "when the listing is stale");
      return;
    }
    return ListenEnded(now);
  }
  if (head.status == 405) {
    listen_unsupported_ = true;
    Log(LogLevel::kDebug, "the server offers no GET stream (HTTP 405)");
    return;
  }
  if (head.status == 404 && carried) {
    // A stream this session had is gone: the session expired. A server that
    // answers 404 to a session's first GET just has no stream to offer.
    if (listen_opened_) return SessionExpired("HTTP 404 on the GET stream", now);
    listen_unsupported_ = true;
    Log(LogLevel::kDebug, "the server offers no GET stream (HTTP 404)");
    return;
  }
  ListenEnded(now);
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
      return;
    case Purpose::kInitialized:
      if (!Is2xx(head.status)) {
        Abort(id);
        FailAttempt(StatusReason(head.status), now);
      }
      return;
    case Purpose::kListen:
      return OnListenHead(id, t, head, now);
    case Purpose::kRequest:
      break;
  }
  const RpcId rpc_id = t.rpc_id;
  auto req = requests_.find(rpc_id);
  if (req == requests_.end()) return Abort(id);
  const bool resuming = t.method == HttpMethod::kGet;
  const uint64_t gen = t.gen;
  if (resuming && !Is2xx(head.status)) {
    const bool expired = head.status == 404 && t.carried_session && gen == gen_;
    Lose(rpc_id, Loss::kResumeFailed,
         "its stream broke and resuming it failed: " + StatusReason(head.status), now);
    if (expired) SessionExpired("HTTP 404 resuming a stream", now);
    return;
  }
  if (Unauthorized(head)) {
    NeedAuthorization(head.status, head.www_authenticate, now);
    return Lose(rpc_id, Loss::kRefused, StatusReason(head.status), now);
  }
  if (head.status == 404 && t.carried_session) {
    return Lose(rpc_id, Loss::kExpired, StatusReason(head.status), now);
  }
  const std::string media = MediaType(head.content_type);
  const Kind kind = req->second.kind;
  if (!Is2xx(head.status)) {
    const bool era_hint = head.status == 400 || head.status == 404 || head.status == 405;
    // A refusal's JSON body says what it means: a discover probe's verdict,
    // or one of the modern wire's errors.
    if (!resuming && media == "application/json" &&
        (kind == Kind::kDiscover || (req->second.modern && era_hint))) {
      t.body = BodyKind::kJson;
      t.error_body = true;
      return;
    }
    if (kind == Kind::kDiscover) return OnDiscoverAnswer(rpc_id, head.status, nullptr, now);
    if (kind == Kind::kInitialize && era_hint &&
        ProbeAfterInitialize(StatusReason(head.status), now)) {
      return;
    }
    if (head.status == 400 && (t.carried_session || req->second.modern)) {
      return Lose(rpc_id, Loss::kRejected, StatusReason(head.status), now);
    }
    return Lose(rpc_id, Loss::kFailed, StatusReason(head.status), now);
  }
  if (media == "application/json" && !resuming) {
    t.body = BodyKind::kJson;
  } else if (media == kEventStream) {
    t.body = BodyKind::kSse;
    t.sse = std::make_unique<SseDecoder>(limits_.max_sse_event_bytes);
  } else if (kind == Kind::kDiscover) {
    return OnDiscoverAnswer(rpc_id, head.status, nullptr, now);
  } else if (head.status == 202) {
    return Lose(rpc_id, Loss::kFailed, "server accepted the request without answering it", now);
  } else {
    return Lose(rpc_id, Loss::kFailed, "unexpected content type from server", now);
  }
  if (req->second.kind == Kind::kInitialize && !resuming) {
    req->second.head_session_id = std::string(head.session_id);
  }
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
  // The standalone stream is long-lived: only its events are bounded.
  if (t.purpose != Purpose::kListen) {
    t.bytes_in += bytes.size();
    if (t.bytes_in > limits_.max_response_bytes) {
      const std::string why = "response exceeds " + base::DescribeSize(limits_.max_response_bytes);
      if (req) return Lose(t.rpc_id, Loss::kFailed, why, now);
      const Purpose purpose = t.purpose;
      Abort(id);
      if (purpose == Purpose::kInitialized) FailAttempt(why, now);
      return;
    }
  }
  if (t.body == BodyKind::kJson) {
    if (t.error_body && t.json.size() + bytes.size() > kMaxErrorBodyBytes) {
      t.body = BodyKind::kUnknown;  // too long to be a refusal: judged without it
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
  if (t.purpose == Purpose::kListen && !events.empty()) listen_progress_ = true;
  for (const SseEvent& event : events) {
    HandleEvent(id, event, now);
    if (!transfers_.count(id)) return;  // the event ended this transfer
  }
  if (!ok) {
    const std::string why =
        "server event exceeds " + base::DescribeSize(limits_.max_sse_event_bytes);
    auto again = transfers_.find(id);
    if (again == transfers_.end()) return;
    if (again->second.purpose == Purpose::kRequest) {
      return Lose(again->second.rpc_id, Loss::kFailed, why, now);
    }
    Abort(id);
    ListenEnded(now);
  }
}

void Session::Impl::HandleEvent(TransferId id, const SseEvent& event, TimePoint now) {
  if (event.type != "message") return;
  base::JsonArena<> arena;
  rapidjson::Document& doc = arena.doc();
  std::string error;
  const base::JsonLimits limits{limits_.max_sse_event_bytes, limits_.max_json_depth};
  auto it = transfers_.find(id);
  const uint64_t gen = it->second.gen;
  if (!base::ParseBoundedJson(event.data, limits, doc, error)) {
    // A broken message fails the request whose stream carried it; on the
    // standalone stream it is skipped.
    if (it->second.purpose == Purpose::kRequest) {
      Lose(it->second.rpc_id, Loss::kFailed, JsonReason(error), now);
    }
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
  if (msg.kind == MessageKind::kRequest && era_ == Era::kModern) {
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
  switch (t.purpose) {
    case Purpose::kDelete:
      if (!result.ok || !Is2xx(t.http_status)) {
        Log(LogLevel::kDebug,
            "DELETE of an abandoned session: " +
                (result.ok ? StatusReason(t.http_status) : TransportReason(result)));
      }
      return;
    case Purpose::kNotify:
      --notify_transfers_;
      return;
    case Purpose::kListen:
      if (id == listen_transfer_) ListenEnded(now);
      return;
    case Purpose::kInitialized:
      initialized_transfer_ = 0;
      if (!result.ok) return FailAttempt(TransportReason(result), now);
      if (!Is2xx(t.http_status)) return FailAttempt("no response from server", now);
      return HandshakeDone(now);
    case Purpose::kRequest:
      break;
  }
  auto it = requests_.find(t.rpc_id);
  if (it == requests_.end()) return;
  Request& req = it->second;
  req.transfer = 0;
  const bool resuming = t.method == HttpMethod::kGet;
  const bool discover = req.kind == Kind::kDiscover;
  if (t.error_body) {
    // The refusal's body, when it was whole, bounded and JSON.
    rapidjson::Document doc;
    std::string error;
    const base::JsonLimits limits{kMaxErrorBodyBytes, limits_.max_json_depth};
    const bool parsed = result.ok && t.body == BodyKind::kJson &&
                        base::ParseBoundedJson(t.json, limits, doc, error) && doc.IsObject();
    if (discover) return OnDiscoverAnswer(t.rpc_id, t.http_status, parsed ? &doc : nullptr, now);
    return OnErrorAnswer(t.rpc_id, t.http_status, parsed ? &doc : nullptr, now);
  }
  if (t.body == BodyKind::kJson) {
    if (!result.ok) return Lose(t.rpc_id, Loss::kBroken, TransportReason(result), now);
    base::JsonArena<> arena;
    rapidjson::Document& doc = arena.doc();
    std::string error;
    const base::JsonLimits limits{limits_.max_response_bytes, limits_.max_json_depth};
    if (!base::ParseBoundedJson(t.json, limits, doc, error)) {
      // Whatever a 2025 server makes of the probe, it is no discover result.
      if (discover) return OnDiscoverAnswer(t.rpc_id, t.http_status, nullptr, now);
      return Lose(t.rpc_id, Loss::kFailed, JsonReason(error), now);
    }
    const Message msg = ClassifyMessage(doc);
    if (msg.kind != MessageKind::kResponse || msg.int_id != t.rpc_id) {
      if (discover) return OnDiscoverAnswer(t.rpc_id, t.http_status, nullptr, now);
      return Lose(t.rpc_id, Loss::kFailed, "invalid response from server", now);
    }
    if (discover) return OnDiscoverAnswer(t.rpc_id, t.http_status, &doc, now);
    return OnResponse(t.rpc_id, msg, now);
  }
  if (t.body == BodyKind::kSse) {
    // The stream closed before the response: the retry table resumes it when
    // the server made that possible.
    std::string why = result.ok ? "stream ended before the response" : TransportReason(result);
    return Lose(t.rpc_id, Loss::kBroken, std::move(why), now);
  }
  if (!result.ok) {
    const Loss loss = resuming              ? Loss::kResumeFailed
                      : result.request_sent ? Loss::kBroken
                                            : Loss::kFailed;
    return Lose(t.rpc_id, loss, TransportReason(result), now);
  }
  Lose(t.rpc_id, resuming ? Loss::kResumeFailed : Loss::kFailed, "no response from server", now);
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
      return ListenEnded(now, /*reopen_now=*/head);
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
