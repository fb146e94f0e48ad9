// Era: which protocol revision a server speaks, as far as its session knows
// (BEHAVIOR.md §6; the 2026-07-28 revision's "Backward Compatibility"
// section). A new attempt probes with server/discover unless the server is
// taken for a 2025 one; the probe's verdict, and later the server's own
// answers, move it. Passive: the Handshake (handshake.h) reports events and asks what to do
// next; every move is in the table in era.cc. The probe's verdict itself is
// judged by JudgeDiscover (modern_wire.h).
#pragma once

#include <string_view>

namespace mcpgw::mcp {

enum class EraState {
  kUnknown,       // nothing known, or the server stopped behaving like the era it
                  // was taken for: the next attempt probes
  kProbing,       // server/discover is out in this attempt (asked once more at a
                  // version a refusal lists)
  kLegacy,        // taken for 2025-11-25 (the era cache, or an earlier attempt):
                  // initialize without a probe; an initialize refused the way a
                  // 2026-07-28 server refuses it is probed, once per attempt
  kLegacyProbed,  // this attempt's probe found 2025-11-25: initialize; another
                  // refusal fails the attempt instead of probing again
  kModern,        // 2026-07-28: stateless, _meta and headers on every request
};
std::string_view EraStateName(EraState s);

enum class EraEvent {
  kCachedLegacy,  // the era cache says the origin spoke 2025 (before Start)
  kProbe,         // server/discover goes out
  kFoundModern,   // the probe's verdict: 2026-07-28
  kFoundLegacy,   // the probe's verdict: 2025-11-25
  kAttemptEnded,  // the attempt served or failed: its probe's verdict is kept,
                  // a refusal in a later attempt may probe again
  kDoubted,       // the server answered as if its era changed
};
std::string_view EraEventName(EraEvent e);

class Era {
 public:
  Era() = default;
  Era(const Era&) = delete;
  Era& operator=(const Era&) = delete;

  EraState state() const { return state_; }
  // Makes the move the table gives for `event` from the current state and
  // returns true; returns false and changes nothing when it gives none.
  bool On(EraEvent event);

  bool modern() const { return state_ == EraState::kModern; }
  // A new attempt initializes at once (else it probes first).
  bool legacy() const { return state_ == EraState::kLegacy || state_ == EraState::kLegacyProbed; }
  // A refused initialize may mean the server speaks 2026-07-28 now.
  bool may_probe() const { return state_ == EraState::kLegacy; }

 private:
  EraState state_ = EraState::kUnknown;
};

}  // namespace mcpgw::mcp
