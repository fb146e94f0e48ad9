#include "client/stdio/stdio_bridge.h"

#include <cstdint>
#include <string>
#include <utility>

#include "client/stdio/stdio_messages.h"
#include "proto/proto.h"

namespace mcpgw::cli {
namespace {

using rapidjson::Value;

constexpr std::string_view kNullId = "null";
constexpr std::string_view kGetTool = "get_dynamic_tools";
constexpr std::string_view kCallTool = "call_dynamic_tool";
constexpr std::string_view kStartHint =
    "start it with `mcpgwd --config FILE` (or `systemctl --user start mcpgwd`)";

std::string_view View(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

const Value* Member(const Value* object, const char* name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  const auto it = object->FindMember(name);
  return it == object->MemberEnd() ? nullptr : &it->value;
}

// Reads an optional string argument of a gateway tool. False when present but not a string.
bool OptionalString(const Value* args, const char* name, std::optional<std::string>* out) {
  const Value* v = Member(args, name);
  if (v == nullptr || v->IsNull()) return true;
  if (!v->IsString()) return false;
  *out = std::string(View(*v));
  return true;
}

// Reads an optional integer argument. False when present but not a JSON integer (2.5, "5",
// true) or beyond 64 bits.
bool OptionalInteger(const Value* args, const char* name, std::optional<int64_t>* out) {
  const Value* v = Member(args, name);
  if (v == nullptr || v->IsNull()) return true;
  if (!v->IsInt64()) return false;
  *out = v->GetInt64();
  return true;
}

constexpr std::string_view kNotStrings = "invalid_request: namespace and toolName must be strings";

// A tool call refused here, before it reaches the daemon; `text` is its in-band answer.
base::Status Refusal(std::string text) {
  return base::Status(base::ErrorKind::kInvalidRequest, std::move(text));
}

// Reads get_dynamic_tools' arguments into `out`, or the in-band refusal when they cannot be
// sent. An integer limit goes as it is, for the daemon to judge its range; without a query
// the limit is neither read nor sent, so such a request stays what it was before queries.
base::Status ReadToolsArguments(const Value* args, ToolsRequest* out) {
  if (!OptionalString(args, "namespace", &out->ns) ||
      !OptionalString(args, "toolName", &out->tool)) {
    return Refusal(std::string(kNotStrings));
  }
  if (!OptionalString(args, "query", &out->query)) {
    return Refusal(
        "invalid_request: query must be a string: what you want to do, in your own "
        "words");
  }
  if (!out->query) return base::Status();
  if (!OptionalInteger(args, "limit", &out->limit)) {
    return Refusal("invalid_request: limit must be an integer from 1 to " +
                   std::to_string(proto::kMaxToolsLimit));
  }
  if (base::Status checked = CheckToolsRequest(*out); !checked.ok()) {
    return std::move(checked).Prefixed("invalid_request: ");
  }
  return base::Status();
}

}  // namespace

std::string UnreachableNotice(std::string_view error) {
  std::string line = "mcpgw stdio: cannot reach mcpgwd: ";
  line.append(error);
  if (error.find("start it with") == std::string_view::npos) {
    line.append("; ");
    line.append(kStartHint);
  }
  return line;
}

const StdioBridge::Method StdioBridge::kRequests[] = {
    {"initialize", &StdioBridge::OnInitialize},    {"ping", &StdioBridge::OnPing},
    {"tools/list", &StdioBridge::OnToolsList},     {"tools/call", &StdioBridge::OnToolsCall},
    {"server/discover", &StdioBridge::OnDiscover}, {"subscriptions/listen", &StdioBridge::OnListen},
};

const StdioBridge::Method StdioBridge::kNotifications[] = {
    {"notifications/cancelled", &StdioBridge::OnCancelled},
};

StdioBridge::StdioBridge(AsyncDaemonApi& api, Writer writer, Notice notice,
                         long long max_text_bytes)
    : api_(api),
      writer_(std::move(writer)),
      notice_(std::move(notice)),
      max_text_bytes_(max_text_bytes) {}

StdioBridge::~StdioBridge() {
  for (const auto& [id, call] : calls_) api_.Cancel(call.request);
}

void StdioBridge::HandleLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  if (line.size() > kMaxStdioLineBytes) {
    RejectOversized();
    return;
  }
  HostLine parsed;
  if (const base::Status status = ParseHostLine(line, &parsed); !status.ok()) {
    Send(ErrorMessage(kNullId, kParseError, "Parse error: " + status.message()));
    return;
  }
  const rapidjson::Document& doc = parsed.doc;
  if (!doc.IsObject()) {
    Send(ErrorMessage(kNullId, kInvalidRequest,
                      "Invalid Request: a message must be a JSON object (batches are not "
                      "supported)"));
    return;
  }
  const Value* id = Member(&doc, "id");
  const Value* method = Member(&doc, "method");
  if (method == nullptr) return;  // A response to a request we never sent: nothing to do.
  std::string id_json(kNullId);
  if (id != nullptr) {
    if (!id->IsString() && !id->IsNumber()) {
      Send(ErrorMessage(kNullId, kInvalidRequest,
                        "Invalid Request: id must be a string or a number"));
      return;
    }
    id_json = IdJson(parsed.id, *id);
  }
  const Value* version = Member(&doc, "jsonrpc");
  if (!method->IsString() || version == nullptr || !version->IsString() ||
      View(*version) != "2.0") {
    if (id != nullptr) {
      Send(ErrorMessage(id_json, kInvalidRequest,
                        "Invalid Request: needs \"jsonrpc\":\"2.0\" and a string \"method\""));
    }
    return;
  }
  if (parsed.depth > kMaxStdioDepth) {
    if (id != nullptr) {
      Send(ErrorMessage(
          id_json, kInvalidRequest,
          "Invalid Request: nested deeper than " + std::to_string(kMaxStdioDepth) + " levels"));
    }
    return;
  }
  const std::string_view name = View(*method);
  Message m{parsed, id_json, Member(&doc, "params")};
  if (id != nullptr) {
    // A 2026-07-28 request carries its version and capabilities in _meta.
    HostRequest era = ClassifyHostRequest(id_json, m.params);
    if (!era.refusal.empty()) {
      Send(std::move(era.refusal));
      return;
    }
    m.modern = era.modern;
  }
  if (id == nullptr) {
    // notifications/initialized and every other notification: nothing to do.
    for (const Method& entry : kNotifications) {
      if (entry.name == name) (this->*entry.handler)(m);
    }
    return;
  }
  for (const Method& entry : kRequests) {
    if (entry.name == name) {
      (this->*entry.handler)(m);
      return;
    }
  }
  Send(ErrorMessage(id_json, kMethodNotFound, "Method not found: " + std::string(name)));
}

void StdioBridge::RejectOversized() {
  Send(ErrorMessage(kNullId, kParseError, "Parse error: message larger than 32 MiB"));
}

void StdioBridge::OnInitialize(const Message& m) {
  const Value* requested = Member(m.params, "protocolVersion");
  const std::string_view version =
      requested != nullptr && requested->IsString() ? View(*requested) : std::string_view();
  Send(ResultMessage(m.id_json, InitializeResult(NegotiateProtocolVersion(version))));
}

void StdioBridge::OnPing(const Message& m) {
  Send(ResultMessage(m.id_json, EmptyResult(m.modern)));
}

void StdioBridge::OnToolsList(const Message& m) {
  Send(ResultMessage(m.id_json, ToolsListResult(m.modern)));
}

// Answered whatever the request's era: a host that probes learns both eras are served.
void StdioBridge::OnDiscover(const Message& m) { Send(ResultMessage(m.id_json, DiscoverResult())); }

// The bridge's tools never change: the subscription is acknowledged with nothing to deliver
// and ended at once, gracefully.
void StdioBridge::OnListen(const Message& m) {
  Send(ListenAcknowledged(m.id_json));
  Send(ResultMessage(m.id_json, ListenClosedResult(m.id_json)));
}

void StdioBridge::OnToolsCall(const Message& m) {
  const Value* tool = Member(m.params, "name");
  if (tool == nullptr || !tool->IsString()) {
    Send(ErrorMessage(m.id_json, kInvalidParams,
                      "Invalid params: tools/call needs a string \"name\""));
    return;
  }
  const std::string_view tool_name = View(*tool);
  if (tool_name != kGetTool && tool_name != kCallTool) {
    Send(ErrorMessage(m.id_json, kInvalidParams,
                      "Unknown tool: " + std::string(tool_name) +
                          " (this server has get_dynamic_tools and call_dynamic_tool)"));
    return;
  }
  const Value* args = Member(m.params, "arguments");
  if (args != nullptr && !args->IsNull() && !args->IsObject()) {
    Send(ErrorMessage(m.id_json, kInvalidParams, "Invalid params: arguments must be an object"));
    return;
  }
  ToolCall request;
  request.call = tool_name == kCallTool;
  base::Status refusal;
  if (!request.call) {
    refusal = ReadToolsArguments(args, &request.args);
  } else if (!OptionalString(args, "namespace", &request.args.ns) ||
             !OptionalString(args, "toolName", &request.args.tool)) {
    refusal = Refusal(std::string(kNotStrings));
  } else if (!request.args.ns || !request.args.tool) {
    refusal = Refusal(
        "invalid_request: call_dynamic_tool needs the strings namespace and toolName; "
        "call get_dynamic_tools to list the servers and their tools");
  } else {
    const Value* inner = Member(args, "arguments");
    if (inner == nullptr || inner->IsNull()) {
      request.arguments_json = "{}";
    } else if (inner->IsObject()) {
      request.arguments_json = m.line.tool_arguments;  // the host's bytes, verbatim
    } else {
      refusal = Refusal(
          "invalid_request: arguments must be an object holding the tool's arguments, as its "
          "inputSchema describes");
    }
  }
  if (!refusal.ok()) {
    Send(ToolCallMessage(m.id_json, refusal.message(), /*is_error=*/true, m.modern));
    return;
  }
  StartCall(m.id_json, request, m.modern);
}

void StdioBridge::OnCancelled(const Message& m) {
  const Value* request_id = Member(m.params, "requestId");
  if (request_id == nullptr || (!request_id->IsString() && !request_id->IsNumber())) return;
  const auto it = calls_.find(IdJson(m.line.request_id, *request_id));
  if (it == calls_.end()) return;  // Already answered, or never known: nothing to cancel.
  // Forgotten now, so the host may reuse the id at once; the api's cancelled callback
  // finds no call to answer.
  const AsyncDaemonApi::RequestId request = it->second.request;
  calls_.erase(it);
  api_.Cancel(request);
}

void StdioBridge::StartCall(const std::string& id_json, const ToolCall& request, bool modern) {
  if (calls_.count(id_json) > 0) {
    Send(ErrorMessage(id_json, kInvalidRequest,
                      "Invalid Request: id " + id_json + " is already used by a running call"));
    return;
  }
  if (calls_.size() >= kMaxConcurrentCalls) {
    Send(ErrorMessage(id_json, kServerBusy,
                      "Too many calls in flight (" + std::to_string(kMaxConcurrentCalls) +
                          "); retry when some have finished"));
    return;
  }
  const uint64_t seq = next_seq_++;
  auto done = [this, alive = std::weak_ptr<bool>(alive_), id_json, seq](const ApiResult& result) {
    if (!alive.expired()) Finish(id_json, seq, result);
  };
  const AsyncDaemonApi::RequestId id =
      request.call ? api_.StartCallDynamicTool(*request.args.ns, *request.args.tool,
                                               request.arguments_json, max_text_bytes_, done)
                   : api_.StartGetDynamicTools(request.args, done);
  if (id == 0) {
    Send(ToolCallMessage(id_json, "unavailable: the bridge is shutting down", /*is_error=*/true,
                         modern));
    return;
  }
  calls_.emplace(id_json, Call{seq, id, modern});
}

void StdioBridge::Finish(const std::string& id_json, uint64_t seq, const ApiResult& result) {
  const auto it = calls_.find(id_json);
  if (it == calls_.end() || it->second.seq != seq) return;  // cancelled by the host
  const bool modern = it->second.modern;
  calls_.erase(it);
  if (result.status == MCPGW_UNAVAILABLE) {
    if (!unreachable_noted_ && notice_) notice_(UnreachableNotice(result.text));
    unreachable_noted_ = true;
  } else {
    unreachable_noted_ = false;
  }
  Send(result.status == MCPGW_OK
           ? ToolCallMessage(id_json, result.text, /*is_error=*/false, modern)
           : ToolCallMessage(id_json, ErrorText(result), /*is_error=*/true, modern));
}

}  // namespace mcpgw::cli
