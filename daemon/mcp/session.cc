// Session phases: the table of allowed moves and EnterPhase, which makes
// every move and does each phase's entry work; the handshake, failed attempts
// and back-off, expired sessions, authorization, timers, shutdown, and the
// facade. Requests live in session_calls.cc, transfers in session_wire.cc,
// the protocol era in session_era.cc.
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
// and is left out; anything else not listed is a bug in this file.
struct Move {
  Phase from;
  Phase to;
};
constexpr Move kMoves[] = {
    // A first attempt probes the era, unless the server is known to be legacy.
    {Phase::kIdle, Phase::kDiscovering},
    {Phase::kIdle, Phase::kConnecting},
    // The probe answered: modern lists tools, legacy initializes. Failed:
    // back off. 401: authorize.
    {Phase::kDiscovering, Phase::kListing},
    {Phase::kDiscovering, Phase::kConnecting},
    {Phase::kDiscovering, Phase::kBackingOff},
    {Phase::kDiscovering, Phase::kAuthorizing},
    // The handshake answered: list tools. Failed: back off. 401: authorize.
    // Refused the way a 2026-07-28 server refuses initialize: probe.
    {Phase::kConnecting, Phase::kListing},
    {Phase::kConnecting, Phase::kBackingOff},
    {Phase::kConnecting, Phase::kAuthorizing},
    {Phase::kConnecting, Phase::kDiscovering},
    // Every page listed: serve. Failed (the session included): back off.
    {Phase::kListing, Phase::kReady},
    {Phase::kListing, Phase::kBackingOff},
    {Phase::kListing, Phase::kAuthorizing},
    // The session expired (404): a new one, listed before it serves. The
    // server answered as if its era changed: probe it again.
    {Phase::kReady, Phase::kConnecting},
    {Phase::kReady, Phase::kDiscovering},
    {Phase::kReady, Phase::kAuthorizing},
    // The back-off ended, or a ready server got a call.
    {Phase::kBackingOff, Phase::kDiscovering},
    {Phase::kBackingOff, Phase::kConnecting},
    // Authorized: back where the refusal struck (or a new session when the
    // old one expired meanwhile). Refused for good: a failed attempt.
    {Phase::kAuthorizing, Phase::kDiscovering},
    {Phase::kAuthorizing, Phase::kConnecting},
    {Phase::kAuthorizing, Phase::kListing},
    {Phase::kAuthorizing, Phase::kReady},
    {Phase::kAuthorizing, Phase::kBackingOff},
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
    case Phase::kAuthorizing:
      return "authorizing";
    case Phase::kClosed:
      return "closed";
  }
  return "closed";
}

Session::Impl::Impl(std::string name, config::RemoteServer server, SessionLimits limits)
    : name_(std::move(name)),
      server_(std::move(server)),
      limits_(limits),
      tools_(std::make_shared<const ToolList>()) {
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
  auto held = [&](Kind kind) {
    std::vector<RpcId> ids;
    for (auto& [id, req] : requests_) {
      if (req.held && req.kind == kind) ids.push_back(id);
    }
    return ids;
  };
  auto resend = [&](const std::vector<RpcId>& ids) {
    for (RpcId id : ids) {
      auto it = requests_.find(id);
      if (it == requests_.end()) continue;
      it->second.held = false;
      SendRequest(it->second, now);
    }
  };
  switch (next) {
    case Phase::kIdle:
      break;
    case Phase::kDiscovering: {
      // Back from authorizing with the probe refused: send it again.
      const std::vector<RpcId> probes = held(Kind::kDiscover);
      if (from == Phase::kAuthorizing && !probes.empty()) {
        resend(probes);
      } else {
        NewAttempt(now);
        SendDiscover(std::string(kModernProtocolVersion), /*retried=*/false, now);
      }
      break;
    }
    case Phase::kConnecting: {
      // Back from authorizing with the initialize refused: send it again.
      const std::vector<RpcId> inits = held(Kind::kInitialize);
      if (from == Phase::kAuthorizing && !inits.empty()) {
        resend(inits);
      } else {
        // After the probe the attempt goes on; anything else begins one.
        if (from != Phase::kDiscovering) NewAttempt(now);
        SendInitialize(now);
      }
      break;
    }
    case Phase::kListing: {
      const std::vector<RpcId> pages = held(Kind::kListTools);
      if (from == Phase::kAuthorizing && !pages.empty()) {
        resend(pages);
      } else {
        StartListing(now);
      }
      break;
    }
    case Phase::kReady:
      attempt_deadline_.reset();
      backoff_ = Duration::zero();
      reason_.clear();
      probed_ = false;
      if (!served_) Log(LogLevel::kDebug, "ready");
      served_ = true;
      resend(held(Kind::kCall));
      resend(held(Kind::kListTools));
      SendWaiting(now);
      OpenListen(now);
      if (listing_.again && !listing_.active) StartListing(now);
      break;
    case Phase::kBackingOff:
      backoff_ = backoff_ == Duration::zero() ? limits_.backoff_initial
                                              : std::min(backoff_ * 2, limits_.backoff_max);
      retry_at_ = now + backoff_;
      Log(LogLevel::kDebug, "retrying in " + base::DescribeDuration(backoff_));
      break;
    case Phase::kAuthorizing:
      auth_resume_ = from;
      break;
    case Phase::kClosed: {
      std::vector<TransferId> live;
      for (const auto& [id, t] : transfers_) {
        if (t.purpose != Purpose::kDelete) live.push_back(id);
      }
      for (TransferId id : live) Abort(id);
      for (auto& [id, req] : requests_) {
        if (req.kind == Kind::kCall) {
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
      listen_retry_at_.reset();
      if (have_session_ && !session_id_.empty()) StartDelete(now);
      have_session_ = false;
      break;
    }
  }
}

// --- the handshake ---

// Everything of the previous attempt ends: a new upstream session (or, on the
// modern wire, a new generation of requests) begins.
void Session::Impl::NewAttempt(TimePoint now) {
  // The old session's stream and listing end here; calls still in flight on
  // it run on, and what becomes of them is the retry table's to say.
  AbortGeneration(gen_);
  ++gen_;
  session_id_.clear();
  have_session_ = false;
  listen_unsupported_ = false;
  listen_opened_ = false;
  listen_retry_at_.reset();
  listen_backoff_ = Duration::zero();
  retry_at_.reset();
  std::vector<RpcId> pages;
  for (auto& [id, req] : requests_) {
    if (req.kind != Kind::kCall) pages.push_back(id);
    if (req.kind == Kind::kCall && req.held) {
      req.held = false;
      waiting_.push_back(id);
    }
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
    if (req.kind != Kind::kCall) ids.push_back(id);
  }
  for (RpcId id : ids) DropRequest(id);
  listing_ = Listing{};
  attempt_deadline_.reset();
  probed_ = false;
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
  const bool serving =
      phase_ == Phase::kReady || (phase_ == Phase::kAuthorizing && auth_resume_ == Phase::kReady);
  if (!serving) {
    if (phase_ == Phase::kBackingOff || phase_ == Phase::kClosed) return;
    return FailAttempt("session expired before it was ready (" + why + ")", now);
  }
  Log(LogLevel::kDebug, "session " + std::to_string(gen_) + " expired (" + why + ")");
  AbandonSession(/*expired=*/true, now);
  // While authorizing, OnAuthorized opens the new session.
  if (phase_ == Phase::kReady) EnterPhase(Phase::kConnecting, now);
}

// --- authorization ---

void Session::Impl::NeedAuthorization(int http_status, std::string_view www_authenticate,
                                      TimePoint now) {
  if (phase_ == Phase::kAuthorizing) return;  // once per wait
  if (phase_ != Phase::kDiscovering && phase_ != Phase::kConnecting && phase_ != Phase::kListing &&
      phase_ != Phase::kReady) {
    return;
  }
  Abort(listen_transfer_);
  listen_transfer_ = 0;
  EnterPhase(Phase::kAuthorizing, now);
  Log(LogLevel::kDebug, "HTTP " + std::to_string(http_status) + ": waiting for authorization");
  actions_.emplace_back(std::in_place_type<AuthorizationNeeded>,
                        AuthorizationNeeded{http_status, std::string(www_authenticate)});
}

void Session::Impl::OnAuthorized(TimePoint now) {
  if (phase_ != Phase::kAuthorizing) return;
  Log(LogLevel::kDebug, "authorized");
  // The session expired while waiting: a new one, with the held calls queued.
  if (auth_resume_ == Phase::kReady && !have_session_ && era_ != Era::kModern) {
    return EnterPhase(Phase::kConnecting, now);
  }
  EnterPhase(auth_resume_, now);
}

void Session::Impl::OnAuthorizationFailed(const std::string& reason, TimePoint now) {
  if (phase_ != Phase::kAuthorizing) return;
  if (auth_resume_ != Phase::kReady || (!have_session_ && era_ != Era::kModern)) {
    return FailAttempt(reason, now);
  }
  // A ready server stays ready: what waited on the credentials fails.
  FailWaiting(reason, now);
  EnterPhase(Phase::kReady, now);
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
  for (RpcId id : expired) {
    auto it = requests_.find(id);
    if (it == requests_.end()) continue;
    Request& req = it->second;
    const std::string why = "timed out after " + base::DescribeDuration(req.budget);
    switch (req.kind) {
      case Kind::kDiscover:
        OnDiscoverTimeout(id, now);
        break;
      case Kind::kInitialize:
        FailAttempt(why + " initializing", now);
        break;
      case Kind::kListTools:
        if (phase_ == Phase::kListing ||
            (phase_ == Phase::kAuthorizing && auth_resume_ == Phase::kListing)) {
          FailAttempt(why + " listing tools", now);
        } else {
          FailListing(why + " listing tools", now);
        }
        break;
      case Kind::kCall: {
        // On the modern wire, closing the request's stream (DropRequest
        // aborts it) is the cancellation.
        const bool live = req.gen != 0 && (req.transfer != 0 || req.resume_at.has_value());
        const bool tell = live && !req.modern;
        const uint64_t gen = req.gen;
        FinishCall(req, CallErrorKind::kTransport, why);
        DropRequest(id);
        if (tell) Notify(BuildCancelled(id, "timed out"), /*must=*/true, gen, now);
        break;
      }
    }
  }
  for (RpcId id : resume) {
    auto it = requests_.find(id);
    if (it != requests_.end() && it->second.resume_at) Resume(it->second, now);
  }
  if (phase_ == Phase::kReady && listen_retry_at_ && now >= *listen_retry_at_) OpenListen(now);
}

std::optional<TimePoint> Session::Impl::NextWakeup() const {
  if (phase_ == Phase::kClosed) return std::nullopt;
  std::optional<TimePoint> next;
  if (phase_ == Phase::kBackingOff) Earliest(next, retry_at_);
  for (const auto& [id, t] : transfers_) {
    if (t.purpose != Purpose::kRequest) Earliest(next, t.deadline);
  }
  for (const auto& [id, req] : requests_) {
    Earliest(next, req.deadline);
    Earliest(next, req.resume_at);
  }
  if (phase_ == Phase::kReady) Earliest(next, listen_retry_at_);
  return next;
}

// --- outputs ---

Status Session::Impl::status() const {
  if (served_) return Status::kReady;
  if (phase_ == Phase::kAuthorizing) return Status::kLoading;
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
    impl_->era_ = Era::kLegacy;
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
Status Session::status() const { return impl_->status(); }
const std::string& Session::reason() const {
  static const std::string kNone;
  return impl_->status() == Status::kError ? impl_->reason_ : kNone;
}
std::shared_ptr<const ToolList> Session::tools() const { return impl_->tools_; }
const std::string& Session::protocol_version() const { return impl_->protocol_version_; }

}  // namespace mcpgw::mcp
