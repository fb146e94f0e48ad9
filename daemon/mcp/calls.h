// Calls: the tools/call requests of a conversation (conversation.h) and their
// cancellation (BEHAVIOR.md §5): a call runs at most once, ends in exactly
// one CallFinished unless the caller drops it first, and what its answer
// makes of it (a result's text, the server's error) is decided here. A tool
// whose execution.taskSupport is "required" is called as a task instead
// (TaskCalls, task_calls.h).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "daemon/mcp/conversation.h"
#include "daemon/mcp/exchange.h"

namespace mcpgw::mcp {

class Calls {
 public:
  explicit Calls(const Parts& parts);
  Calls(const Calls&) = delete;
  Calls& operator=(const Calls&) = delete;

  void Call(CallId id, std::string tool, std::string arguments_json, TimePoint now);
  // The caller no longer wants the call: the server is told; no
  // CallFinished follows.
  void Cancel(CallId id, TimePoint now);
  // The call ends with this outcome (its request's bytes and params for the
  // call log); its request is the caller's to drop.
  void Finish(Exchange::Request& req, CallErrorKind kind, std::string text);
  // Its deadline passed: it fails and the server is told.
  void Expire(Exchange::Request& req, const std::string& why, TimePoint now);
  // A call that never became a request ends at once.
  void Refuse(CallId id, CallErrorKind kind, std::string text);
  bool Has(CallId id) const { return calls_.count(id) > 0; }
  void Clear() { calls_.clear(); }

  // What a tools/call's answer (or a plain answer to a task-augmented one)
  // makes of the call.
  static std::pair<CallErrorKind, std::string> ResultOf(const Message& msg);

 private:
  const Parts& p_;
  std::map<CallId, RpcId> calls_;  // calls made as plain tools/call
};

}  // namespace mcpgw::mcp
