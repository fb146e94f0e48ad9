// The era probe and the initialize handshake of a conversation.
#include "daemon/mcp/handshake.h"

#include <algorithm>

#include "base/clean_text.h"
#include "base/text.h"
#include "daemon/mcp/exchange.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/task_call.h"

namespace mcpgw::mcp {

namespace {

// A 2025 server may not answer the probe at all; after this it is taken for
// one (the attempt's own deadline still bounds everything).
constexpr auto kProbeTimeout = std::chrono::seconds(10);

std::string RpcError(const Message& msg) {
  return "error " + std::to_string(msg.error_code) + ": " + msg.error_message;
}

}  // namespace

Handshake::Handshake(const Parts& parts) : p_(parts) {}

Phase Handshake::AttemptPhase() const {
  return era_.legacy() ? Phase::kConnecting : Phase::kDiscovering;
}

void Handshake::SetEraHint(std::string_view version) {
  if (IsSupportedProtocolVersion(version)) era_.On(EraEvent::kCachedLegacy);
}

// --- the probe ---

void Handshake::SendDiscover(std::string version, bool retried, TimePoint now) {
  era_.On(EraEvent::kProbe);
  const TimePoint deadline = std::min(now + kProbeTimeout, *p_.life->attempt_deadline());
  Exchange::Request& req = p_.exchange->New(Exchange::Kind::kDiscover, deadline,
                                            std::chrono::duration_cast<Duration>(deadline - now));
  req.version = std::move(version);
  req.resent = retried;
  p_.life->Log(LogLevel::kDebug, "probing the protocol era: server/discover at " + req.version);
  p_.exchange->Send(req, now);
}

void Handshake::OnDiscoverAnswer(RpcId id, const Answer& answer, TimePoint now) {
  Exchange::Request* req = p_.exchange->Find(id);
  if (req == nullptr) return;
  const bool retried = req->resent;
  p_.exchange->Drop(id);
  // While credentials are awaited, only the held probe's deadline can end
  // it: OnAuthorized probes afresh.
  if (p_.life->phase() != Phase::kDiscovering || p_.life->awaiting_authorization()) return;
  const EraVerdict verdict = JudgeDiscover(answer.message, answer.refused, retried);
  switch (verdict.kind) {
    case EraVerdict::Kind::kModern:
      era_.On(EraEvent::kFoundModern);
      protocol_version_ = verdict.version;
      tools_list_changed_ = verdict.tools_list_changed;
      p_.life->Log(LogLevel::kDebug, "the server speaks " + protocol_version_ + " (stateless)");
      return p_.life->EnterPhase(Phase::kListing, now);
    case EraVerdict::Kind::kRetry:
      p_.life->Log(LogLevel::kDebug,
                   "the server refused the version asked for; asking at " + verdict.version);
      return SendDiscover(verdict.version, /*retried=*/true, now);
    case EraVerdict::Kind::kLegacy:
      era_.On(EraEvent::kFoundLegacy);
      p_.life->Log(LogLevel::kDebug,
                   "no 2026-07-28 answer to server/discover (" +
                       (answer.how.empty() ? std::string("none") : std::string(answer.how)) +
                       "): initializing at 2025-11-25");
      return p_.life->EnterPhase(Phase::kConnecting, now);
    case EraVerdict::Kind::kFail:
      return p_.life->FailAttempt(verdict.reason, now);
  }
}

// No answer in time: a 2025 server that ignores unknown methods, unless the
// attempt itself is out of time.
void Handshake::OnDiscoverTimeout(RpcId id, TimePoint now) {
  const std::optional<TimePoint> attempt_deadline = p_.life->attempt_deadline();
  if (attempt_deadline && now >= *attempt_deadline) {
    p_.exchange->Drop(id);
    const SessionLimits& limits = *p_.limits;
    return p_.life->FailAttempt(
        "timed out after " +
            base::DescribeDuration(p_.life->served() ? limits.request_deadline
                                                     : limits.first_attempt_deadline) +
            " probing the protocol era",
        now);
  }
  OnDiscoverAnswer(id, Answer{}, now);
}

// initialize was refused the way a 2026-07-28-only server refuses it (HTTP
// 400, 404 or 405, or one of its errors) while the server was taken for a
// 2025 one without asking: ask now, once per attempt.
bool Handshake::ProbeAfterInitialize(const std::string& why, TimePoint now) {
  if (p_.life->phase() != Phase::kConnecting || !era_.may_probe()) return false;
  p_.life->Log(LogLevel::kDebug, "initialize refused (" + why + "): probing the protocol era");
  p_.life->EnterPhase(Phase::kDiscovering, now);
  return true;
}

// --- initialize ---

void Handshake::SendInitialize(TimePoint now) {
  const SessionLimits& limits = *p_.limits;
  const Duration budget =
      p_.life->served() ? limits.request_deadline : limits.first_attempt_deadline;
  Exchange::Request& req =
      p_.exchange->New(Exchange::Kind::kInitialize, *p_.life->attempt_deadline(), budget);
  p_.life->Log(LogLevel::kDebug, p_.life->served() ? "opening a new session" : "initializing");
  p_.exchange->Send(req, now);
}

void Handshake::OnInitializeResponse(const Message& msg, std::string_view unusable, TimePoint now) {
  if (msg.is_error) {
    // A 2026-07-28 server refuses initialize with one of its own errors.
    if (IsModernErrorCode(msg.error_code) &&
        ProbeAfterInitialize("initialize refused with " + RpcError(msg), now)) {
      return;
    }
    return p_.life->FailAttempt("initialize failed: " + RpcError(msg), now);
  }
  if (!msg.result->IsObject()) return p_.life->FailAttempt("invalid initialize result", now);
  const auto pv = msg.result->FindMember("protocolVersion");
  if (pv == msg.result->MemberEnd() || !pv->value.IsString()) {
    return p_.life->FailAttempt("server answered no protocol version", now);
  }
  const std::string_view version(pv->value.GetString(), pv->value.GetStringLength());
  if (!IsSupportedProtocolVersion(version)) {
    return p_.life->FailAttempt("server answered unsupported protocol version \"" +
                                    base::CleanServerText(version, 64) + "\"",
                                now);
  }
  if (!unusable.empty()) return p_.life->FailAttempt(std::string(unusable), now);
  tasks_declared_ = DeclaresTaskToolCalls(*msg.result);
  protocol_version_ = std::string(version);
  p_.wire->Opened(protocol_version_);
  const SessionLimits& limits = *p_.limits;
  const Duration budget =
      p_.life->served() ? limits.request_deadline : limits.first_attempt_deadline;
  p_.wire->Confirm(BuildInitialized(),
                   p_.life->attempt_deadline().value_or(now + limits.request_deadline),
                   "timed out after " + base::DescribeDuration(budget) + " initializing", now);
}

}  // namespace mcpgw::mcp
