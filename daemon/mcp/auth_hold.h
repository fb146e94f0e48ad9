// AuthHold: whether a session waits for credentials, and which of its
// requests wait with it (BEHAVIOR.md §9). A request refused with HTTP 401, or
// 403 insufficient_scope, never ran on the server: it is held, not failed,
// until whoever holds the credentials answers. A hold is not a phase: the
// session's lifecycle stays where the refusal found it (connecting, listing,
// ready...) and only what may go out changes. Passive: Credentials (credentials.h) reports
// events and reads the state; every move is in the table in auth_hold.cc.
#pragma once

#include <string_view>
#include <vector>

#include "daemon/mcp/jsonrpc.h"

namespace mcpgw::mcp {

enum class HoldState {
  kClear,    // nothing waits for credentials; requests go out as the phase allows
  kWaiting,  // a request was refused for lack of authorization: AuthorizationNeeded
             // went out once, the refused requests are held, nothing else is sent
             // (new calls queue), and the GET stream is closed
};
std::string_view HoldStateName(HoldState s);

enum class HoldEvent {
  kRefused,     // a request was answered 401, or 403 insufficient_scope
  kAuthorized,  // new credentials: the held requests go out again
  kDenied,      // no credentials: the held requests fail
  kAbandoned,   // the attempt the hold belonged to failed, or the session closed
};
std::string_view HoldEventName(HoldEvent e);

class AuthHold {
 public:
  AuthHold() = default;
  AuthHold(const AuthHold&) = delete;
  AuthHold& operator=(const AuthHold&) = delete;

  HoldState state() const { return state_; }
  bool waiting() const { return state_ == HoldState::kWaiting; }

  // Makes the move the table gives for `event` from the current state and
  // returns true; returns false and changes nothing when it gives none (a
  // second refusal while waiting, an answer nobody waits for).
  bool On(HoldEvent event);

  // A refused request waits with the hold (ignored unless kWaiting).
  void Hold(RpcId id);
  // The held requests, in the order they were refused; the hold forgets
  // them. Leaving kWaiting keeps them until taken: the session takes them to
  // send or fail them.
  std::vector<RpcId> TakeHeld();
  // A held request ended otherwise (its deadline, a cancellation).
  void Forget(RpcId id);
  bool Holds(RpcId id) const;

 private:
  HoldState state_ = HoldState::kClear;
  std::vector<RpcId> held_;
};

}  // namespace mcpgw::mcp
