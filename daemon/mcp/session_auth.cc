// The session's authorization hold (BEHAVIOR.md §9): a request refused with
// 401, or 403 insufficient_scope, waits for credentials instead of failing,
// and the session carries on where the refusal struck once they come. The
// hold's states and moves are AuthHold's (auth_hold.h); this file is what the
// session does on each. Phases live in session.cc.
#include <algorithm>

#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

// Whether a refused request can be held: the session waits already, or it
// is in a phase that sends requests (not idle, backing off or closed).
bool Session::Impl::CanHold() const {
  if (auth_.waiting()) return true;
  return phase_ == Phase::kDiscovering || phase_ == Phase::kConnecting ||
         phase_ == Phase::kListing || phase_ == Phase::kReady;
}

void Session::Impl::NeedAuthorization(int http_status, std::string_view www_authenticate) {
  if (!auth_.On(HoldEvent::kRefused)) return;  // once per wait
  // The stream would be refused too; it opens again once credentials come.
  StopListen();
  Log(LogLevel::kDebug, "HTTP " + std::to_string(http_status) + ": waiting for authorization");
  actions_.emplace_back(std::in_place_type<AuthorizationNeeded>,
                        AuthorizationNeeded{http_status, std::string(www_authenticate)});
}

// New credentials: the held requests go out again (the server never ran
// them) and the phase's work carries on.
void Session::Impl::OnAuthorized(TimePoint now) {
  if (!auth_.On(HoldEvent::kAuthorized)) return;
  Log(LogLevel::kDebug, "authorized");
  const std::vector<RpcId> held = auth_.TakeHeld();
  // The session expired (or its era came into question) while it waited: a
  // new one, with the held calls queued for it.
  if (phase_ == Phase::kReady && !have_session_ && !era_.modern()) {
    for (RpcId id : held) {
      auto it = requests_.find(id);
      if (it != requests_.end() && it->second.kind == Kind::kCall) waiting_.push_back(id);
    }
    return EnterPhase(AttemptPhase(), now);
  }
  for (RpcId id : held) {
    auto it = requests_.find(id);
    if (it == requests_.end()) continue;
    // A call waits for a serving session; the attempt's own request (the
    // probe, initialize, a page) and a ready server's requests go out now.
    if (it->second.kind == Kind::kCall && !Serving()) {
      waiting_.push_back(id);
    } else {
      SendRequest(it->second, now);
    }
  }
  // The probe's own deadline may have passed while it waited (it is dropped
  // then): the attempt probes afresh.
  if (phase_ == Phase::kDiscovering &&
      std::none_of(requests_.begin(), requests_.end(),
                   [](const auto& r) { return r.second.kind == Kind::kDiscover; })) {
    NewAttempt(now);
    SendDiscover(std::string(kModernProtocolVersion), /*retried=*/false, now);
  }
  ServeWaiting(now);
}

// No credentials: before ready a failed attempt; a ready server stays ready
// and what waited on the credentials fails with `reason`.
void Session::Impl::OnAuthorizationFailed(const std::string& reason, TimePoint now) {
  if (!auth_.On(HoldEvent::kDenied)) return;
  if (phase_ != Phase::kReady || (!have_session_ && !era_.modern())) {
    return FailAttempt(reason, now);
  }
  FailWaiting(reason, now);
  ServeWaiting(now);
}

}  // namespace mcpgw::mcp
