// The Streamable HTTP wire, the sending side: the session's table of moves,
// the transfers it starts and the headers each carries (built in one place,
// Start), aborting them, the queue of notifications and replies, the stream
// of what the server sends unasked, and time. What transfers bring is in
// http_wire_receive.cc.
#include "daemon/mcp/http_wire.h"

#include <algorithm>

#include "base/clean_text.h"
#include "base/move_table.h"
#include "base/text.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/param_headers.h"

namespace mcpgw::mcp {

namespace {

constexpr std::string_view kAcceptPost = "application/json, text/event-stream";
constexpr std::string_view kEventStream = "text/event-stream";
constexpr size_t kMaxNotifyTransfers = 32;  // notification and reply POSTs in flight
// Replies to server requests waiting for a slot; past this a flooding server's
// pings go unanswered (and the log says so). Cancellations always wait.
constexpr size_t kMaxQueuedReplies = 256;

// The session's moves; anything else is ignored (a second end, a late open).
constexpr base::Move<HttpSessionState, HttpSessionEvent> kSessionMoves[] = {
    {HttpSessionState::kNone, HttpSessionEvent::kOpened, HttpSessionState::kOpen},
    {HttpSessionState::kOpen, HttpSessionEvent::kEnded, HttpSessionState::kNone},
    {HttpSessionState::kNone, HttpSessionEvent::kClose, HttpSessionState::kClosed},
    {HttpSessionState::kOpen, HttpSessionEvent::kClose, HttpSessionState::kClosed},
    {HttpSessionState::kOpen, HttpSessionEvent::kCloseAfterTells, HttpSessionState::kClosing},
    {HttpSessionState::kClosing, HttpSessionEvent::kTellsDone, HttpSessionState::kClosed},
};

// The stateless era's routing facts as the protocol headers of a POST.
void AddRoutingHeaders(const Routing& routing,
                       std::vector<std::pair<std::string, std::string>>& headers) {
  for (auto& h : ModernHeaders(routing.version, routing.method, routing.name)) {
    headers.push_back(std::move(h));
  }
  for (const auto& [name, value] : routing.params) {
    headers.emplace_back(std::string(kParamHeaderPrefix) + name, EncodeHeaderValue(value));
  }
}

}  // namespace

std::string_view HttpSessionStateName(HttpSessionState s) {
  switch (s) {
    case HttpSessionState::kNone:
      return "none";
    case HttpSessionState::kOpen:
      return "open";
    case HttpSessionState::kClosing:
      return "closing";
    case HttpSessionState::kClosed:
      return "closed";
  }
  return "closed";
}

HttpWire::HttpWire(config::RemoteServer server, SessionLimits limits, std::vector<Action>* out)
    : server_(std::move(server)),
      limits_(limits),
      out_(out),
      listen_(limits.backoff_initial, limits.backoff_max) {}

void HttpWire::Move(HttpSessionEvent event) {
  if (const std::optional<HttpSessionState> to = base::FindMove(kSessionMoves, state_, event)) {
    state_ = *to;
  }
}

void HttpWire::Log(LogLevel level, std::string text) {
  out_->emplace_back(std::in_place_type<LogLine>, LogLine{level, std::move(text)});
}

// --- starting and ending transfers ---

// The one place request headers are decided. The modern wire carries the
// routing facts of the request (or subscription) as protocol headers and no
// session; the legacy wire the session id and negotiated version, except
// initialize, which opens a new session and carries neither.
TransferId HttpWire::Start(Purpose purpose, HttpMethod method, std::string body, RpcId rpc_id,
                           TimePoint deadline, const Routing* routing,
                           std::string_view last_event_id) {
  const bool closed = state_ == HttpSessionState::kClosing || state_ == HttpSessionState::kClosed;
  if (closed && purpose != Purpose::kDelete && purpose != Purpose::kTell) return 0;
  const TransferId id = next_transfer_++;
  Transfer t;
  t.purpose = purpose;
  t.method = method;
  t.rpc_id = rpc_id;
  t.gen = gen_;
  t.deadline = deadline;
  bool open = false;
  bool call = false;
  if (purpose == Purpose::kRequest) {
    auto it = outs_.find(rpc_id);
    if (it != outs_.end()) {
      open = it->second.role == Role::kOpen;
      call = it->second.role == Role::kCall;
      t.modern = it->second.modern;
    }
  } else if (purpose == Purpose::kListen) {
    t.modern = routing != nullptr;
  }
  t.carried_session = !open && !t.modern && !session_id_.empty();

  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(6);  // the most a legacy request carries; modern ones may grow it
  if (method == HttpMethod::kPost) {
    headers.emplace_back("Accept", kAcceptPost);
    headers.emplace_back("Content-Type", "application/json");
  } else if (method == HttpMethod::kGet) {
    headers.emplace_back("Accept", kEventStream);
  }
  if (t.modern) {
    if (routing != nullptr) AddRoutingHeaders(*routing, headers);
  } else if (!open) {
    if (!session_id_.empty()) headers.emplace_back("Mcp-Session-Id", session_id_);
    if (!version_.empty()) headers.emplace_back("MCP-Protocol-Version", version_);
  }
  if (!last_event_id.empty()) headers.emplace_back("Last-Event-ID", last_event_id);
  if (!authorization_.empty()) headers.emplace_back("Authorization", authorization_.Reveal());

  StartTransfer start{id,
                      method,
                      &server_,
                      std::move(headers),
                      {},
                      /*long_lived=*/purpose == Purpose::kListen,
                      /*at_most_once=*/call && method == HttpMethod::kPost};
  if (method == HttpMethod::kPost) start.body = std::move(body);
  if (purpose == Purpose::kNotify || purpose == Purpose::kTell) ++notify_transfers_;
  kept_transfers_.Emplace(transfers_, id) = std::move(t);
  if (purpose != Purpose::kRequest) AddReminder(kTransferDeadline, id, deadline);
  out_->emplace_back(std::in_place_type<StartTransfer>, std::move(start));
  return id;
}

void HttpWire::Abort(TransferId id) {
  if (id == 0) return;
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  if (it->second.purpose == Purpose::kNotify || it->second.purpose == Purpose::kTell) {
    --notify_transfers_;
  }
  const bool answered = it->second.answered;
  kept_transfers_.Erase(transfers_, it);
  if (id == confirm_transfer_) confirm_transfer_ = 0;
  out_->emplace_back(std::in_place_type<AbortTransfer>, AbortTransfer{id, answered});
}

void HttpWire::AbortGeneration(uint64_t gen) {
  std::vector<TransferId> ids;
  for (const auto& [id, t] : transfers_) {
    if (t.gen == gen && (t.purpose == Purpose::kListen || t.purpose == Purpose::kConfirm)) {
      ids.push_back(id);
    }
  }
  for (TransferId id : ids) Abort(id);
  listen_.Stopped();
}

// --- the session ---

void HttpWire::Begin(TimePoint) {
  AbortGeneration(gen_);
  ++gen_;
  session_id_.clear();
  Move(HttpSessionEvent::kEnded);
  listen_.NewSession();
  listening_ = false;
}

void HttpWire::Abandon(std::string_view expired, TimePoint now) {
  if (!expired.empty()) {
    Log(LogLevel::kDebug,
        "session " + std::to_string(gen_) + " expired (" + std::string(expired) + ")");
  }
  AbortGeneration(gen_);
  notices_.clear();  // nothing more for this session
  if (state_ == HttpSessionState::kOpen && expired.empty() && !session_id_.empty()) {
    Start(Purpose::kDelete, HttpMethod::kDelete, "", 0, now + limits_.notify_deadline);
    Log(LogLevel::kDebug, "session " + std::to_string(gen_) + " abandoned (DELETE sent)");
  }
  Move(HttpSessionEvent::kEnded);
  session_id_.clear();
  listening_ = false;
}

void HttpWire::Opened(std::string_view version) {
  version_ = std::string(version);
  Move(HttpSessionEvent::kOpened);
  Log(LogLevel::kDebug, "session " + std::to_string(gen_) + " opened (protocol " + version_ +
                            (session_id_.empty() ? ", no session id)" : ")"));
}

void HttpWire::Confirm(std::string body, TimePoint deadline, std::string timeout_reason,
                       TimePoint) {
  confirm_timeout_ = std::move(timeout_reason);
  confirm_transfer_ = Start(Purpose::kConfirm, HttpMethod::kPost, std::move(body), 0, deadline);
}

// What still needs saying goes now (tasks/cancel, queued or not); everything
// else ends; the session is DELETEd once those POSTs ended.
void HttpWire::Close(TimePoint now) {
  for (Notice& notice : notices_) {
    if (notice.tell && notice.gen == gen_) {
      Start(Purpose::kTell, HttpMethod::kPost, std::move(notice.body), 0,
            now + limits_.notify_deadline);
    }
  }
  notices_.clear();
  std::vector<TransferId> live;
  for (const auto& [id, t] : transfers_) {
    if (t.purpose != Purpose::kDelete && t.purpose != Purpose::kTell) live.push_back(id);
  }
  for (TransferId id : live) Abort(id);
  outs_.clear();
  listen_.Stopped();
  listening_ = false;
  const bool had_session = state_ == HttpSessionState::kOpen && !session_id_.empty();
  // A DELETE could make the server forget the tasks being cancelled.
  if (had_session && std::any_of(transfers_.begin(), transfers_.end(), [](const auto& t) {
        return t.second.purpose == Purpose::kTell;
      })) {
    return Move(HttpSessionEvent::kCloseAfterTells);
  }
  Move(HttpSessionEvent::kClose);
  if (had_session) {
    Start(Purpose::kDelete, HttpMethod::kDelete, "", 0, now + limits_.notify_deadline);
  }
}

// A tasks/cancel ended: while shutting down, the DELETE goes once the last
// one has.
void HttpWire::AfterTell(TimePoint now) {
  if (state_ != HttpSessionState::kClosing) return;
  if (std::any_of(transfers_.begin(), transfers_.end(),
                  [](const auto& t) { return t.second.purpose == Purpose::kTell; })) {
    return;
  }
  Move(HttpSessionEvent::kTellsDone);
  Start(Purpose::kDelete, HttpMethod::kDelete, "", 0, now + limits_.notify_deadline);
}

// --- requests ---

void HttpWire::Send(OutRequest request, TimePoint now) {
  if (state_ == HttpSessionState::kClosing || state_ == HttpSessionState::kClosed) return;
  Out& out = kept_outs_.Emplace(outs_, request.id);
  out = Out{};
  out.role = request.role;
  out.resent = request.resent;
  out.modern = request.routing.has_value();
  out.gen = gen_;
  out.transfer = Start(Purpose::kRequest, HttpMethod::kPost, std::move(request.body), request.id,
                       now, request.routing ? &*request.routing : nullptr);
}

void HttpWire::Drop(RpcId id) {
  auto it = outs_.find(id);
  if (it == outs_.end()) return;
  Abort(it->second.transfer);
  kept_outs_.Erase(outs_, it);
}

// Only a request the server may hold needs telling: one in flight, or
// between its stream and the resumption. On the modern wire closing its
// stream is the cancellation itself.
bool HttpWire::Cancel(RpcId id, std::string notice, bool keep_reading, TimePoint now) {
  auto it = outs_.find(id);
  if (it == outs_.end()) return false;
  const bool tell = !it->second.modern;
  const uint64_t gen = it->second.gen;
  const bool kept = keep_reading && it->second.transfer != 0 && !it->second.modern;
  if (!kept) {
    Abort(it->second.transfer);
    kept_outs_.Erase(outs_, it);
  }
  if (tell) Enqueue(Notice{std::move(notice), gen, /*must=*/true}, now);
  return kept;
}

void HttpWire::Reply(std::string body, From to, TimePoint now) {
  Enqueue(Notice{std::move(body), to.session, /*must=*/false}, now);
}

// tasks/cancel, best effort, like a notification: its answer is not read.
// While shutting down it goes at once (the queue is gone).
void HttpWire::Tell(std::string body, TimePoint now) {
  if (state_ == HttpSessionState::kClosing || state_ == HttpSessionState::kClosed) {
    Start(Purpose::kTell, HttpMethod::kPost, std::move(body), 0, now + limits_.notify_deadline);
    return;
  }
  notices_.push_back(Notice{std::move(body), gen_, /*must=*/true, /*tell=*/true});
  AfterEvent(now);
}

// --- the notification queue ---

// Queues a notification or reply for session `gen`. Nothing is dropped
// silently: a message for a session that is gone has no one to go to, and a
// reply past the queue's bound is counted and logged.
void HttpWire::Enqueue(Notice notice, TimePoint now) {
  if (notice.gen != gen_) {
    Log(LogLevel::kDebug,
        "not sent: its session is gone: " + base::CleanServerText(notice.body, 120));
    return;
  }
  if (!notice.must && notices_.size() >= kMaxQueuedReplies) {
    ++dropped_replies_;
    return;
  }
  notices_.push_back(std::move(notice));
  AfterEvent(now);
}

void HttpWire::AfterEvent(TimePoint now) {
  if (dropped_replies_ > 0) {
    Log(LogLevel::kWarn, "the server sent more requests than the client answers at once; " +
                             std::to_string(dropped_replies_) + " left unanswered");
    dropped_replies_ = 0;
  }
  while (notify_transfers_ < kMaxNotifyTransfers && !notices_.empty()) {
    Notice notice = std::move(notices_.front());
    notices_.pop_front();
    if (notice.gen != gen_) continue;  // its session is gone
    Start(notice.tell ? Purpose::kTell : Purpose::kNotify, HttpMethod::kPost,
          std::move(notice.body), 0, now + limits_.notify_deadline);
  }
}

// --- what the server sends unasked ---

void HttpWire::Listen(Listening how, TimePoint now) {
  listening_ = true;
  listen_how_ = how;
  OpenListen(now);
}

void HttpWire::OpenListen(TimePoint now) {
  if (!listening_ || !listen_.Due(now)) return;
  const TimePoint deadline = now + limits_.request_deadline;  // for the head; then the lifetime
  if (listen_how_ == Listening::kSubscribe) {
    OutRequest sub = listener_->Subscription();
    listen_.Asked(Start(Purpose::kListen, HttpMethod::kPost, std::move(sub.body), 0, deadline,
                        sub.routing ? &*sub.routing : nullptr));
    return;
  }
  if (state_ != HttpSessionState::kOpen) return;
  listen_.Asked(Start(Purpose::kListen, HttpMethod::kGet, "", 0, deadline));
}

// The conversation stops serving for a while (credentials are awaited).
void HttpWire::StopListening() {
  listening_ = false;
  Abort(listen_.transfer());
  listen_.Stopped();
}

void HttpWire::ListenEnded(TimePoint now, bool at_once) {
  if (state_ == HttpSessionState::kClosing || state_ == HttpSessionState::kClosed) return;
  const std::optional<Duration> delay = listen_.Ended(now, at_once);
  if (!delay || at_once) return;
  Log(LogLevel::kDebug,
      std::string(listen_how_ == Listening::kSubscribe ? "subscriptions/listen" : "GET") +
          " stream ended; reopening it in " + base::DescribeDuration(*delay));
}

void HttpWire::AskCredentials() {
  Log(LogLevel::kDebug, "HTTP " + std::to_string(refusal_status_) + ": waiting for authorization");
  out_->emplace_back(std::in_place_type<AuthorizationNeeded>,
                     AuthorizationNeeded{refusal_status_, refusal_challenge_});
}

// --- time ---

void HttpWire::AddReminder(Remind what, uint64_t id, TimePoint at) {
  reminders_.Add({at, what, id}, outs_.size() + transfers_.size(),
                 [this](std::vector<Reminders::Entry>& fresh) {
                   for (const auto& [rpc_id, o] : outs_) {
                     if (o.resume_at) {
                       fresh.push_back({*o.resume_at, kResume, static_cast<uint64_t>(rpc_id)});
                     }
                   }
                   for (const auto& [transfer_id, t] : transfers_) {
                     if (t.purpose != Purpose::kRequest) {
                       fresh.push_back({t.deadline, kTransferDeadline, transfer_id});
                     }
                   }
                 });
}

void HttpWire::OnTimer(TimePoint now) {
  if (state_ == HttpSessionState::kClosing || state_ == HttpSessionState::kClosed) return;
  std::vector<TransferId> late;
  for (const auto& [id, t] : transfers_) {
    if (t.purpose != Purpose::kRequest && now >= t.deadline) late.push_back(id);
  }
  for (TransferId id : late) receiver_.OnTransferTimeout(id, now);
  std::vector<RpcId> resume;
  for (const auto& [id, o] : outs_) {
    if (o.resume_at && now >= *o.resume_at) resume.push_back(id);
  }
  for (RpcId id : resume) {
    auto it = outs_.find(id);
    if (it == outs_.end() || !it->second.resume_at) continue;
    Out& o = it->second;
    o.resume_at.reset();
    o.transfer = Start(Purpose::kRequest, HttpMethod::kGet, "", id, now, nullptr, o.last_event_id);
  }
  if (listening_ && listen_.Due(now)) OpenListen(now);
}

std::optional<TimePoint> HttpWire::NextWakeup() const {
  if (state_ == HttpSessionState::kClosing || state_ == HttpSessionState::kClosed) {
    return std::nullopt;
  }
  std::optional<TimePoint> next = reminders_.Next([this](const Reminders::Entry& e) {
    if (e.what == kResume) {
      auto it = outs_.find(static_cast<RpcId>(e.id));
      return it != outs_.end() && it->second.resume_at == e.at;
    }
    auto it = transfers_.find(e.id);
    return it != transfers_.end() && it->second.purpose != Purpose::kRequest &&
           it->second.deadline == e.at;
  });
  if (listening_) {
    if (std::optional<TimePoint> wake = listen_.wakeup(); wake && (!next || *wake < *next)) {
      next = wake;
    }
  }
  return next;
}

}  // namespace mcpgw::mcp
