// Credentials: a conversation's wait for credentials (BEHAVIOR.md §9). A
// request the transport held because the server refused it for lack of
// authorization (HTTP 401, or 403 insufficient_scope) never ran: it waits,
// not failed, until whoever holds the credentials answers, and the
// conversation carries on where the refusal struck once they come. The
// wait is no phase: the conversation's lifecycle stays where the refusal
// found it and only what may go out changes. Its states and moves are
// AuthHold's (auth_hold.h); this part is what the conversation does on each.
#pragma once

#include <string>

#include "daemon/mcp/auth_hold.h"
#include "daemon/mcp/conversation.h"

namespace mcpgw::mcp {

class Credentials {
 public:
  explicit Credentials(const Parts& parts);
  Credentials(const Credentials&) = delete;
  Credentials& operator=(const Credentials&) = delete;

  bool waiting() const { return hold_.waiting(); }
  // The requests held, in the order they were refused.
  AuthHold& hold() { return hold_; }
  // Whether a refused request can be held: the conversation waits already,
  // or it is in a phase that sends requests (not idle, backing off, closed).
  bool CanHold() const;
  // A request was held: the first one of a wait asks the driver for
  // credentials, and the stream of what the server sends unasked stops.
  void Need();
  // New credentials: the held requests go out again (the server never ran
  // them) and the phase's work carries on.
  void OnAuthorized(TimePoint now);
  // No credentials: before ready a failed attempt; a ready server stays
  // ready and what waited on the credentials fails with `reason`.
  void OnDenied(const std::string& reason, TimePoint now);
  // The attempt the wait belonged to failed, or the conversation closed:
  // credentials that come later belong to no attempt.
  void Abandon() { hold_.On(HoldEvent::kAbandoned); }

 private:
  const Parts& p_;
  AuthHold hold_;
};

}  // namespace mcpgw::mcp
