// The conversation's lifecycle: the table of allowed phase moves and
// EnterPhase, which makes every move and does each phase's entry work;
// attempts, back-off, expired sessions, the wait for credentials, timers,
// shutdown, and what hosts see.
#include "daemon/mcp/conversation.h"

#include <algorithm>
#include <cassert>

#include "base/move_table.h"
#include "base/text.h"
#include "daemon/mcp/calls.h"
#include "daemon/mcp/credentials.h"
#include "daemon/mcp/exchange.h"
#include "daemon/mcp/handshake.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/task_calls.h"
#include "daemon/mcp/tool_listing.h"

namespace mcpgw::mcp {

namespace {

// Every phase change the conversation makes. kClosed is reachable from
// anywhere and is left out; anything else not listed is a bug in this file.
// Waiting for credentials changes no phase (AuthHold).
constexpr base::Transition<Phase> kPhaseMoves[] = {
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
    // The session expired: a new one, listed before it serves. The server
    // answered as if its era changed: probe it again. Either happened while
    // credentials were awaited, and none came: back off.
    {Phase::kReady, Phase::kConnecting},
    {Phase::kReady, Phase::kDiscovering},
    {Phase::kReady, Phase::kBackingOff},
    // The back-off ended, or a ready server got a call.
    {Phase::kBackingOff, Phase::kDiscovering},
    {Phase::kBackingOff, Phase::kConnecting},
};

bool MoveAllowed(Phase from, Phase to) {
  if (to == Phase::kClosed) return from != Phase::kClosed;
  return base::Allowed(kPhaseMoves, from, to);
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

Conversation::Conversation(std::string name, SessionLimits limits, Wire* wire, ConversationOut* out)
    : name_(std::move(name)), limits_(limits), tools_(std::make_shared<const ToolList>()) {
  parts_.life = this;
  parts_.wire = wire;
  parts_.out = out;
  parts_.limits = &limits_;
  parts_.name = &name_;
  handshake_ = std::make_unique<Handshake>(parts_);
  exchange_ = std::make_unique<Exchange>(parts_);
  listing_ = std::make_unique<ToolListing>(parts_);
  calls_ = std::make_unique<Calls>(parts_);
  tasks_ = std::make_unique<TaskCalls>(parts_);
  credentials_ = std::make_unique<Credentials>(parts_);
  parts_.handshake = handshake_.get();
  parts_.exchange = exchange_.get();
  parts_.listing = listing_.get();
  parts_.calls = calls_.get();
  parts_.tasks = tasks_.get();
  parts_.credentials = credentials_.get();
  listener_ = std::make_unique<Listener>(parts_);
  published_tools_ = tools_.get();
}

Conversation::~Conversation() = default;

class Conversation::Listener final : public WireListener {
 public:
  explicit Listener(const Parts& parts) : p_(parts) {}

  void OnAnswer(RpcId id, const Answer& answer, TimePoint now) override {
    p_.exchange->OnAnswer(id, answer, now);
  }
  void OnLost(RpcId id, const Loss& loss, TimePoint now) override {
    p_.exchange->OnLost(id, loss, now);
  }
  void OnReceived(RpcId id, size_t bytes) override { p_.exchange->OnReceived(id, bytes); }
  void OnServerMessage(const Message& message, From from, TimePoint now) override {
    p_.exchange->OnServerMessage(message, from, now);
  }
  void OnConfirmed(TimePoint now) override { p_.life->EnterPhase(Phase::kListing, now); }
  void OnAttemptFailed(const std::string& reason, TimePoint now) override {
    p_.life->FailAttempt(reason, now);
  }
  void OnSessionExpired(const std::string& why, TimePoint now) override {
    p_.life->SessionExpired(why, now);
  }
  void OnTransportEnded(const std::string& reason, TimePoint now) override {
    p_.life->TransportEnded(reason, now);
  }
  bool CanHold() const override { return p_.credentials->CanHold(); }
  bool MayProbe() const override {
    return p_.life->phase() == Phase::kConnecting && p_.handshake->may_probe();
  }
  OutRequest Subscription() override { return p_.exchange->Subscription(); }

 private:
  const Parts& p_;
};

WireListener* Conversation::listener() { return listener_.get(); }

// --- the one place phases change ---

void Conversation::EnterPhase(Phase next, TimePoint now) {
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
      handshake_->SendDiscover(std::string(kModernProtocolVersion), /*retried=*/false, now);
      break;
    case Phase::kConnecting:
      // After the probe the attempt goes on; anything else begins one.
      if (from != Phase::kDiscovering) NewAttempt(now);
      handshake_->SendInitialize(now);
      break;
    case Phase::kListing:
      listing_->Start(now);
      break;
    case Phase::kReady:
      attempt_deadline_.reset();
      backoff_ = Duration::zero();
      reason_.clear();
      handshake_->OnAttemptEnded();
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
    case Phase::kClosed:
      EnterClosed(now);
      break;
  }
}

// Tasks still running are cancelled (best effort, before the session ends)
// and their calls fail like the others; the transport closes last.
void Conversation::EnterClosed(TimePoint now) {
  tasks_->Shutdown(now);
  exchange_->Clear();
  calls_->Clear();
  listing_->Reset();
  attempt_deadline_.reset();
  retry_at_.reset();
  credentials_->Abandon();
  credentials_->hold().TakeHeld();
  parts_.wire->Close(now);
}

bool Conversation::Serving() const { return phase_ == Phase::kReady && !credentials_->waiting(); }

// What a serving conversation does once it may send: the calls that waited
// go out, the stream of what the server sends unasked opens, and a listing
// asked for meanwhile runs.
void Conversation::ServeWaiting(TimePoint now) {
  if (!Serving()) return;
  exchange_->SendWaiting(now);
  if (!handshake_->modern()) {
    parts_.wire->Listen(Listening::kSession, now);
  } else if (handshake_->tools_list_changed()) {
    parts_.wire->Listen(Listening::kSubscribe, now);
  }
  listing_->ServeAsked(now);
}

// --- attempts ---

// Everything of the previous attempt ends: a new session (or, on the modern
// wire, a new generation of requests) begins.
void Conversation::NewAttempt(TimePoint now) {
  // The old session's stream and listing end here; calls still in flight on
  // it run on, and what becomes of them is the transport's to say.
  parts_.wire->Begin(now);
  ++attempts_;
  abandoned_ = false;
  retry_at_.reset();
  exchange_->DropAttempt();
  listing_->Reset();  // the new session lists anyway
  const Duration budget = served_ ? limits_.request_deadline : limits_.first_attempt_deadline;
  attempt_deadline_ = now + budget;
}

// An attempt (handshake and listing of a new session) failed: its session is
// abandoned, calls waiting on a ready server fail, and the next attempt waits
// out the back-off.
void Conversation::FailAttempt(const std::string& reason, TimePoint now) {
  if (phase_ == Phase::kClosed || phase_ == Phase::kBackingOff) return;
  exchange_->DropAttempt();
  listing_->Reset();
  attempt_deadline_.reset();
  handshake_->OnAttemptEnded();
  // Credentials that come later belong to no attempt; the next one asks again.
  credentials_->Abandon();
  parts_.wire->Abandon({}, now);
  if (served_) {
    Log(LogLevel::kInfo, "could not open a new session: " + reason);
    exchange_->FailWaiting("session expired and re-initializing failed: " + reason, now);
  } else {
    reason_ = reason;
    Log(LogLevel::kDebug, "attempt failed: " + reason);
  }
  EnterPhase(Phase::kBackingOff, now);
}

// The server no longer knows the session. A session that never served is a
// failed attempt (so a server that forgets every session cannot make the
// client loop); a serving one is replaced at once, and the new one lists
// tools before it serves (BEHAVIOR.md §3).
void Conversation::SessionExpired(const std::string& why, TimePoint now) {
  if (phase_ != Phase::kReady) {
    if (phase_ == Phase::kBackingOff || phase_ == Phase::kClosed) return;
    return FailAttempt("session expired before it was ready (" + why + ")", now);
  }
  parts_.wire->Abandon(why, now);
  abandoned_ = true;
  // While credentials are awaited, OnAuthorized opens the new session.
  if (!credentials_->waiting()) EnterPhase(Phase::kConnecting, now);
}

// A server whose process ended is no longer ready (BEHAVIOR.md §17): its
// status is an error with the reason until a new session serves, after the
// back-off.
void Conversation::TransportEnded(const std::string& reason, TimePoint now) {
  if (phase_ == Phase::kClosed) return;
  if (served_) Log(LogLevel::kInfo, reason);
  served_ = false;
  if (phase_ == Phase::kBackingOff) {
    reason_ = reason;
    return;
  }
  FailAttempt(reason, now);
}

// Before it served, that is a failed attempt (the next one probes); a serving
// one abandons its session and probes at once, then lists tools again.
void Conversation::EraMayHaveChanged(const std::string& why, TimePoint now) {
  handshake_->OnDoubted();
  if (phase_ != Phase::kReady) {
    if (phase_ == Phase::kBackingOff || phase_ == Phase::kClosed) return;
    return FailAttempt(why, now);
  }
  Log(LogLevel::kInfo,
      "the server answered as if its protocol era changed (" + why + "): probing it again");
  parts_.wire->Abandon({}, now);
  abandoned_ = true;
  // While credentials are awaited, OnAuthorized starts the new attempt.
  if (!credentials_->waiting()) EnterPhase(Phase::kDiscovering, now);
}

// --- the wait for credentials (credentials.h) ---

void Conversation::OnAuthorized(TimePoint now) { credentials_->OnAuthorized(now); }

void Conversation::OnAuthorizationFailed(const std::string& reason, TimePoint now) {
  credentials_->OnDenied(reason, now);
}

bool Conversation::awaiting_authorization() const { return credentials_->waiting(); }

// --- life and time ---

void Conversation::Start(TimePoint now) {
  if (phase_ != Phase::kIdle) return;
  EnterPhase(handshake_->AttemptPhase(), now);
}

void Conversation::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  calls_->Call(id, std::move(tool), std::move(arguments_json), now);
}

void Conversation::Cancel(CallId id, TimePoint now) { calls_->Cancel(id, now); }

void Conversation::Shutdown(TimePoint now) {
  if (phase_ == Phase::kClosed) return;
  EnterPhase(Phase::kClosed, now);
}

void Conversation::SetEraHint(std::string_view version) {
  if (phase_ == Phase::kIdle) handshake_->SetEraHint(version);
}

void Conversation::OnTimer(TimePoint now) {
  if (phase_ == Phase::kClosed || phase_ == Phase::kIdle) return;
  if (phase_ == Phase::kBackingOff && retry_at_ && now >= *retry_at_) {
    retry_at_.reset();
    EnterPhase(handshake_->AttemptPhase(), now);
  }
  exchange_->OnTimer(now);
  tasks_->OnTimer(now);
  parts_.wire->OnTimer(now);
}

std::optional<TimePoint> Conversation::NextWakeup() const {
  if (phase_ == Phase::kClosed) return std::nullopt;
  std::optional<TimePoint> next;
  if (phase_ == Phase::kBackingOff) Earliest(next, retry_at_);
  Earliest(next, exchange_->NextWakeup());
  tasks_->Wakeups(next);
  Earliest(next, parts_.wire->NextWakeup());
  return next;
}

// --- outputs ---

Status Conversation::status() const {
  if (served_) return Status::kReady;
  // Waiting for credentials is no failure (yet).
  if (credentials_->waiting()) return Status::kLoading;
  return reason_.empty() ? Status::kLoading : Status::kError;
}

const std::string& Conversation::reason() const {
  static const std::string kNone;
  return status() == Status::kError ? reason_ : kNone;
}

const std::string& Conversation::protocol_version() const { return handshake_->protocol_version(); }

// One StateChanged per event at most, and only for what hosts and status
// see; the negotiated version counts once the conversation serves.
void Conversation::Publish() {
  const Status now_status = status();
  const std::string& now_reason = now_status == Status::kError ? reason_ : std::string();
  const std::string& version = handshake_->protocol_version();
  const bool version_changed = phase_ == Phase::kReady && version != published_version_;
  if (now_status == published_status_ && now_reason == published_reason_ &&
      tools_.get() == published_tools_ && !version_changed) {
    return;
  }
  published_status_ = now_status;
  published_reason_ = now_reason;
  published_tools_ = tools_.get();
  if (phase_ == Phase::kReady) published_version_ = version;
  parts_.out->Changed();
}

void Conversation::Log(LogLevel level, std::string text) {
  parts_.out->Log(level, std::move(text));
}

}  // namespace mcpgw::mcp
