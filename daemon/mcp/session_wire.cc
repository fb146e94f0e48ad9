// Session transfers: the HTTP requests the session starts, their response
// heads and bodies (JSON or SSE, bounded while they stream in), resumption of
// broken SSE streams, the standalone GET stream, and the server's own
// requests and notifications. Lifecycle decisions live in session.cc.
#include <algorithm>
#include <cctype>

#include "daemon/mcp/bounded_json.h"
#include "daemon/mcp/convert.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

constexpr std::string_view kAcceptPost = "application/json, text/event-stream";
constexpr std::string_view kEventStream = "text/event-stream";
constexpr int kMaxResumes = 5;  // resumptions in a row that brought no new event
constexpr auto kDefaultResumeDelay = std::chrono::milliseconds(500);
constexpr long kMaxResumeDelayMs = 10'000;
constexpr size_t kMaxNotifyTransfers = 32;  // replies to server requests in flight

// "application/json; charset=utf-8" → "application/json".
std::string MediaType(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  std::string out;
  for (char c : content_type) {
    if (c != ' ' && c != '\t')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool Is2xx(int status) { return status >= 200 && status < 300; }

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
  std::string text = CleanServerText(result.error);
  return text.empty() ? "transfer failed" : text;
}

// A Last-Event-ID must stay one header line.
bool UsableEventId(std::string_view id) {
  return !id.empty() && id.size() <= 1024 && std::none_of(id.begin(), id.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
}

}  // namespace

TransferId Session::Impl::StartHttp(
    Purpose purpose, HttpMethod method, std::string body, RpcId rpc_id,
    std::vector<std::pair<std::string, std::string>> extra_headers) {
  if (shutting_down_ && purpose != Purpose::kDelete) return 0;
  const TransferId id = next_transfer_++;
  Transfer t;
  t.purpose = purpose;
  t.method = method;
  t.rpc_id = rpc_id;
  t.session_gen = session_gen_;
  StartTransfer start{id, method, &server_, {}, {}};
  if (method == HttpMethod::kPost) {
    start.headers.emplace_back("Accept", kAcceptPost);
    start.headers.emplace_back("Content-Type", "application/json");
    start.body = std::move(body);
  } else if (method == HttpMethod::kGet) {
    start.headers.emplace_back("Accept", kEventStream);
  }
  // initialize opens a new session: it carries neither header.
  bool initialize = false;
  if (purpose == Purpose::kRequest) {
    auto it = requests_.find(rpc_id);
    initialize = it != requests_.end() && it->second.kind == Kind::kInitialize;
  }
  if (!initialize) {
    if (!session_id_.empty()) {
      start.headers.emplace_back("Mcp-Session-Id", session_id_);
      t.carried_session = true;
    }
    if (!protocol_version_.empty()) {
      start.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    }
  }
  for (auto& h : extra_headers) start.headers.push_back(std::move(h));
  if (purpose == Purpose::kNotify) ++notify_transfers_;
  transfers_.emplace(id, std::move(t));
  actions_.emplace_back(std::in_place_type<StartTransfer>, std::move(start));
  return id;
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

void Session::Impl::SendRequest(Request& req) {
  req.resume_at.reset();
  req.last_event_id.clear();
  req.retry_ms.reset();
  req.resumes = 0;
  req.transfer = StartHttp(Purpose::kRequest, HttpMethod::kPost, req.body, req.rpc_id);
  if (req.transfer != 0) req.bytes_out += req.body.size();
}

void Session::Impl::Resume(Request& req) {
  req.resume_at.reset();
  req.transfer = StartHttp(Purpose::kRequest, HttpMethod::kGet, "", req.rpc_id,
                           {{"Last-Event-ID", req.last_event_id}});
}

void Session::Impl::Notify(std::string body) {
  if (notify_transfers_ >= kMaxNotifyTransfers) return;
  StartHttp(Purpose::kNotify, HttpMethod::kPost, std::move(body), 0);
}

void Session::Impl::OpenListen(TimePoint) {
  if (shutting_down_ || listen_unsupported_ || listen_transfer_ != 0) return;
  listen_retry_at_.reset();
  listen_progress_ = false;
  listen_transfer_ = StartHttp(Purpose::kListen, HttpMethod::kGet, "", 0);
}

void Session::Impl::ListenEnded(TimePoint now) {
  listen_transfer_ = 0;
  if (shutting_down_ || listen_unsupported_) return;
  // A stream that delivered something may reopen soon; one that did not
  // backs off like a failed attempt, so a broken endpoint costs little.
  if (listen_progress_ || listen_backoff_ == Duration::zero()) {
    listen_backoff_ = limits_.backoff_initial;
  } else {
    listen_backoff_ = std::min(listen_backoff_ * 2, limits_.backoff_max);
  }
  listen_retry_at_ = now + listen_backoff_;
}

// --- events ---

void Session::Impl::OnHead(TransferId id, int http_status, std::string_view content_type,
                           std::string_view session_id, TimePoint now) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  Transfer& t = it->second;
  t.http_status = http_status;
  const std::string media = MediaType(content_type);
  switch (t.purpose) {
    case Purpose::kNotify:
    case Purpose::kDelete:
      return;
    case Purpose::kInitialized:
      if (!Is2xx(http_status)) {
        Abort(id);
        FailHandshake(StatusReason(http_status), now);
      }
      return;
    case Purpose::kListen:
      if (http_status == 405) {
        listen_unsupported_ = true;
        Abort(id);
      } else if (!Is2xx(http_status) || media != kEventStream) {
        Abort(id);
        ListenEnded(now);
      } else {
        t.body = BodyKind::kSse;
        t.sse = std::make_unique<SseDecoder>(limits_.max_sse_event_bytes);
      }
      return;
    case Purpose::kRequest:
      break;
  }
  const RpcId rpc_id = t.rpc_id;
  auto req = requests_.find(rpc_id);
  if (req == requests_.end()) return Abort(id);
  if (ExpiredSessionRetry(t, now)) return;
  if (!Is2xx(http_status)) return FailRequest(rpc_id, StatusReason(http_status), now);
  if (media == "application/json" && t.method == HttpMethod::kPost) {
    t.body = BodyKind::kJson;
  } else if (media == kEventStream) {
    t.body = BodyKind::kSse;
    t.sse = std::make_unique<SseDecoder>(limits_.max_sse_event_bytes);
  } else if (http_status == 202) {
    return FailRequest(rpc_id, "server accepted the request without answering it", now);
  } else {
    return FailRequest(rpc_id, "unexpected content type from server", now);
  }
  if (req->second.kind == Kind::kInitialize && t.method == HttpMethod::kPost) {
    req->second.head_session_id = std::string(session_id);
  }
}

bool Session::Impl::ExpiredSessionRetry(const Transfer& t, TimePoint now) {
  if (t.http_status != 404 || !t.carried_session || status_ != Status::kReady) return false;
  auto it = requests_.find(t.rpc_id);
  if (it == requests_.end() || it->second.resent) return false;
  Request& req = it->second;
  req.resent = true;
  const uint64_t gen = t.session_gen;
  Abort(req.transfer);  // invalidates t
  req.transfer = 0;
  req.resume_at.reset();
  // Sent before a re-initialisation that has already finished: just resend.
  if (gen < session_gen_ && !reinit_ && !session_lost_) {
    SendRequest(req);
    return true;
  }
  waiting_.push_back(req.rpc_id);
  if (!reinit_) BeginHandshake(/*reinit=*/true, now);
  return true;
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
      const std::string why = "response exceeds " + DescribeSize(limits_.max_response_bytes);
      if (req) return FailRequest(t.rpc_id, why, now);
      const Purpose purpose = t.purpose;
      Abort(id);
      if (purpose == Purpose::kInitialized) FailHandshake(why, now);
      return;
    }
  }
  if (t.body == BodyKind::kJson) {
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
    const std::string why = "server event exceeds " + DescribeSize(limits_.max_sse_event_bytes);
    auto again = transfers_.find(id);
    if (again == transfers_.end()) return;
    if (again->second.purpose == Purpose::kRequest) {
      return FailRequest(again->second.rpc_id, why, now);
    }
    Abort(id);
    ListenEnded(now);
  }
}

void Session::Impl::HandleEvent(TransferId id, const SseEvent& event, TimePoint now) {
  if (event.type != "message") return;
  rapidjson::Document doc;
  std::string error;
  const JsonLimits limits{limits_.max_sse_event_bytes, limits_.max_json_depth};
  if (!ParseBoundedJson(event.data, limits, doc, error)) {
    // A broken message fails the request whose stream carried it; on the
    // standalone stream it is skipped.
    auto it = transfers_.find(id);
    if (it != transfers_.end() && it->second.purpose == Purpose::kRequest) {
      FailRequest(it->second.rpc_id, JsonReason(error), now);
    }
    return;
  }
  const Message msg = ClassifyMessage(doc);
  if (msg.kind == MessageKind::kResponse) {
    if (msg.int_id && requests_.count(*msg.int_id)) OnResponse(*msg.int_id, msg, now);
    return;
  }
  HandleServerMessage(msg, now);
}

void Session::Impl::HandleServerMessage(const Message& msg, TimePoint now) {
  if (msg.kind == MessageKind::kRequest) {
    if (msg.method == "ping") {
      Notify(BuildEmptyResult(*msg.id));
    } else {
      Notify(BuildErrorResponse(*msg.id, kMethodNotFound, "method not supported by this client"));
    }
  } else if (msg.kind == MessageKind::kNotification) {
    if (msg.method == "notifications/tools/list_changed") ToolsChanged(now);
  }
}

void Session::Impl::OnResponse(RpcId rpc_id, const Message& msg, TimePoint now) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  Request& req = it->second;
  // An SSE stream has served its purpose once the response is in.
  Abort(req.transfer);
  req.transfer = 0;
  switch (req.kind) {
    case Kind::kInitialize: {
      const std::string session_id = std::move(req.head_session_id);
      DropRequest(rpc_id);
      return OnInitializeResponse(msg, session_id, now);
    }
    case Kind::kListTools:
      if (msg.is_error) {
        return FailListing(
            "tools/list failed: error " + std::to_string(msg.error_code) + ": " + msg.error_message,
            now);
      }
      DropRequest(rpc_id);
      return OnPage(*msg.result, now);
    case Kind::kCall:
      if (msg.is_error) {
        FinishCall(req, CallErrorKind::kBackend,
                   "error " + std::to_string(msg.error_code) + ": " + msg.error_message);
      } else if (!msg.result->IsObject()) {
        FinishCall(req, CallErrorKind::kTransport, "invalid tools/call result");
      } else {
        ConvertedResult converted = ConvertCallResult(*msg.result);
        FinishCall(req, converted.is_error ? CallErrorKind::kBackend : CallErrorKind::kNone,
                   std::move(converted.text));
      }
      DropRequest(rpc_id);
      return;
  }
}

void Session::Impl::FailRequest(RpcId rpc_id, const std::string& reason, TimePoint now) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  Request& req = it->second;
  Abort(req.transfer);
  req.transfer = 0;
  switch (req.kind) {
    case Kind::kInitialize:
      return FailHandshake(reason, now);
    case Kind::kListTools:
      return FailListing(reason, now);
    case Kind::kCall:
      FinishCall(req, CallErrorKind::kTransport, reason);
      return DropRequest(rpc_id);
  }
}

void Session::Impl::OnDone(TransferId id, const TransferResult& result, TimePoint now) {
  auto node = transfers_.extract(id);
  if (node.empty()) return;
  Transfer t = std::move(node.mapped());
  switch (t.purpose) {
    case Purpose::kDelete:
      return;
    case Purpose::kNotify:
      --notify_transfers_;
      return;
    case Purpose::kListen:
      return ListenEnded(now);
    case Purpose::kInitialized:
      initialized_transfer_ = 0;
      if (!result.ok) return FailHandshake(TransportReason(result), now);
      if (!Is2xx(t.http_status)) return FailHandshake("no response from server", now);
      return HandshakeDone(now);
    case Purpose::kRequest:
      break;
  }
  auto it = requests_.find(t.rpc_id);
  if (it == requests_.end()) return;
  Request& req = it->second;
  req.transfer = 0;
  if (t.body == BodyKind::kJson) {
    if (!result.ok) return FailRequest(t.rpc_id, TransportReason(result), now);
    rapidjson::Document doc;
    std::string error;
    const JsonLimits limits{limits_.max_response_bytes, limits_.max_json_depth};
    if (!ParseBoundedJson(t.json, limits, doc, error)) {
      return FailRequest(t.rpc_id, JsonReason(error), now);
    }
    const Message msg = ClassifyMessage(doc);
    if (msg.kind != MessageKind::kResponse || msg.int_id != t.rpc_id) {
      return FailRequest(t.rpc_id, "invalid response from server", now);
    }
    return OnResponse(t.rpc_id, msg, now);
  }
  if (t.body == BodyKind::kSse) {
    // The stream closed before the response: resume it if the server made
    // that possible, waiting what it asked (bounded).
    if (UsableEventId(req.last_event_id) && req.resumes < kMaxResumes) {
      ++req.resumes;
      Duration delay = kDefaultResumeDelay;
      if (req.retry_ms) {
        delay = std::chrono::milliseconds(std::clamp(*req.retry_ms, 0L, kMaxResumeDelayMs));
      }
      req.resume_at = now + delay;
      return;
    }
    return FailRequest(
        t.rpc_id, result.ok ? "stream ended before the response" : TransportReason(result), now);
  }
  FailRequest(t.rpc_id, result.ok ? "no response from server" : TransportReason(result), now);
}

}  // namespace mcpgw::mcp
