// Session phases: the table of allowed moves and EnterPhase, which makes
// every move and does each phase's entry work; the handshake, failed attempts
// and back-off, expired sessions, timers, shutdown, and the facade. The
// authorization hold lives in session_auth.cc, requests in session_calls.cc,
// transfers in session_wire.cc and session_receive.cc, the GET stream in
// session_listen.cc, the protocol era in session_era.cc.
#include "daemon/mcp/session.h"

#include <algorithm>
#include <cassert>

#include "base/clean_text.h"
#include "base/text.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

constexpr std::string_view kShuttingDown = "gateway shutting down";
constexpr size_t kMaxSessionIdBytes = 1024;

// Every phase change the session makes. kClosed is reachable from anywhere
// and is left out; anything else not listed is a bug in this file. Waiting
// for credentials changes no phase (AuthHold).
struct Move {
  Phase from;
  Phase to;
};
constexpr Move kMoves[] = {
    // A first attempt probes the era, unless the server is known to be legacy.
    {Phase::kIdle, Phase::kDiscovering},
    {Phase::kIdle, Phase::kConnecting},
    // The probe answered: modern lists tools, legacy initializes. Failed:
    // back off.
    {Phase::kDiscovering, Phase::kListing},
    {Phase::kDiscovering, Phase::kConnecting},
    {Phase::kDiscovering, Phase::kBackingOff},
    // The handshake answered: list tools. Failed: back off. Refused the way
    // a 2026-07-28 server refuses initialize: probe.
    {Phase::kConnecting, Phase::kListing},
    {Phase::kConnecting, Phase::kBackingOff},
    {Phase::kConnecting, Phase::kDiscovering},
    // Every page listed: serve. Failed (the session included): back off.
    {Phase::kListing, Phase::kReady},
    {Phase::kListing, Phase::kBackingOff},
    // The session expired (404): a new one, listed before it serves. The
    // server answered as if its era changed: probe it again. Either
    // happened while credentials were awaited, and none came: back off.
    {Phase::kReady, Phase::kConnecting},
    {Phase::kReady, Phase::kDiscovering},
    {Phase::kReady, Phase::kBackingOff},
    // The back-off ended, or a ready server got a call.
    {Phase::kBackingOff, Phase::kDiscovering},
    {Phase::kBackingOff, Phase::kConnecting},
};

bool MoveAllowed(Phase from, Phase to) {
  if (to == Phase::kClosed) return from != Phase::kClosed;
  return std::any_of(std::begin(kMoves), std::end(kMoves),
                     [&](const Move& m) { return m.from == from && m.to == to; });
}

// The spec allows visible ASCII only; anything else could split a header.
bool ValidSessionId(std::string_view id) {
  if (id.size() > kMaxSessionIdBytes) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

std::string RpcError(const Message& msg) {
  return "error " + std::to_string(msg.error_code) + ": " + msg.error_message;
}

void Earliest(std::optional<TimePoint>& acc, std::optional<TimePoint> t) {
  if (t && (!acc || *t < *acc)) acc = t;
}

}  // namespace

std::string_view StatusName(Status s) {
  switch (s) {
    case Status::kLoading:
      return "loading";
    case Status::kReady:
      return "ready";
    case Status::kError:
      return "error";
  }
  return "error";
}

std::string_view PhaseName(Phase p) {
  switch (p) {
    case Phase::kIdle:
      return "idle";
    case Phase::kDiscovering:
      return "discovering";
    case Phase::kConnecting:
      return "connecting";
    case Phase::kListing:
      return "listing";
    case Phase::kReady:
      return "ready";
    case Phase::kBackingOff:
      return "backing off";
    case Phase::kClosed:
      return "closed";
  }
  return "closed";
}

Session::Impl::Impl(std::string name, config::RemoteServer server, SessionLimits limits)
    : name_(std::move(name)),
      server_(std::move(server)),
      limits_(limits),
      tools_(std::make_shared<const ToolList>()),
      listen_(limits.backoff_initial, limits.backoff_max) {
  published_tools_ = tools_.get();
}

// --- the one place phases change ---

void Session::Impl::EnterPhase(Phase next, TimePoint now) {
  assert(MoveAllowed(phase_, next));
  if (!MoveAllowed(phase_, next)) {
    Log(LogLevel::kWarn, "internal: no move from " + std::string(PhaseName(phase_)) + " to " +
                             std::string(PhaseName(next)));
  }
  const Phase from = phase_;
  phase_ = next;
  switch (next) {
    case Phase::kIdle:
      break;
    case Phase::kDiscovering:
      NewAttempt(now);
      SendDiscover(std::string(kModernProtocolVersion), /*retried=*/false, now);
      break;
    case Phase::kConnecting:
      // After the probe the attempt goes on; anything else begins one.
      if (from != Phase::kDiscovering) NewAttempt(now);
      SendInitialize(now);
      break;
    case Phase::kListing:
      StartListing(now);
      break;
    case Phase::kReady:
      attempt_deadline_.reset();
      backoff_ = Duration::zero();
      reason_.clear();
      era_.On(EraEvent::kAttemptEnded);
      if (!served_) Log(LogLevel::kDebug, "ready");
      served_ = true;
      ServeWaiting(now);
      break;
    case Phase::kBackingOff:
      backoff_ = backoff_ == Duration::zero() ? limits_.backoff_initial
                                              : std::min(backoff_ * 2, limits_.backoff_max);
      retry_at_ = now + backoff_;
      Log(LogLevel::kDebug, "retrying in " + base::DescribeDuration(backoff_));
      break;
    case Phase::kClosed: {
      // Tasks still running are cancelled (best effort, before the DELETE)
      // and their calls fail like the others.
      ShutdownTasks(now);
      std::vector<TransferId> live;
      for (const auto& [id, t] : transfers_) {
        if (t.purpose != Purpose::kDelete && t.purpose != Purpose::kCancelTask) {
          live.push_back(id);
        }
      }
      for (TransferId id : live) Abort(id);
      for (auto& [id, req] : requests_) {
        if (req.kind == Kind::kCall && !req.as_task) {
          FinishCall(req, CallErrorKind::kTransport, std::string(kShuttingDown));
        }
      }
      requests_.clear();
      waiting_.clear();
      calls_.clear();
      notices_.clear();
      listing_ = Listing{};
      attempt_deadline_.reset();
      retry_at_.reset();
      auth_.On(HoldEvent::kAbandoned);
      auth_.TakeHeld();
      listen_.Stopped();
      if (have_session_ && !session_id_.empty()) {
        // A DELETE could make the server forget the tasks being cancelled.
        if (std::any_of(transfers_.begin(), transfers_.end(),
                        [](const auto& t) { return t.second.purpose == Purpose::kCancelTask; })) {
          delete_after_task_cancels_ = true;
        } else {
          StartDelete(now);
        }
      }
      have_session_ = false;
      break;
    }
  }
}

bool Session::Impl::Serving() const { return phase_ == Phase::kReady && !auth_.waiting(); }

// What a serving session does once it may send: the calls that waited go
// out, the GET stream opens, and a listing asked for meanwhile runs.
void Session::Impl::ServeWaiting(TimePoint now) {
  if (!Serving()) return;
  SendWaiting(now);
  OpenListen(now);
  if (listing_.again && !listing_.active) StartListing(now);
}

// --- the handshake ---

// Everything of the previous attempt ends: a new upstream session (or, on the
// modern wire, a new generation of requests) begins.
void Session::Impl::NewAttempt(TimePoint now) {
  // The old session's stream and listing end here; calls still in flight on
  // it run on, and what becomes of them is the classifier's to say.
  AbortGeneration(gen_);
  ++gen_;
  ++attempts_;
  session_id_.clear();
  have_session_ = false;
  listen_.NewSession();
  retry_at_.reset();
  std::vector<RpcId> pages;
  for (auto& [id, req] : requests_) {
    if (!ForCall(req.kind)) pages.push_back(id);
  }
  for (RpcId id : pages) DropRequest(id);
  listing_ = Listing{};  // the new session lists anyway
  const Duration budget = served_ ? limits_.request_deadline : limits_.first_attempt_deadline;
  attempt_deadline_ = now + budget;
}

void Session::Impl::SendInitialize(TimePoint now) {
  const Duration budget = served_ ? limits_.request_deadline : limits_.first_attempt_deadline;
  Request& req = NewRequest(Kind::kInitialize, *attempt_deadline_, budget);
  Log(LogLevel::kDebug, served_ ? "opening a new session" : "initializing");
  SendRequest(req, now);
}

void Session::Impl::OnInitializeResponse(const Message& msg, const std::string& session_id,
                                         TimePoint now) {
  if (msg.is_error) {
    // A 2026-07-28 server refuses initialize with one of its own errors.
    if (IsModernErrorCode(msg.error_code) &&
        ProbeAfterInitialize("initialize refused with " + RpcError(msg), now)) {
      return;
    }
    return FailAttempt("initialize failed: " + RpcError(msg), now);
  }
  // Whatever else is wrong, a session the server made is ours to DELETE.
  if (ValidSessionId(session_id)) {
    session_id_ = session_id;
    have_session_ = true;
  }
  if (!msg.result->IsObject()) return FailAttempt("invalid initialize result", now);
  const auto pv = msg.result->FindMember("protocolVersion");
  if (pv == msg.result->MemberEnd() || !pv->value.IsString()) {
    return FailAttempt("server answered no protocol version", now);
  }
  const std::string_view version(pv->value.GetString(), pv->value.GetStringLength());
  if (!IsSupportedProtocolVersion(version)) {
    return FailAttempt("server answered unsupported protocol version \"" +
                           base::CleanServerText(version, 64) + "\"",
                       now);
  }
  if (!ValidSessionId(session_id)) return FailAttempt("invalid session id from server", now);
  tasks_declared_ = DeclaresTaskToolCalls(*msg.result);
  protocol_version_ = std::string(version);
  session_id_ = session_id;
  have_session_ = true;
  Log(LogLevel::kDebug, "session " + std::to_string(gen_) + " opened (protocol " +
                            protocol_version_ + (session_id_.empty() ? ", no session id)" : ")"));
  initialized_transfer_ =
      StartHttp(Purpose::kInitialized, HttpMethod::kPost, BuildInitialized(), 0, now);
}

void Session::Impl::HandshakeDone(TimePoint now) {
  initialized_transfer_ = 0;
  EnterPhase(Phase::kListing, now);
}

// An attempt (handshake and listing of a new session) failed: its session is
// abandoned (DELETEd when the server made one), calls waiting on a ready
// server fail, and the next attempt waits out the back-off.
void Session::Impl::FailAttempt(const std::string& reason, TimePoint now) {
  if (phase_ == Phase::kClosed || phase_ == Phase::kBackingOff) return;
  Abort(initialized_transfer_);
  initialized_transfer_ = 0;
  std::vector<RpcId> ids;
  for (const auto& [id, req] : requests_) {
    if (!ForCall(req.kind)) ids.push_back(id);
  }
  for (RpcId id : ids) DropRequest(id);
  listing_ = Listing{};
  attempt_deadline_.reset();
  era_.On(EraEvent::kAttemptEnded);
  // Credentials that come later belong to no attempt; the next one asks again.
  auth_.On(HoldEvent::kAbandoned);
  AbandonSession(/*expired=*/false, now);
  if (served_) {
    Log(LogLevel::kInfo, "could not open a new session: " + reason);
    FailWaiting("session expired and re-initializing failed: " + reason, now);
  } else {
    reason_ = reason;
    Log(LogLevel::kDebug, "attempt failed: " + reason);
  }
  EnterPhase(Phase::kBackingOff, now);
}

void Session::Impl::AbandonSession(bool expired, TimePoint now) {
  AbortGeneration(gen_);
  notices_.clear();  // nothing more for this session
  if (have_session_ && !expired && !session_id_.empty()) {
    StartDelete(now);
    Log(LogLevel::kDebug, "session " + std::to_string(gen_) + " abandoned (DELETE sent)");
  }
  have_session_ = false;
  session_id_.clear();
}

// The server no longer knows the session (HTTP 404 on a request that carried
// its id). A session that never served is a failed attempt (so a server that
// forgets every session cannot make the client loop); a serving one is
// replaced at once, and the new one lists tools before it serves (BEHAVIOR.md §3).
void Session::Impl::SessionExpired(const std::string& why, TimePoint now) {
  if (phase_ != Phase::kReady) {
    if (phase_ == Phase::kBackingOff || phase_ == Phase::kClosed) return;
    return FailAttempt("session expired before it was ready (" + why + ")", now);
  }
  Log(LogLevel::kDebug, "session " + std::to_string(gen_) + " expired (" + why + ")");
  AbandonSession(/*expired=*/true, now);
  // While credentials are awaited, OnAuthorized opens the new session.
  if (!auth_.waiting()) EnterPhase(Phase::kConnecting, now);
}

// --- life and time ---

void Session::Impl::Start(TimePoint now) {
  if (phase_ != Phase::kIdle) return;
  EnterPhase(AttemptPhase(), now);
}

void Session::Impl::Shutdown(TimePoint now) {
  if (phase_ == Phase::kClosed) return;
  EnterPhase(Phase::kClosed, now);
}

void Session::Impl::OnTimer(TimePoint now) {
  if (phase_ == Phase::kClosed || phase_ == Phase::kIdle) return;
  if (phase_ == Phase::kBackingOff && retry_at_ && now >= *retry_at_) {
    retry_at_.reset();
    EnterPhase(AttemptPhase(), now);
  }
  std::vector<TransferId> late;
  for (const auto& [id, t] : transfers_) {
    if (t.purpose != Purpose::kRequest && now >= t.deadline) late.push_back(id);
  }
  for (TransferId id : late) OnTransferTimeout(id, now);

  std::vector<RpcId> expired, resume;
  for (const auto& [id, req] : requests_) {
    if (now >= req.deadline) {
      expired.push_back(id);
    } else if (req.resume_at && now >= *req.resume_at) {
      resume.push_back(id);
    }
  }
  for (RpcId id : expired) ExpireRequest(id, now);
  for (RpcId id : resume) {
    auto it = requests_.find(id);
    if (it != requests_.end() && it->second.resume_at) Resume(it->second, now);
  }
  TaskTimers(now);
  if (Serving() && listen_.Due(now)) OpenListen(now);
}

// A request outlived its deadline.
void Session::Impl::ExpireRequest(RpcId rpc_id, TimePoint now) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  Request& req = it->second;
  const std::string why = "timed out after " + base::DescribeDuration(req.budget);
  switch (req.kind) {
    case Kind::kDiscover:
      return OnDiscoverTimeout(rpc_id, now);
    case Kind::kInitialize:
      return FailAttempt(why + " initializing", now);
    case Kind::kListTools:
      if (phase_ == Phase::kListing) return FailAttempt(why + " listing tools", now);
      return FailListing(why + " listing tools", now);
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      return OnTaskRequestLate(req, now);
    case Kind::kCall: {
      if (req.as_task) return OnTaskRequestLate(req, now);
      // On the modern wire, closing the request's stream (DropRequest
      // aborts it) is the cancellation.
      const bool live = req.gen != 0 && (req.transfer != 0 || req.resume_at.has_value());
      const bool tell = live && !req.modern;
      const uint64_t gen = req.gen;
      FinishCall(req, CallErrorKind::kTransport, why);
      DropRequest(rpc_id);
      if (tell) Notify(BuildCancelled(rpc_id, "timed out"), /*must=*/true, gen, now);
      return;
    }
  }
}

void Session::Impl::Remind(Reminder::What what, uint64_t id, TimePoint at) {
  reminders_.push(Reminder{at, what, id});
  const size_t live = requests_.size() * 2 + transfers_.size();
  if (reminders_.size() <= 64 + 4 * live) return;
  // Mostly stale: keep one entry per time still set.
  decltype(reminders_) fresh;
  for (const auto& [rpc_id, req] : requests_) {
    const auto key = static_cast<uint64_t>(rpc_id);
    fresh.push(Reminder{req.deadline, Reminder::What::kRequestDeadline, key});
    if (req.resume_at) fresh.push(Reminder{*req.resume_at, Reminder::What::kResume, key});
  }
  for (const auto& [transfer_id, t] : transfers_) {
    if (t.purpose != Purpose::kRequest) {
      fresh.push(Reminder{t.deadline, Reminder::What::kTransferDeadline, transfer_id});
    }
  }
  reminders_ = std::move(fresh);
}

bool Session::Impl::Current(const Reminder& r) const {
  switch (r.what) {
    case Reminder::What::kRequestDeadline: {
      auto it = requests_.find(static_cast<RpcId>(r.id));
      return it != requests_.end() && it->second.deadline == r.at;
    }
    case Reminder::What::kResume: {
      auto it = requests_.find(static_cast<RpcId>(r.id));
      return it != requests_.end() && it->second.resume_at == r.at;
    }
    case Reminder::What::kTransferDeadline: {
      auto it = transfers_.find(r.id);
      return it != transfers_.end() && it->second.purpose != Purpose::kRequest &&
             it->second.deadline == r.at;
    }
  }
  return false;
}

std::optional<TimePoint> Session::Impl::NextWakeup() const {
  if (phase_ == Phase::kClosed) return std::nullopt;
  std::optional<TimePoint> next;
  if (phase_ == Phase::kBackingOff) Earliest(next, retry_at_);
  while (!reminders_.empty() && !Current(reminders_.top())) reminders_.pop();
  if (!reminders_.empty()) Earliest(next, reminders_.top().at);
  TaskWakeups(next);
  if (Serving()) Earliest(next, listen_.wakeup());
  return next;
}

// --- outputs ---

Status Session::Impl::status() const {
  if (served_) return Status::kReady;
  // Waiting for credentials is no failure (yet).
  if (auth_.waiting()) return Status::kLoading;
  return reason_.empty() ? Status::kLoading : Status::kError;
}

// One StateChanged per event at most, and only for what hosts and status
// see; the negotiated version counts once the session serves.
void Session::Impl::Publish() {
  const Status now_status = status();
  const std::string& now_reason = now_status == Status::kError ? reason_ : std::string();
  const bool version_changed = phase_ == Phase::kReady && protocol_version_ != published_version_;
  if (now_status == published_status_ && now_reason == published_reason_ &&
      tools_.get() == published_tools_ && !version_changed) {
    return;
  }
  published_status_ = now_status;
  published_reason_ = now_reason;
  published_tools_ = tools_.get();
  if (phase_ == Phase::kReady) published_version_ = protocol_version_;
  actions_.emplace_back(std::in_place_type<StateChanged>, StateChanged{});
}

void Session::Impl::Log(LogLevel level, std::string text) {
  actions_.emplace_back(std::in_place_type<LogLine>, LogLine{level, std::move(text)});
}

// --- the facade: every event ends by sending queued notices and reporting
// what changed ---

Session::Session(std::string name, config::RemoteServer server, SessionLimits limits)
    : impl_(std::make_unique<Impl>(std::move(name), std::move(server), limits)) {}
Session::~Session() = default;

#define MCPGW_SESSION_EVENT(call, now) \
  do {                                 \
    impl_->call;                       \
    impl_->PumpNotices(now);           \
    impl_->Publish();                  \
  } while (0)

void Session::Start(TimePoint now) { MCPGW_SESSION_EVENT(Start(now), now); }
void Session::OnResponseHead(TransferId id, const ResponseHead& head, TimePoint now) {
  MCPGW_SESSION_EVENT(OnHead(id, head, now), now);
}
void Session::OnResponseData(TransferId id, std::string_view bytes, TimePoint now) {
  MCPGW_SESSION_EVENT(OnData(id, bytes, now), now);
}
void Session::OnTransferDone(TransferId id, const TransferResult& result, TimePoint now) {
  MCPGW_SESSION_EVENT(OnDone(id, result, now), now);
}
void Session::OnTimer(TimePoint now) { MCPGW_SESSION_EVENT(OnTimer(now), now); }
void Session::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  MCPGW_SESSION_EVENT(Call(id, std::move(tool), std::move(arguments_json), now), now);
}
void Session::Cancel(CallId id, TimePoint now) { MCPGW_SESSION_EVENT(Cancel(id, now), now); }
void Session::Shutdown(TimePoint now) { MCPGW_SESSION_EVENT(Shutdown(now), now); }
void Session::SetAuthorization(Secret value) { impl_->authorization_ = std::move(value); }
void Session::SetEraHint(std::string_view version) {
  if (impl_->phase_ == Phase::kIdle && IsSupportedProtocolVersion(version)) {
    impl_->era_.On(EraEvent::kCachedLegacy);
  }
}
void Session::OnAuthorized(TimePoint now) { MCPGW_SESSION_EVENT(OnAuthorized(now), now); }
void Session::OnAuthorizationFailed(std::string reason, TimePoint now) {
  MCPGW_SESSION_EVENT(OnAuthorizationFailed(reason, now), now);
}

#undef MCPGW_SESSION_EVENT

std::vector<Action> Session::TakeActions() {
  std::vector<Action> out;
  out.swap(impl_->actions_);
  return out;
}
std::optional<TimePoint> Session::NextWakeup() const { return impl_->NextWakeup(); }

const std::string& Session::name() const { return impl_->name_; }
Phase Session::phase() const { return impl_->phase_; }
uint64_t Session::attempts() const { return impl_->attempts_; }
Status Session::status() const { return impl_->status(); }
bool Session::awaiting_authorization() const { return impl_->auth_.waiting(); }
const std::string& Session::reason() const {
  static const std::string kNone;
  return impl_->status() == Status::kError ? impl_->reason_ : kNone;
}
std::shared_ptr<const ToolList> Session::tools() const { return impl_->tools_; }
const std::string& Session::protocol_version() const { return impl_->protocol_version_; }

}  // namespace mcpgw::mcp
