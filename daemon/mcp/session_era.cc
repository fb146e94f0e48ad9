// Session era: which protocol revision the server speaks and what follows
// from it (revision 2026-07-28, basic/transports/streamable-http "Backward
// Compatibility"; BEHAVIOR.md §6). A new attempt probes with server/discover
// unless the server is known to be a 2025 one; a modern answer means the
// stateless wire, anything else initialize at 2025-11-25. The server's
// behaviour can change that verdict later (an upgrade, a downgrade): then the
// era is probed again and the refused request sent once more. The era's
// states and moves are Era's (era.h). Every request's body and protocol
// headers are built here for the wire it goes out on. Phases live in
// session.cc, requests in session_calls.cc, transfers in session_wire.cc
// and session_receive.cc.
#include <algorithm>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/text.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

// A 2025 server may not answer the probe at all; after this it is taken for
// one (the attempt's own deadline still bounds everything).
constexpr auto kProbeTimeout = std::chrono::seconds(10);
// A stale listing (ttlMs) is fetched again on the next call, at most this
// often: a server that says "stale at once" is not listed on every call.
constexpr auto kMinRelistInterval = std::chrono::seconds(10);
// Tools refused for their x-mcp-header annotations, named in the log one by
// one up to this many per listing.
constexpr size_t kMaxRefusalsLogged = 10;

std::string Quote(std::string_view s) { return "\"" + base::CleanServerText(s, 64) + "\""; }

}  // namespace

Phase Session::Impl::AttemptPhase() const {
  return era_.legacy() ? Phase::kConnecting : Phase::kDiscovering;
}

// --- the probe ---

void Session::Impl::SendDiscover(std::string version, bool retried, TimePoint now) {
  era_.On(EraEvent::kProbe);
  const TimePoint deadline = std::min(now + kProbeTimeout, *attempt_deadline_);
  Request& req =
      NewRequest(Kind::kDiscover, deadline, std::chrono::duration_cast<Duration>(deadline - now));
  req.version = std::move(version);
  req.resent = retried;
  Log(LogLevel::kDebug, "probing the protocol era: server/discover at " + req.version);
  SendRequest(req, now);
}

void Session::Impl::OnDiscoverAnswer(RpcId rpc_id, int http_status, const rapidjson::Value* message,
                                     TimePoint now) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  const bool retried = it->second.resent;
  DropRequest(rpc_id);
  // While credentials are awaited, only the held probe's deadline can end
  // it: OnAuthorized probes afresh.
  if (phase_ != Phase::kDiscovering || auth_.waiting()) return;
  const EraVerdict verdict = JudgeDiscover(http_status, message, retried);
  switch (verdict.kind) {
    case EraVerdict::Kind::kModern:
      era_.On(EraEvent::kFoundModern);
      protocol_version_ = verdict.version;
      tools_list_changed_ = verdict.tools_list_changed;
      session_id_.clear();
      have_session_ = false;
      Log(LogLevel::kDebug, "the server speaks " + protocol_version_ + " (stateless)");
      return EnterPhase(Phase::kListing, now);
    case EraVerdict::Kind::kRetry:
      Log(LogLevel::kDebug,
          "the server refused the version asked for; asking at " + verdict.version);
      return SendDiscover(verdict.version, /*retried=*/true, now);
    case EraVerdict::Kind::kLegacy:
      era_.On(EraEvent::kFoundLegacy);
      Log(LogLevel::kDebug,
          "no 2026-07-28 answer to server/discover (" +
              (http_status == 0 ? std::string("none") : "HTTP " + std::to_string(http_status)) +
              "): initializing at 2025-11-25");
      return EnterPhase(Phase::kConnecting, now);
    case EraVerdict::Kind::kFail:
      return FailAttempt(verdict.reason, now);
  }
}

// No answer in time: a 2025 server that ignores unknown methods, unless the
// attempt itself is out of time.
void Session::Impl::OnDiscoverTimeout(RpcId rpc_id, TimePoint now) {
  if (attempt_deadline_ && now >= *attempt_deadline_) {
    DropRequest(rpc_id);
    return FailAttempt("timed out after " +
                           base::DescribeDuration(served_ ? limits_.request_deadline
                                                          : limits_.first_attempt_deadline) +
                           " probing the protocol era",
                       now);
  }
  OnDiscoverAnswer(rpc_id, 0, nullptr, now);
}

// initialize was refused the way a 2026-07-28-only server refuses it (HTTP
// 400, 404 or 405, or one of its errors) while the server was taken for a
// 2025 one without asking: ask now, once per attempt.
bool Session::Impl::ProbeAfterInitialize(const std::string& why, TimePoint now) {
  if (phase_ != Phase::kConnecting || !era_.may_probe()) return false;
  Log(LogLevel::kDebug, "initialize refused (" + why + "): probing the protocol era");
  EnterPhase(Phase::kDiscovering, now);
  return true;
}

// The server answered as if it no longer spoke the era it was taken for.
// Before it served, that is a failed attempt (the next one probes); a serving
// one abandons its session and probes at once, then lists tools again.
void Session::Impl::EraMayHaveChanged(const std::string& why, TimePoint now) {
  era_.On(EraEvent::kDoubted);
  if (phase_ != Phase::kReady) {
    if (phase_ == Phase::kBackingOff || phase_ == Phase::kClosed) return;
    return FailAttempt(why, now);
  }
  Log(LogLevel::kInfo,
      "the server answered as if its protocol era changed (" + why + "): probing it again");
  AbandonSession(/*expired=*/false, now);
  // While credentials are awaited, OnAuthorized starts the new attempt.
  if (!auth_.waiting()) EnterPhase(Phase::kDiscovering, now);
}

// --- building requests ---

// The body and protocol headers of `req` for the wire it is about to go out
// on: server/discover always on the modern one; the rest on the era's.
void Session::Impl::BuildWire(Request& req, TimePoint now) {
  // A task's reads exist on the 2025-11-25 wire only (session_tasks.cc).
  const bool task_read = req.kind == Kind::kTaskGet || req.kind == Kind::kTaskResult;
  req.modern = !task_read && (req.kind == Kind::kDiscover || era_.modern());
  req.wire_headers.clear();
  const std::string& version = req.kind == Kind::kDiscover ? req.version : protocol_version_;
  switch (req.kind) {
    case Kind::kDiscover:
      req.body =
          BuildRequest(req.rpc_id, "server/discover", DiscoverParams(version, kClientVersion));
      req.wire_headers = ModernHeaders(version, "server/discover");
      return;
    case Kind::kInitialize:
      req.body = BuildInitialize(req.rpc_id, kClientVersion);
      return;
    case Kind::kListTools:
      if (!req.modern) {
        req.body = BuildToolsList(req.rpc_id, req.cursor);
        return;
      }
      req.body = BuildRequest(req.rpc_id, "tools/list",
                              ModernToolsListParams(req.cursor, version, kClientVersion));
      req.wire_headers = ModernHeaders(version, "tools/list");
      return;
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      req.body = BuildRequest(req.rpc_id, req.kind == Kind::kTaskGet ? "tasks/get" : "tasks/result",
                              TaskIdParams(req.task_id));
      return;
    case Kind::kCall: {
      if (!req.modern) {
        // A task's ttl is what is left of the call's deadline (the task
        // outliving the call is cancelled anyway).
        req.params =
            req.as_task
                ? TaskCallParams(
                      req.tool, req.arguments,
                      std::chrono::duration_cast<std::chrono::milliseconds>(req.deadline - now)
                          .count())
                : BuildToolsCallParams(req.tool, req.arguments);
        req.body = BuildRequest(req.rpc_id, "tools/call", req.params);
        return;
      }
      req.params = ModernToolsCallParams(req.tool, req.arguments, version, kClientVersion);
      req.body = BuildRequest(req.rpc_id, "tools/call", req.params);
      req.wire_headers = ModernHeaders(version, "tools/call", req.tool);
      auto annotated = param_headers_.find(req.tool);
      if (annotated == param_headers_.end()) return;
      // The values come from the host's own bytes (validated by the gateway).
      rapidjson::Document arguments;
      const base::JsonLimits limits{limits_.max_response_bytes, limits_.max_json_depth};
      if (!base::ParseBoundedJson(req.arguments, limits, arguments).ok()) return;
      for (auto& header : ParamHeaderValues(annotated->second, arguments)) {
        req.wire_headers.push_back(std::move(header));
      }
      return;
    }
  }
}

// --- listings on the modern wire ---

// One tools/list page: each tool's x-mcp-header annotations, the tools whose
// annotations are invalid (left out of the listing, named in the log), and
// the page's freshness.
bool Session::Impl::ReadAnnotations(const rapidjson::Value& result) {
  const Duration ttl = std::chrono::duration_cast<Duration>(TtlOf(result));
  listing_.ttl = listing_.ttl ? std::min(*listing_.ttl, ttl) : ttl;
  if (!result.IsObject()) return false;
  const auto tools = result.FindMember("tools");
  if (tools == result.MemberEnd() || !tools->value.IsArray()) return false;
  for (const auto& tool : tools->value.GetArray()) {
    if (!tool.IsObject()) continue;
    const auto name = tool.FindMember("name");
    const auto schema = tool.FindMember("inputSchema");
    if (name == tool.MemberEnd() || !name->value.IsString() || schema == tool.MemberEnd()) {
      continue;
    }
    const std::string tool_name(name->value.GetString(), name->value.GetStringLength());
    auto read = ReadParamHeaders(schema->value);
    if (auto* why = std::get_if<std::string>(&read)) {
      if (listing_.refused.size() < kMaxRefusalsLogged) {
        Log(LogLevel::kWarn, "tool " + Quote(tool_name) + " left out: " + *why);
      }
      listing_.refused.push_back(tool_name);
      continue;
    }
    ParamHeaders& headers = std::get<ParamHeaders>(read);
    if (!headers.empty()) listing_.param_headers[tool_name] = std::move(headers);
  }
  return true;
}

// A call on a listing past its ttlMs lists the tools again in the background
// (the revision's caching: re-fetch on access once stale), bounded in rate.
void Session::Impl::RefreshIfStale(TimePoint now) {
  if (!era_.modern() || !Serving() || listing_.active) return;
  if (!fresh_until_ || now < *fresh_until_) return;
  if (listed_at_ && now - *listed_at_ < kMinRelistInterval) return;
  Log(LogLevel::kDebug, "the tool listing is stale (ttlMs): listing again");
  StartListing(now);
}

}  // namespace mcpgw::mcp
