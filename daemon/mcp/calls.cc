// Calls made as plain tools/call, and what their answers mean.
#include "daemon/mcp/calls.h"

#include "daemon/mcp/convert.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/task_calls.h"
#include "daemon/mcp/tool_listing.h"

namespace mcpgw::mcp {

Calls::Calls(const Parts& parts) : p_(parts) {}

void Calls::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  if (p_.life->phase() == Phase::kClosed) {
    return Refuse(id, CallErrorKind::kTransport, std::string(kShuttingDown));
  }
  if (p_.life->status() != Status::kReady) {
    return Refuse(id, CallErrorKind::kTransport, "server not ready");
  }
  if (Has(id) || p_.tasks->Has(id))
    return Refuse(id, CallErrorKind::kTransport, "duplicate call id");
  // A tool that requires task-augmented execution is called as a task
  // (task_calls.h); every other tool exactly as before tasks existed.
  const std::shared_ptr<const ToolList> tools = p_.life->tools();
  std::optional<Tool> listed = tools->Find(tool);
  if (!listed) {
    // A name the list shows cleaned of invisible characters goes out as the
    // server wrote it: found by that name (rare, so a scan).
    for (const Tool t : *tools) {
      if (t.wire_name == tool) {
        listed = t;
        break;
      }
    }
  }
  if (listed && listed->task_support == TaskSupport::kRequired) {
    return p_.tasks->Call(id, std::move(tool), std::move(arguments_json), now);
  }
  const SessionLimits& limits = *p_.limits;
  Exchange::Request& req =
      p_.exchange->New(Exchange::Kind::kCall, now + limits.call_deadline, limits.call_deadline);
  req.call_id = id;
  req.tool = std::move(tool);
  req.arguments = std::move(arguments_json);
  calls_[id] = req.rpc_id;
  p_.exchange->Dispatch(req, now);
  p_.listing->RefreshIfStale(now);
}

void Calls::Refuse(CallId id, CallErrorKind kind, std::string text) {
  CallOutcome outcome;
  outcome.kind = kind;
  outcome.text = std::move(text);
  p_.out->Finished(CallFinished{id, std::move(outcome)});
}

void Calls::Finish(Exchange::Request& req, CallErrorKind kind, std::string text) {
  CallOutcome outcome;
  outcome.kind = kind;
  outcome.text = std::move(text);
  if (req.bytes_out > 0) outcome.request_params = req.params;
  outcome.bytes_out = req.bytes_out;
  outcome.bytes_in = req.bytes_in;
  p_.out->Finished(CallFinished{req.call_id, std::move(outcome)});
  calls_.erase(req.call_id);
}

void Calls::Cancel(CallId id, TimePoint now) {
  if (p_.tasks->Has(id)) return p_.tasks->Cancel(id, now);
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  const RpcId rpc_id = it->second;
  calls_.erase(it);
  Exchange::Request* req = p_.exchange->Find(rpc_id);
  if (req == nullptr) return;
  // Only a request the server may hold needs telling (the transport knows
  // which, and how).
  p_.exchange->Cancel(*req, "cancelled by the client", /*keep_reading=*/false, now);
}

void Calls::Expire(Exchange::Request& req, const std::string& why, TimePoint now) {
  Finish(req, CallErrorKind::kTransport, why);
  p_.exchange->Cancel(req, "timed out", /*keep_reading=*/false, now);
}

std::pair<CallErrorKind, std::string> Calls::ResultOf(const Message& msg) {
  if (msg.is_error) {
    return {CallErrorKind::kBackend,
            "error " + std::to_string(msg.error_code) + ": " + msg.error_message};
  }
  if (!msg.result->IsObject()) return {CallErrorKind::kTransport, "invalid tools/call result"};
  switch (ResultTypeOf(*msg.result)) {
    case ResultType::kInputRequired:
      // The gateway declares no client capabilities: it cannot answer.
      return {CallErrorKind::kBackend, InputRequiredText(*msg.result)};
    case ResultType::kTask:
      return {CallErrorKind::kTransport,
              "the server answered with a task (resultType \"task\"), which the gateway did not "
              "ask for: it declares no tasks extension on the 2026-07-28 wire"};
    case ResultType::kInvalid:
      return {CallErrorKind::kTransport, "invalid tools/call result: unknown resultType"};
    case ResultType::kComplete:
      break;
  }
  ConvertedResult converted = ConvertCallResult(*msg.result);
  return {converted.is_error ? CallErrorKind::kBackend : CallErrorKind::kNone,
          std::move(converted.text)};
}

}  // namespace mcpgw::mcp
