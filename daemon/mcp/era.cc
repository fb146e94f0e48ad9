// The protocol era's moves, written once.
#include "daemon/mcp/era.h"

#include <optional>

#include "base/move_table.h"

namespace mcpgw::mcp {

namespace {

// Anything not listed is ignored: asking again at another version keeps the
// probe going, an attempt that ends on the modern wire keeps it modern.
constexpr base::Move<EraState, EraEvent> kEraMoves[] = {
    // Only a session that never started takes the cache's word.
    {EraState::kUnknown, EraEvent::kCachedLegacy, EraState::kLegacy},
    // Every attempt of an unknown or modern server probes; a legacy one
    // probes when initialize is refused the modern way.
    {EraState::kUnknown, EraEvent::kProbe, EraState::kProbing},
    {EraState::kModern, EraEvent::kProbe, EraState::kProbing},
    {EraState::kLegacy, EraEvent::kProbe, EraState::kProbing},
    {EraState::kProbing, EraEvent::kFoundModern, EraState::kModern},
    {EraState::kProbing, EraEvent::kFoundLegacy, EraState::kLegacyProbed},
    // An attempt that failed before the verdict learnt nothing.
    {EraState::kProbing, EraEvent::kAttemptEnded, EraState::kUnknown},
    {EraState::kLegacyProbed, EraEvent::kAttemptEnded, EraState::kLegacy},
    // A 400 of the wrong shape, a header mismatch, an unsupported version:
    // whatever the server was taken for is in question.
    {EraState::kProbing, EraEvent::kDoubted, EraState::kUnknown},
    {EraState::kLegacy, EraEvent::kDoubted, EraState::kUnknown},
    {EraState::kLegacyProbed, EraEvent::kDoubted, EraState::kUnknown},
    {EraState::kModern, EraEvent::kDoubted, EraState::kUnknown},
};

}  // namespace

std::string_view EraStateName(EraState s) {
  switch (s) {
    case EraState::kUnknown:
      return "unknown";
    case EraState::kProbing:
      return "probing";
    case EraState::kLegacy:
      return "legacy";
    case EraState::kLegacyProbed:
      return "legacy (probed)";
    case EraState::kModern:
      return "modern";
  }
  return "unknown";
}

std::string_view EraEventName(EraEvent e) {
  switch (e) {
    case EraEvent::kCachedLegacy:
      return "cached legacy";
    case EraEvent::kProbe:
      return "probe";
    case EraEvent::kFoundModern:
      return "found modern";
    case EraEvent::kFoundLegacy:
      return "found legacy";
    case EraEvent::kAttemptEnded:
      return "attempt ended";
    case EraEvent::kDoubted:
      return "doubted";
  }
  return "doubted";
}

bool Era::On(EraEvent event) {
  const std::optional<EraState> to = base::FindMove(kEraMoves, state_, event);
  if (!to) return false;
  state_ = *to;
  return true;
}

}  // namespace mcpgw::mcp
