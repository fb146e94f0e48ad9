// Conversation: the MCP conversation with one upstream server, whatever
// transport carries it (BEHAVIOR.md §3, §5, §6, §12). It is sans-I/O: its
// driver feeds it events (a start, calls, cancellations, timer expiry,
// authorization outcomes) with the current time, its transport (a Wire,
// wire.h) reports answers, losses and what the server sends unasked through
// the conversation's WireListener, and it answers with what it asks of the
// transport and, through ConversationOut, with finished calls, state changes
// and log lines.
//
// It is always in exactly one Phase (types.h), its lifecycle: the table of
// allowed moves and the one function that makes them are in
// conversation.cc. Its work is done by parts, each a class of its own that
// reaches the others through `Parts`:
//   Handshake    (handshake.h)    the protocol era (the server/discover probe)
//                                  and the initialize handshake
//   Exchange     (exchange.h)     the requests out or waiting: their bodies
//                                  for the era they go out in, deadlines,
//                                  answers and losses, server messages
//   ToolListing  (tool_listing.h) listing every page of tools, again on
//                                  list_changed or when stale
//   Calls        (calls.h)        tools/call and its cancellation
//   TaskCalls    (task_calls.h)   calls made as tasks
//   Credentials  (credentials.h)  the wait for credentials beside the phase
// The conversation owns its parts; a part owns its own state and changes
// no other part's except through that part's methods.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "daemon/mcp/tool_list.h"
#include "daemon/mcp/types.h"
#include "daemon/mcp/wire.h"

namespace mcpgw::mcp {

// What a conversation emits besides what it asks of its transport; its
// driver carries it out.
class ConversationOut {
 public:
  virtual void Finished(CallFinished finished) = 0;
  // StateChanged: at most once per event.
  virtual void Changed() = 0;
  virtual void Log(LogLevel level, std::string text) = 0;

 protected:
  ~ConversationOut() = default;
};

class Conversation;
class Exchange;
class Handshake;
class ToolListing;
class Calls;
class TaskCalls;
class Credentials;

// The parts of one conversation, for one another. Owned by the conversation;
// every pointer lives as long as it.
struct Parts {
  Conversation* life = nullptr;
  Handshake* handshake = nullptr;
  Exchange* exchange = nullptr;
  ToolListing* listing = nullptr;
  Calls* calls = nullptr;
  TaskCalls* tasks = nullptr;
  Credentials* credentials = nullptr;
  Wire* wire = nullptr;
  ConversationOut* out = nullptr;
  const SessionLimits* limits = nullptr;
  const std::string* name = nullptr;
};

class Conversation {
 public:
  // `wire` and `out` outlive the conversation.
  Conversation(std::string name, SessionLimits limits, Wire* wire, ConversationOut* out);
  ~Conversation();
  Conversation(const Conversation&) = delete;
  Conversation& operator=(const Conversation&) = delete;

  // What the transport reports to (wire.h).
  WireListener* listener();

  // --- events (each as Session's of the same name) ---
  void Start(TimePoint now);
  void Call(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  void Cancel(CallId id, TimePoint now);
  void Shutdown(TimePoint now);
  void OnTimer(TimePoint now);
  void OnAuthorized(TimePoint now);
  void OnAuthorizationFailed(const std::string& reason, TimePoint now);
  void SetEraHint(std::string_view version);
  // Ends every event: one StateChanged when what hosts see changed.
  void Publish();
  std::optional<TimePoint> NextWakeup() const;

  // --- what hosts and status see ---
  const std::string& name() const { return name_; }
  Phase phase() const { return phase_; }
  Status status() const;
  bool awaiting_authorization() const;
  const std::string& reason() const;
  std::shared_ptr<const ToolList> tools() const { return tools_; }
  const std::string& protocol_version() const;
  uint64_t attempts() const { return attempts_; }

  // --- for the parts ---
  // Every phase change goes through here (the table in conversation.cc).
  void EnterPhase(Phase next, TimePoint now);
  // The attempt (handshake and listing of a new session) failed: back off.
  void FailAttempt(const std::string& reason, TimePoint now);
  // The server no longer knows the session: a serving one is replaced.
  void SessionExpired(const std::string& why, TimePoint now);
  // The server itself ended (wire.h, OnTransportEnded).
  void TransportEnded(const std::string& reason, TimePoint now);
  // The server answered as if it no longer spoke the era it was taken for.
  void EraMayHaveChanged(const std::string& why, TimePoint now);
  // Ready and not waiting for credentials: requests go out at once.
  bool Serving() const;
  // Reached kReady once: the status stays ready, budgets are the shorter ones.
  bool served() const { return served_; }
  // When the handshake and listing of the attempt under way must be done.
  std::optional<TimePoint> attempt_deadline() const { return attempt_deadline_; }
  // A listing ended: these are the server's tools now.
  void SetTools(std::shared_ptr<const ToolList> tools) { tools_ = std::move(tools); }
  // A serving session was given up (it expired, or its era came into
  // question) while credentials were awaited: they open a new one.
  bool abandoned() const { return abandoned_; }
  // Everything of the previous attempt ends; a new one begins.
  void NewAttempt(TimePoint now);
  // What a serving conversation does once it may send.
  void ServeWaiting(TimePoint now);
  void Log(LogLevel level, std::string text);

 private:
  // The WireListener: hands each report to the part it concerns.
  class Listener;
  void EnterClosed(TimePoint now);

  std::string name_;
  SessionLimits limits_;
  Parts parts_;
  std::unique_ptr<Handshake> handshake_;
  std::unique_ptr<Exchange> exchange_;
  std::unique_ptr<ToolListing> listing_;
  std::unique_ptr<Calls> calls_;
  std::unique_ptr<TaskCalls> tasks_;
  std::unique_ptr<Credentials> credentials_;
  std::unique_ptr<Listener> listener_;

  Phase phase_ = Phase::kIdle;
  bool served_ = false;    // reached kReady once: the status stays ready
  uint64_t attempts_ = 0;  // attempts begun: the first and every reconnect
  std::string reason_;     // why the last attempt failed (status error before ready)
  std::shared_ptr<const ToolList> tools_;
  // A serving session was given up (it expired, or its era came into
  // question) while credentials were awaited: they open a new one.
  bool abandoned_ = false;
  std::optional<TimePoint> attempt_deadline_;  // handshake and listing of a new attempt
  std::optional<TimePoint> retry_at_;          // kBackingOff
  Duration backoff_{};

  // What was last reported through StateChanged.
  Status published_status_ = Status::kLoading;
  std::string published_reason_;
  const ToolList* published_tools_ = nullptr;
  std::string published_version_;
};

}  // namespace mcpgw::mcp
