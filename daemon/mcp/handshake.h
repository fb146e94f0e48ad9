// Handshake: how a conversation (conversation.h) finds out which protocol
// revision its server speaks and opens its session (BEHAVIOR.md §6; revision
// 2026-07-28, "Backward Compatibility"). A new attempt probes with
// server/discover unless the server is known to speak 2025-11-25; a modern
// answer means the stateless era (tools are listed next), anything else
// initialize at 2025-11-25, then notifications/initialized. The server's
// behaviour can change that verdict later (an upgrade, a downgrade): then
// the era is probed again. The era's states and moves are Era's (era.h);
// what one probe's answer means is JudgeDiscover's (modern_wire.h).
#pragma once

#include <string>
#include <string_view>

#include "daemon/mcp/conversation.h"
#include "daemon/mcp/era.h"

namespace mcpgw::mcp {

class Handshake {
 public:
  explicit Handshake(const Parts& parts);
  Handshake(const Handshake&) = delete;
  Handshake& operator=(const Handshake&) = delete;

  // The phase a new attempt begins in: kConnecting for a server taken for a
  // 2025 one, else kDiscovering.
  Phase AttemptPhase() const;
  // What the daemon learned earlier about the server's origin (EraCache).
  void SetEraHint(std::string_view version);

  // --- the probe ---
  void SendDiscover(std::string version, bool retried, TimePoint now);
  void OnDiscoverAnswer(RpcId id, const Answer& answer, TimePoint now);
  void OnDiscoverTimeout(RpcId id, TimePoint now);
  // initialize was refused the way a 2026-07-28-only server refuses it: the
  // era is probed now (once per attempt); false when it may not be.
  bool ProbeAfterInitialize(const std::string& why, TimePoint now);

  // --- initialize ---
  void SendInitialize(TimePoint now);
  // `unusable`: why the transport cannot open its session with this answer.
  void OnInitializeResponse(const Message& msg, std::string_view unusable, TimePoint now);

  // --- the era, as the other parts need it ---
  void OnAttemptEnded() { era_.On(EraEvent::kAttemptEnded); }
  void OnDoubted() { era_.On(EraEvent::kDoubted); }
  bool modern() const { return era_.modern(); }
  bool may_probe() const { return era_.may_probe(); }
  // "2026-07-28" on the modern wire, else what initialize negotiated; empty
  // before the first attempt got that far.
  const std::string& protocol_version() const { return protocol_version_; }
  // Modern: the server sends notifications/tools/list_changed.
  bool tools_list_changed() const { return tools_list_changed_; }
  // initialize declared tasks.requests.tools.call.
  bool tasks_declared() const { return tasks_declared_; }

 private:
  const Parts& p_;
  Era era_;
  std::string protocol_version_;
  bool tools_list_changed_ = false;
  bool tasks_declared_ = false;
};

}  // namespace mcpgw::mcp
