// Session transfers, the sending side: the HTTP requests the session starts
// and the headers each carries (built in one place, RequestHeaders), aborting
// them, resuming a request's stream, and the queue of notifications and
// replies. What transfers report lives in session_receive.cc, the GET stream
// in session_listen.cc.
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
}  // namespace

// --- starting and ending transfers ---

TransferId Session::Impl::StartHttp(Purpose purpose, HttpMethod method, std::string body,
                                    RpcId rpc_id, TimePoint now, std::string_view last_event_id) {
  if (phase_ == Phase::kClosed && purpose != Purpose::kDelete && purpose != Purpose::kCancelTask) {
    return 0;
  }
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
    case Purpose::kCancelTask:
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
  if (purpose == Purpose::kNotify || purpose == Purpose::kCancelTask) ++notify_transfers_;
  const TimePoint deadline = t.deadline;
  transfers_.emplace(id, std::move(t));
  if (purpose != Purpose::kRequest) Remind(Reminder::What::kTransferDeadline, id, deadline);
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
  headers.reserve(6);  // the most a legacy request carries; modern ones may grow it
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
  if (it->second.purpose == Purpose::kNotify || it->second.purpose == Purpose::kCancelTask) {
    --notify_transfers_;
  }
  const bool answered = it->second.answered;
  transfers_.erase(it);
  if (id == initialized_transfer_) initialized_transfer_ = 0;
  actions_.emplace_back(std::in_place_type<AbortTransfer>, AbortTransfer{id, answered});
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
  BuildWire(req, now);
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
    StartHttp(notice.cancel_task ? Purpose::kCancelTask : Purpose::kNotify, HttpMethod::kPost,
              std::move(notice.body), 0, now);
  }
}

}  // namespace mcpgw::mcp
