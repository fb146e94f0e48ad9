// The requests of a conversation: making, sending (built for the era each
// time), queueing, deadlines, and what becomes of each one's answer or loss
// (BEHAVIOR.md §5: a call runs at most once; it goes out again only when the
// transport judged that the server never took it).
#include "daemon/mcp/exchange.h"

#include <algorithm>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/text.h"
#include "daemon/mcp/calls.h"
#include "daemon/mcp/credentials.h"
#include "daemon/mcp/handshake.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/param_headers.h"
#include "daemon/mcp/task_calls.h"
#include "daemon/mcp/tool_listing.h"

namespace mcpgw::mcp {

namespace {

Role RoleOf(Exchange::Kind kind) {
  switch (kind) {
    case Exchange::Kind::kDiscover:
      return Role::kProbe;
    case Exchange::Kind::kInitialize:
      return Role::kOpen;
    case Exchange::Kind::kCall:
      return Role::kCall;
    case Exchange::Kind::kListTools:
    case Exchange::Kind::kTaskGet:
    case Exchange::Kind::kTaskResult:
      break;
  }
  return Role::kRead;
}

}  // namespace

Exchange::Exchange(const Parts& parts) : p_(parts) {}

Exchange::Request& Exchange::New(Kind kind, TimePoint deadline, Duration budget) {
  const RpcId id = next_rpc_id_++;
  Request& req = kept_requests_.Emplace(requests_, id);
  req.kind = kind;
  req.rpc_id = id;
  Extend(req, deadline);
  req.budget = budget;
  return req;
}

Exchange::Request* Exchange::Find(RpcId id) {
  auto it = requests_.find(id);
  return it == requests_.end() ? nullptr : &it->second;
}

void Exchange::Extend(Request& req, TimePoint deadline) {
  req.deadline = deadline;
  deadlines_.Add({deadline, 0, static_cast<uint64_t>(req.rpc_id)}, requests_.size(),
                 [this](std::vector<Reminders::Entry>& fresh) {
                   for (const auto& [id, r] : requests_) {
                     fresh.push_back({r.deadline, 0, static_cast<uint64_t>(id)});
                   }
                 });
}

// --- sending ---

void Exchange::Dispatch(Request& req, TimePoint now) {
  if (p_.life->Serving()) return Send(req, now);
  waiting_.push_back(req.rpc_id);
  // A ready server backing off after a failed re-initialization tries again
  // at once: a call is waiting.
  if (p_.life->phase() == Phase::kBackingOff && p_.life->served()) {
    p_.life->EnterPhase(p_.handshake->AttemptPhase(), now);
  }
}

void Exchange::Send(Request& req, TimePoint now) {
  if (p_.life->phase() == Phase::kClosed) return;
  OutRequest out = Build(req, now);
  req.bytes_out += out.body.size();
  req.out = true;
  p_.wire->Send(std::move(out), now);
}

void Exchange::SendWaiting(TimePoint now) {
  std::vector<RpcId> waiting;
  waiting.swap(waiting_);
  for (RpcId id : waiting) {
    Request* req = Find(id);
    if (req != nullptr && !req->out) Send(*req, now);
  }
}

// The body of `req`, and the routing facts the stateless era repeats, for
// the wire it is about to go out on: server/discover always on the modern
// one; a task's reads on the 2025-11-25 one only (task_calls.h); the rest on
// the era's.
OutRequest Exchange::Build(Request& req, TimePoint now) {
  const bool task_read = req.kind == Kind::kTaskGet || req.kind == Kind::kTaskResult;
  req.modern = !task_read && (req.kind == Kind::kDiscover || p_.handshake->modern());
  OutRequest out;
  out.id = req.rpc_id;
  out.role = RoleOf(req.kind);
  out.resent = req.resent;
  const std::string& version =
      req.kind == Kind::kDiscover ? req.version : p_.handshake->protocol_version();
  switch (req.kind) {
    case Kind::kDiscover:
      out.body =
          BuildRequest(req.rpc_id, "server/discover", DiscoverParams(version, kClientVersion));
      out.routing = Routing{version, "server/discover", std::nullopt, {}};
      return out;
    case Kind::kInitialize:
      out.body = BuildInitialize(req.rpc_id, kClientVersion);
      return out;
    case Kind::kListTools:
      if (!req.modern) {
        out.body = BuildToolsList(req.rpc_id, req.cursor);
        return out;
      }
      out.body = BuildRequest(req.rpc_id, "tools/list",
                              ModernToolsListParams(req.cursor, version, kClientVersion));
      out.routing = Routing{version, "tools/list", std::nullopt, {}};
      return out;
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      out.body = BuildRequest(req.rpc_id, req.kind == Kind::kTaskGet ? "tasks/get" : "tasks/result",
                              TaskIdParams(req.task_id));
      return out;
    case Kind::kCall:
      break;
  }
  if (!req.modern) {
    // A task's ttl is what is left of the call's deadline (the task
    // outliving the call is cancelled anyway).
    req.params =
        req.as_task
            ? TaskCallParams(
                  req.tool, req.arguments,
                  std::chrono::duration_cast<std::chrono::milliseconds>(req.deadline - now).count())
            : BuildToolsCallParams(req.tool, req.arguments);
    out.body = BuildRequest(req.rpc_id, "tools/call", req.params);
    return out;
  }
  req.params = ModernToolsCallParams(req.tool, req.arguments, version, kClientVersion);
  out.body = BuildRequest(req.rpc_id, "tools/call", req.params);
  out.routing = Routing{version, "tools/call", std::string_view(req.tool), {}};
  const ParamHeaders* annotated = p_.listing->AnnotationsOf(req.tool);
  if (annotated == nullptr) return out;
  // The values come from the host's own bytes (validated by the gateway).
  rapidjson::Document arguments;
  const base::JsonLimits limits{p_.limits->max_response_bytes, p_.limits->max_json_depth};
  if (!base::ParseBoundedJson(req.arguments, limits, arguments).ok()) return out;
  out.routing->params = ParamValues(*annotated, arguments);
  return out;
}

// --- ending requests ---

void Exchange::Drop(RpcId id) {
  auto it = requests_.find(id);
  if (it == requests_.end()) return;
  if (it->second.out) p_.wire->Drop(id);
  kept_requests_.Erase(requests_, it);
  p_.credentials->hold().Forget(id);
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), id), waiting_.end());
}

bool Exchange::Cancel(Request& req, std::string_view reason, bool keep_reading, TimePoint now) {
  const RpcId id = req.rpc_id;
  if (req.out) {
    if (p_.wire->Cancel(id, BuildCancelled(id, reason), keep_reading, now)) return true;
    req.out = false;
  }
  Drop(id);
  return false;
}

void Exchange::DropAttempt() {
  std::vector<RpcId> ids;
  for (const auto& [id, req] : requests_) {
    if (!ForCall(req.kind)) ids.push_back(id);
  }
  for (RpcId id : ids) Drop(id);
}

void Exchange::DropListing() {
  std::vector<RpcId> pages;
  for (const auto& [id, req] : requests_) {
    if (req.kind == Kind::kListTools) pages.push_back(id);
  }
  for (RpcId id : pages) Drop(id);
}

bool Exchange::Any(Kind kind) const {
  return std::any_of(requests_.begin(), requests_.end(),
                     [kind](const auto& r) { return r.second.kind == kind; });
}

void Exchange::FailWaiting(const std::string& why, TimePoint now) {
  std::vector<RpcId> ids(waiting_.begin(), waiting_.end());
  waiting_.clear();
  for (RpcId id : p_.credentials->hold().TakeHeld()) ids.push_back(id);
  for (RpcId id : ids) {
    Request* req = Find(id);
    if (req == nullptr) continue;
    if (req->as_task || req->kind == Kind::kTaskGet || req->kind == Kind::kTaskResult) {
      p_.tasks->OnRequestAbandoned(*req, why, now);
    } else if (req->kind == Kind::kCall) {
      p_.calls->Finish(*req, CallErrorKind::kTransport, why);
      Drop(id);
    } else if (req->kind == Kind::kListTools) {
      p_.listing->Fail(why, now);
    } else {
      Drop(id);
    }
  }
}

void Exchange::Clear() {
  for (auto& [id, req] : requests_) {
    if (req.kind == Kind::kCall && !req.as_task) {
      p_.calls->Finish(req, CallErrorKind::kTransport, std::string(kShuttingDown));
    }
  }
  requests_.clear();
  waiting_.clear();
}

// --- time ---

void Exchange::OnTimer(TimePoint now) {
  std::vector<RpcId> expired;
  for (const auto& [id, req] : requests_) {
    if (now >= req.deadline) expired.push_back(id);
  }
  for (RpcId id : expired) Expire(id, now);
}

std::optional<TimePoint> Exchange::NextWakeup() const {
  return deadlines_.Next([this](const Reminders::Entry& e) {
    auto it = requests_.find(static_cast<RpcId>(e.id));
    return it != requests_.end() && it->second.deadline == e.at;
  });
}

// A request outlived its deadline.
void Exchange::Expire(RpcId id, TimePoint now) {
  Request* req = Find(id);
  if (req == nullptr) return;
  const std::string why = "timed out after " + base::DescribeDuration(req->budget);
  switch (req->kind) {
    case Kind::kDiscover:
      return p_.handshake->OnDiscoverTimeout(id, now);
    case Kind::kInitialize:
      return p_.life->FailAttempt(why + " initializing", now);
    case Kind::kListTools:
      if (p_.life->phase() == Phase::kListing) {
        return p_.life->FailAttempt(why + " listing tools", now);
      }
      return p_.listing->Fail(why + " listing tools", now);
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      return p_.tasks->OnRequestLate(*req, now);
    case Kind::kCall:
      if (req->as_task) return p_.tasks->OnRequestLate(*req, now);
      return p_.calls->Expire(*req, why, now);
  }
}

// --- what the transport reports ---

void Exchange::OnAnswer(RpcId id, const Answer& answer, TimePoint now) {
  Request* req = Find(id);
  if (req == nullptr) return;
  req->out = false;
  if (req->kind == Kind::kDiscover) return p_.handshake->OnDiscoverAnswer(id, answer, now);
  if (answer.classified == nullptr) return;
  OnResponse(*req, *answer.classified, answer, now);
}

void Exchange::OnResponse(Request& req, const Message& msg, const Answer& answer, TimePoint now) {
  const RpcId id = req.rpc_id;
  switch (req.kind) {
    case Kind::kDiscover:
      return;  // answered through Handshake::OnDiscoverAnswer
    case Kind::kInitialize:
      Drop(id);
      return p_.handshake->OnInitializeResponse(msg, answer.unusable, now);
    case Kind::kListTools:
      if (msg.is_error) {
        return p_.listing->Fail(
            "tools/list failed: error " + std::to_string(msg.error_code) + ": " + msg.error_message,
            now);
      }
      Drop(id);
      return p_.listing->OnPage(*msg.result, now);
    case Kind::kCall: {
      if (req.as_task) return p_.tasks->OnAnswer(req, msg, now);
      auto [kind, text] = Calls::ResultOf(msg);
      p_.calls->Finish(req, kind, std::move(text));
      Drop(id);
      return;
    }
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      return p_.tasks->OnAnswer(req, msg, now);
  }
}

void Exchange::OnLost(RpcId id, const Loss& loss, TimePoint now) {
  Request* req = Find(id);
  if (req == nullptr) return;
  req->out = false;
  if (loss.remedy == Loss::Remedy::kHold) p_.credentials->Need();
  if (loss.remedy == Loss::Remedy::kProbeEra &&
      p_.handshake->ProbeAfterInitialize(loss.reason, now)) {
    return;
  }
  // A call that left reads its tools/call only to learn the task to cancel:
  // it is never sent again, nor held.
  const bool again = loss.remedy == Loss::Remedy::kResend ||
                     loss.remedy == Loss::Remedy::kReprobe || loss.remedy == Loss::Remedy::kHold;
  if (again && req->as_task && p_.tasks->CallLeft(req->call_id)) {
    return FailRequest(*req, loss, now);
  }
  switch (loss.remedy) {
    case Loss::Remedy::kResend:
    case Loss::Remedy::kReprobe:
      return SendAgain(*req, loss, now);
    case Loss::Remedy::kHold:
      p_.credentials->hold().Hold(id);
      return;
    default:
      return FailRequest(*req, loss, now);
  }
}

// The server never took the request: it goes out once more, in a new session
// or once the era is probed again. A listing is not sent again: the new
// session lists from the start.
void Exchange::SendAgain(Request& req, const Loss& loss, TimePoint now) {
  const bool reprobe = loss.remedy == Loss::Remedy::kReprobe;
  if (req.kind == Kind::kListTools) {
    Drop(req.rpc_id);
  } else {
    req.resent = true;
    const std::string method = req.kind == Kind::kCall      ? "tools/call"
                               : req.kind == Kind::kTaskGet ? "tasks/get"
                                                            : "tasks/result";
    p_.life->Log(LogLevel::kDebug, reprobe
                                       ? method + " refused (" + loss.reason +
                                             "): sending it again once the server's era is probed"
                                       : method + " was never taken (" + loss.reason +
                                             "): sending it again in a new session");
    waiting_.push_back(req.rpc_id);
  }
  if (!loss.session_expired.empty()) return p_.life->SessionExpired(loss.session_expired, now);
  if (loss.era_doubted) return p_.life->EraMayHaveChanged(loss.reason, now);
  // The session was replaced already: the new one sends it.
  if (p_.life->Serving()) SendWaiting(now);
  if (p_.life->phase() == Phase::kBackingOff && p_.life->served()) {
    p_.life->EnterPhase(p_.handshake->AttemptPhase(), now);
  }
}

void Exchange::FailRequest(Request& req, const Loss& loss, TimePoint now) {
  const RpcId id = req.rpc_id;
  switch (req.kind) {
    case Kind::kDiscover:
    case Kind::kInitialize:
      p_.life->FailAttempt(loss.reason, now);
      break;
    case Kind::kListTools:
      p_.listing->Fail(loss.reason, now);
      break;
    case Kind::kCall:
      if (req.as_task) {
        p_.tasks->OnRequestFailed(req, loss, now);
        break;
      }
      p_.calls->Finish(req, loss.backend ? CallErrorKind::kBackend : CallErrorKind::kTransport,
                       loss.reason);
      Drop(id);
      break;
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      p_.tasks->OnRequestFailed(req, loss, now);
      break;
  }
  // The request's session is gone all the same.
  if (!loss.session_expired.empty()) p_.life->SessionExpired(loss.session_expired, now);
}

void Exchange::OnReceived(RpcId id, size_t bytes) {
  if (Request* req = Find(id)) req->bytes_in += bytes;
}

void Exchange::OnServerMessage(const Message& msg, From from, TimePoint now) {
  // The modern era has no server requests (they travel inside results) and
  // the client sends no responses: one arriving is not answered.
  if (msg.kind == MessageKind::kRequest && p_.handshake->modern()) {
    p_.life->Log(LogLevel::kDebug, "the server sent a request (" +
                                       base::CleanServerText(msg.method, 64) +
                                       ") on the 2026-07-28 wire; not answered");
    return;
  }
  if (msg.kind == MessageKind::kRequest) {
    if (msg.method == "ping") {
      p_.wire->Reply(BuildEmptyResult(*msg.id), from, now);
    } else {
      p_.wire->Reply(
          BuildErrorResponse(*msg.id, kMethodNotFound, "method not supported by this client"), from,
          now);
    }
  } else if (msg.kind == MessageKind::kNotification) {
    // Only the current session speaks for the server's tools.
    if (msg.method == "notifications/tools/list_changed" && from.current) {
      p_.listing->ToolsChanged(now);
    }
  }
}

OutRequest Exchange::Subscription() {
  OutRequest out;
  out.id = NextId();
  const std::string& version = p_.handshake->protocol_version();
  out.body = BuildRequest(out.id, "subscriptions/listen", ListenParams(version, kClientVersion));
  out.routing = Routing{version, "subscriptions/listen", std::nullopt, {}};
  return out;
}

}  // namespace mcpgw::mcp
