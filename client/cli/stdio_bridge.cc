#include "client/cli/stdio_bridge.h"

#include <istream>
#include <utility>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_text.h"
#include "client/cli/stdio_messages.h"

namespace mcpgw::cli {
namespace {

using rapidjson::Value;

constexpr std::string_view kNullId = "null";
constexpr std::string_view kGetTool = "get_dynamic_tools";
constexpr std::string_view kCallTool = "call_dynamic_tool";

std::string_view View(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

const Value* Member(const Value* object, const char* name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  const auto it = object->FindMember(name);
  return it == object->MemberEnd() ? nullptr : &it->value;
}

std::string Serialize(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// Whether the JSON text nests deeper than `limit` (a bound checked before
// any parser recurses).
bool DeeperThan(std::string_view text, int limit) {
  return base::JsonNestingDepth(text, limit) > limit;
}

// Reads an optional string argument of a gateway tool. False when present but not a string.
bool OptionalString(const Value* args, const char* name, std::optional<std::string>* out) {
  const Value* v = Member(args, name);
  if (v == nullptr || v->IsNull()) return true;
  if (!v->IsString()) return false;
  *out = std::string(View(*v));
  return true;
}

}  // namespace

StdioBridge::StdioBridge(DaemonApi& api, Writer writer) : api_(api), writer_(std::move(writer)) {}

StdioBridge::~StdioBridge() {
  Shutdown(kShutdownGrace);
  {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [this] { return calls_.empty(); });
  }
  JoinFinished();
}

size_t StdioBridge::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_.size();
}

void StdioBridge::Send(const std::string& message) {
  std::lock_guard<std::mutex> lock(write_mu_);
  writer_(message);
}

void StdioBridge::JoinFinished() {
  std::vector<std::thread> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished.swap(finished_);
  }
  for (std::thread& t : finished) t.join();
}

void StdioBridge::HandleLine(std::string_view line) {
  JoinFinished();
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  if (line.size() > kMaxStdioLineBytes) {
    Send(ErrorMessage(kNullId, kParseError, "Parse error: message larger than 32 MiB"));
    return;
  }
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(line.data(),
                                                                                    line.size());
  if (doc.HasParseError()) {
    Send(ErrorMessage(kNullId, kParseError,
                      std::string("Parse error: ") +
                          rapidjson::GetParseError_En(doc.GetParseError()) + " (at byte " +
                          std::to_string(doc.GetErrorOffset()) + ")"));
    return;
  }
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
    id_json = Serialize(*id);
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
  if (DeeperThan(line, kMaxStdioDepth)) {
    if (id != nullptr) {
      Send(ErrorMessage(
          id_json, kInvalidRequest,
          "Invalid Request: nested deeper than " + std::to_string(kMaxStdioDepth) + " levels"));
    }
    return;
  }
  const std::string_view name = View(*method);
  const Value* params = Member(&doc, "params");

  if (id == nullptr) {
    if (name == "notifications/cancelled") {
      const Value* request_id = Member(params, "requestId");
      if (request_id != nullptr && (request_id->IsString() || request_id->IsNumber())) {
        CancelCall(Serialize(*request_id));
      }
    }
    return;  // notifications/initialized and every other notification: nothing to do.
  }

  if (name == "initialize") {
    const Value* requested = Member(params, "protocolVersion");
    const std::string_view version_text =
        requested != nullptr && requested->IsString() ? View(*requested) : std::string_view();
    Send(ResultMessage(id_json, InitializeResult(NegotiateProtocolVersion(version_text))));
  } else if (name == "ping") {
    Send(ResultMessage(id_json, "{}"));
  } else if (name == "tools/list") {
    Send(ResultMessage(id_json, ToolsListResult()));
  } else if (name == "tools/call") {
    const Value* tool = Member(params, "name");
    if (tool == nullptr || !tool->IsString()) {
      Send(ErrorMessage(id_json, kInvalidParams,
                        "Invalid params: tools/call needs a string \"name\""));
      return;
    }
    const std::string_view tool_name = View(*tool);
    if (tool_name != kGetTool && tool_name != kCallTool) {
      Send(ErrorMessage(id_json, kInvalidParams,
                        "Unknown tool: " + std::string(tool_name) +
                            " (this server has get_dynamic_tools and call_dynamic_tool)"));
      return;
    }
    const Value* args = Member(params, "arguments");
    if (args != nullptr && !args->IsNull() && !args->IsObject()) {
      Send(ErrorMessage(id_json, kInvalidParams, "Invalid params: arguments must be an object"));
      return;
    }
    ToolCall request;
    request.call = tool_name == kCallTool;
    const bool strings_ok = OptionalString(args, "namespace", &request.ns) &&
                            OptionalString(args, "toolName", &request.tool);
    std::string refusal;
    if (!strings_ok) {
      refusal = "invalid_request: namespace and toolName must be strings";
    } else if (request.call && (!request.ns || !request.tool)) {
      refusal =
          "invalid_request: call_dynamic_tool needs the strings namespace and toolName; call "
          "get_dynamic_tools to list the servers and their tools";
    } else if (request.call) {
      const Value* inner = Member(args, "arguments");
      if (inner == nullptr || inner->IsNull()) {
        request.arguments_json = "{}";
      } else if (inner->IsObject()) {
        request.arguments_json = Serialize(*inner);
      } else {
        refusal =
            "invalid_request: arguments must be an object holding the tool's arguments, as its "
            "inputSchema describes";
      }
    }
    if (!refusal.empty()) {
      Send(ResultMessage(id_json, ToolCallResult(refusal, /*is_error=*/true)));
      return;
    }
    StartCall(id_json, std::move(request));
  } else {
    Send(ErrorMessage(id_json, kMethodNotFound, "Method not found: " + std::string(name)));
  }
}

void StdioBridge::StartCall(const std::string& id_json, ToolCall request) {
  std::string refusal;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (calls_.count(id_json) > 0) {
      refusal =
          ErrorMessage(id_json, kInvalidRequest,
                       "Invalid Request: id " + id_json + " is already used by a running call");
    } else if (calls_.size() >= kMaxConcurrentCalls) {
      refusal = ErrorMessage(id_json, kServerBusy,
                             "Too many calls in flight (" + std::to_string(kMaxConcurrentCalls) +
                                 "); retry when some have finished");
    } else {
      auto call = std::make_unique<Call>();
      Call* raw = call.get();
      // The thread cannot finish before it is stored: its last step takes mu_.
      call->thread = std::thread(&StdioBridge::RunCall, this, id_json, raw, std::move(request));
      calls_.emplace(id_json, std::move(call));
    }
  }
  if (!refusal.empty()) Send(refusal);
}

void StdioBridge::CancelCall(const std::string& id_json) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = calls_.find(id_json);
  if (it == calls_.end()) return;  // Already answered, or never known: nothing to cancel.
  it->second->cancelled = true;
  it->second->cancel.Trigger();
}

void StdioBridge::RunCall(const std::string& id_json, Call* call, const ToolCall& request) {
  const ApiResult result =
      request.call
          ? api_.CallDynamicTool(*request.ns, *request.tool, request.arguments_json, &call->cancel)
          : api_.GetDynamicTools(request.ns, request.tool, &call->cancel);
  const std::string message =
      result.status == MCPGW_OK
          ? ResultMessage(id_json, ToolCallResult(result.text, /*is_error=*/false))
          : ResultMessage(id_json, ToolCallResult(ErrorText(result), /*is_error=*/true));
  bool cancelled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled = call->cancelled;
  }
  // Written outside mu_: a host that stops reading must not stall the stdin reader.
  if (!cancelled) Send(message);
  std::lock_guard<std::mutex> lock(mu_);
  finished_.push_back(std::move(call->thread));
  calls_.erase(id_json);
  done_cv_.notify_all();
}

bool StdioBridge::Shutdown(std::chrono::milliseconds grace) {
  bool all_done;
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto& [id, call] : calls_) {
      call->cancelled = true;
      call->cancel.Trigger();
    }
    all_done = done_cv_.wait_for(lock, grace, [this] { return calls_.empty(); });
  }
  JoinFinished();
  return all_done;
}

bool StdioBridge::Run(std::istream& in) {
  std::streambuf* buf = in.rdbuf();
  std::string line;
  bool oversized = false;
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof() || c == '\n') {
      if (oversized) {
        Send(ErrorMessage(kNullId, kParseError, "Parse error: message larger than 32 MiB"));
      } else if (!line.empty()) {
        HandleLine(line);
      }
      line.clear();
      oversized = false;
      if (c == std::char_traits<char>::eof()) break;
      continue;
    }
    if (oversized) continue;
    if (line.size() >= kMaxStdioLineBytes) {
      oversized = true;
      line.clear();
      line.shrink_to_fit();
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  return Shutdown(kShutdownGrace);
}

}  // namespace mcpgw::cli
