// The wait for credentials, and carrying on once it ends.
#include "daemon/mcp/credentials.h"

#include "daemon/mcp/exchange.h"
#include "daemon/mcp/handshake.h"
#include "daemon/mcp/modern_wire.h"

namespace mcpgw::mcp {

Credentials::Credentials(const Parts& parts) : p_(parts) {}

bool Credentials::CanHold() const {
  if (hold_.waiting()) return true;
  const Phase phase = p_.life->phase();
  return phase == Phase::kDiscovering || phase == Phase::kConnecting || phase == Phase::kListing ||
         phase == Phase::kReady;
}

void Credentials::Need() {
  if (!hold_.On(HoldEvent::kRefused)) return;  // once per wait
  // The stream would be refused too; it opens again once credentials come.
  p_.wire->StopListening();
  p_.wire->AskCredentials();
}

void Credentials::OnAuthorized(TimePoint now) {
  if (!hold_.On(HoldEvent::kAuthorized)) return;
  Conversation& life = *p_.life;
  life.Log(LogLevel::kDebug, "authorized");
  const std::vector<RpcId> held = hold_.TakeHeld();
  // The session expired (or its era came into question) while it waited: a
  // new one, with the held calls queued for it.
  if (life.phase() == Phase::kReady && life.abandoned()) {
    for (RpcId id : held) {
      const Exchange::Request* req = p_.exchange->Find(id);
      if (req != nullptr && req->kind == Exchange::Kind::kCall) p_.exchange->Queue(id);
    }
    return life.EnterPhase(p_.handshake->AttemptPhase(), now);
  }
  for (RpcId id : held) {
    Exchange::Request* req = p_.exchange->Find(id);
    if (req == nullptr) continue;
    // A call waits for a serving session; the attempt's own request (the
    // probe, initialize, a page) and a ready server's requests go out now.
    if (req->kind == Exchange::Kind::kCall && !life.Serving()) {
      p_.exchange->Queue(id);
    } else {
      p_.exchange->Send(*req, now);
    }
  }
  // The probe's own deadline may have passed while it waited (it is dropped
  // then): the attempt probes afresh.
  if (life.phase() == Phase::kDiscovering && !p_.exchange->Any(Exchange::Kind::kDiscover)) {
    life.NewAttempt(now);
    p_.handshake->SendDiscover(std::string(kModernProtocolVersion), /*retried=*/false, now);
  }
  life.ServeWaiting(now);
}

void Credentials::OnDenied(const std::string& reason, TimePoint now) {
  if (!hold_.On(HoldEvent::kDenied)) return;
  Conversation& life = *p_.life;
  if (life.phase() != Phase::kReady || life.abandoned()) return life.FailAttempt(reason, now);
  p_.exchange->FailWaiting(reason, now);
  life.ServeWaiting(now);
}

}  // namespace mcpgw::mcp
