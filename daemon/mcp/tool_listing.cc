// Listing a server's tools, page by page.
#include "daemon/mcp/tool_listing.h"

#include <algorithm>

#include "base/clean_text.h"
#include "daemon/mcp/convert.h"
#include "daemon/mcp/exchange.h"
#include "daemon/mcp/handshake.h"
#include "daemon/mcp/modern_wire.h"

namespace mcpgw::mcp {

namespace {

// A stale listing (ttlMs) is fetched again on the next call, at most this
// often: a server that says "stale at once" is not listed on every call.
constexpr auto kMinRelistInterval = std::chrono::seconds(10);
// Tools refused for their x-mcp-header annotations, named in the log one by
// one up to this many per listing.
constexpr size_t kMaxRefusalsLogged = 10;

std::string Quote(std::string_view s) { return "\"" + base::CleanServerText(s, 64) + "\""; }

}  // namespace

ToolListing::ToolListing(const Parts& parts) : p_(parts) {}

void ToolListing::Start(TimePoint now) {
  listing_ = Listing{};
  listing_.active = true;
  listed_at_ = now;
  RequestPage(std::nullopt, now);
}

void ToolListing::RequestPage(const std::optional<std::string>& cursor, TimePoint now) {
  const SessionLimits& limits = *p_.limits;
  const bool attempt = p_.life->phase() == Phase::kListing;
  const Duration budget = !attempt            ? limits.request_deadline
                          : p_.life->served() ? limits.request_deadline
                                              : limits.first_attempt_deadline;
  Exchange::Request& req = p_.exchange->New(
      Exchange::Kind::kListTools,
      attempt ? *p_.life->attempt_deadline() : now + limits.request_deadline, budget);
  req.cursor = cursor;
  if (attempt) {
    p_.exchange->Send(req, now);
  } else {
    p_.exchange->Dispatch(req, now);
  }
}

void ToolListing::OnPage(const rapidjson::Value& result, TimePoint now) {
  if (ResultTypeOf(result) != ResultType::kComplete) {
    return Fail("tools/list answered with a result that is not complete", now);
  }
  if (p_.handshake->modern()) ReadAnnotations(result);
  if (!result.IsObject() || !AppendToolsPage(result, ToolLimits{}, listing_.tools).ok()) {
    return Fail("invalid tools/list result", now);
  }
  ++listing_.pages;
  const SessionLimits& limits = *p_.limits;
  if (listing_.tools.size() > limits.max_tools) {
    return Fail("server lists more than " + std::to_string(limits.max_tools) + " tools", now);
  }
  const auto next = result.FindMember("nextCursor");
  if (next != result.MemberEnd() && next->value.IsString() && next->value.GetStringLength() > 0) {
    std::string cursor(next->value.GetString(), next->value.GetStringLength());
    if (!listing_.cursors.insert(std::hash<std::string>{}(cursor)).second) {
      return Fail("listing repeated cursor", now);
    }
    if (listing_.pages >= limits.max_list_pages) {
      return Fail(
          "server lists more than " + std::to_string(limits.max_list_pages) + " pages of tools",
          now);
    }
    return RequestPage(cursor, now);
  }

  ToolList tools = std::move(listing_.tools);
  SortAndDedupTools(tools);
  // Tools whose x-mcp-header annotations are invalid cannot be called on the
  // modern wire: they are left out (the revision's rule), the rest stay.
  const std::vector<std::string>& refused = listing_.refused;
  if (!refused.empty()) {
    tools.RemoveIf([&](const Tool& t) {
      return std::find(refused.begin(), refused.end(), t.name) != refused.end();
    });
  }
  param_headers_ = std::move(listing_.param_headers);
  if (p_.handshake->modern()) fresh_until_ = now + listing_.ttl.value_or(Duration::zero());
  const bool again = listing_.again;
  listing_ = Listing{};
  p_.life->Log(LogLevel::kDebug, "listed " + std::to_string(tools.size()) + " tools");
  if (*p_.life->tools() != tools) {
    tools.Shrink();
    p_.life->SetTools(std::make_shared<const ToolList>(std::move(tools)));
  }
  if (p_.life->phase() == Phase::kListing) p_.life->EnterPhase(Phase::kReady, now);
  if (again && !listing_.active) {
    if (p_.life->Serving()) {
      Start(now);
    } else {
      listing_.again = true;  // once credentials come
    }
  }
}

void ToolListing::Fail(const std::string& reason, TimePoint now) {
  p_.exchange->DropListing();
  listing_ = Listing{};
  if (p_.life->phase() == Phase::kListing) return p_.life->FailAttempt(reason, now);
  // A failed re-list keeps the tools the server listed before.
  p_.life->Log(LogLevel::kDebug, "re-listing tools failed: " + reason + "; keeping the " +
                                     std::to_string(p_.life->tools()->size()) +
                                     " tools listed before");
}

void ToolListing::ToolsChanged(TimePoint now) {
  if (listing_.active) {
    listing_.again = true;
    return;
  }
  // Before ready, and in a new session, the listing under way (or next) counts.
  if (p_.life->phase() != Phase::kReady) return;
  if (!p_.life->Serving()) {
    listing_.again = true;  // once credentials come
    return;
  }
  p_.life->Log(LogLevel::kDebug, "tools changed: listing again");
  Start(now);
}

void ToolListing::ServeAsked(TimePoint now) {
  if (listing_.again && !listing_.active) Start(now);
}

const ParamHeaders* ToolListing::AnnotationsOf(std::string_view tool) const {
  auto it = param_headers_.find(tool);
  return it == param_headers_.end() ? nullptr : &it->second;
}

// --- the stateless era ---

// One tools/list page: each tool's x-mcp-header annotations, the tools whose
// annotations are invalid (left out of the listing, named in the log), and
// the page's freshness.
void ToolListing::ReadAnnotations(const rapidjson::Value& result) {
  const Duration ttl = std::chrono::duration_cast<Duration>(TtlOf(result));
  listing_.ttl = listing_.ttl ? std::min(*listing_.ttl, ttl) : ttl;
  if (!result.IsObject()) return;
  const auto tools = result.FindMember("tools");
  if (tools == result.MemberEnd() || !tools->value.IsArray()) return;
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
        p_.life->Log(LogLevel::kWarn, "tool " + Quote(tool_name) + " left out: " + *why);
      }
      listing_.refused.push_back(tool_name);
      continue;
    }
    ParamHeaders& headers = std::get<ParamHeaders>(read);
    if (!headers.empty()) listing_.param_headers[tool_name] = std::move(headers);
  }
}

// A call on a listing past its ttlMs lists the tools again in the background
// (the revision's caching: re-fetch on access once stale), bounded in rate.
void ToolListing::RefreshIfStale(TimePoint now) {
  if (!p_.handshake->modern() || !p_.life->Serving() || listing_.active) return;
  if (!fresh_until_ || now < *fresh_until_) return;
  if (listed_at_ && now - *listed_at_ < kMinRelistInterval) return;
  p_.life->Log(LogLevel::kDebug, "the tool listing is stale (ttlMs): listing again");
  Start(now);
}

}  // namespace mcpgw::mcp
