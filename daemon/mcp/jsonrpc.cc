#include "daemon/mcp/jsonrpc.h"

#include <charconv>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/json_text.h"

namespace mcpgw::mcp {

namespace {

// The request's start, with room for `more` bytes after it.
std::string Envelope(RpcId id, size_t more = 64) {
  constexpr std::string_view kStart = "{\"jsonrpc\":\"2.0\",\"id\":";
  char digits[24];
  const std::to_chars_result r = std::to_chars(digits, digits + sizeof digits, id);
  std::string out;
  out.reserve(kStart.size() + static_cast<size_t>(r.ptr - digits) + more);
  out.append(kStart).append(digits, r.ptr);
  return out;
}

void AppendId(std::string& out, const rapidjson::Value& id) {
  if (id.IsString()) {
    base::AppendJsonString(&out, std::string_view(id.GetString(), id.GetStringLength()));
  } else {
    out += base::ToCompactJson(id);
  }
}

}  // namespace

bool IsSupportedProtocolVersion(std::string_view version) {
  return proto::IsMcpLegacyVersion(version);
}

std::string BuildInitialize(RpcId id, std::string_view client_version) {
  std::string out = Envelope(id);
  out += ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":";
  base::AppendJsonString(&out, kProtocolVersion);
  out += ",\"capabilities\":{},\"clientInfo\":{\"name\":\"mcpgw\",\"version\":";
  base::AppendJsonString(&out, client_version);
  out += "}}}";
  return out;
}

std::string BuildInitialized() {
  return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
}

std::string BuildToolsList(RpcId id, const std::optional<std::string>& cursor) {
  std::string out = Envelope(id);
  out += ",\"method\":\"tools/list\"";
  if (cursor) {
    out += ",\"params\":{\"cursor\":";
    base::AppendJsonString(&out, *cursor);
    out += "}";
  }
  out += "}";
  return out;
}

std::string BuildToolsCallParams(std::string_view tool, std::string_view arguments_json) {
  std::string out;
  out.reserve(tool.size() + arguments_json.size() + 24);
  out += "{\"name\":";
  base::AppendJsonString(&out, tool);
  out += ",\"arguments\":";
  out += arguments_json;
  out += "}";
  return out;
}

std::string BuildRequest(RpcId id, std::string_view method, std::string_view params_json) {
  std::string out = Envelope(id, method.size() + params_json.size() + 24);
  out += ",\"method\":";
  base::AppendJsonString(&out, method);
  out += ",\"params\":";
  out += params_json;
  out += "}";
  return out;
}

std::string BuildCancelled(RpcId request_id, std::string_view reason) {
  std::string out =
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":";
  out += std::to_string(request_id);
  out += ",\"reason\":";
  base::AppendJsonString(&out, reason);
  out += "}}";
  return out;
}

std::string BuildEmptyResult(const rapidjson::Value& id) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  AppendId(out, id);
  out += ",\"result\":{}}";
  return out;
}

std::string BuildErrorResponse(const rapidjson::Value& id, int code, std::string_view message) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  AppendId(out, id);
  out += ",\"error\":{\"code\":";
  out += std::to_string(code);
  out += ",\"message\":";
  base::AppendJsonString(&out, message);
  out += "}}";
  return out;
}

Message ClassifyMessage(const rapidjson::Value& value) {
  Message m;
  if (!value.IsObject()) return m;
  const auto end = value.MemberEnd();
  const auto method = value.FindMember("method");
  const auto id = value.FindMember("id");
  const auto params = value.FindMember("params");
  const auto result = value.FindMember("result");
  const auto error = value.FindMember("error");
  const bool id_usable = id != end && (id->value.IsString() || id->value.IsNumber());

  if (id_usable) {
    m.id = &id->value;
    if (id->value.IsInt64()) m.int_id = id->value.GetInt64();
  }
  if (method != end) {
    if (!method->value.IsString()) return m;
    if (result != end || error != end) return m;
    if (id != end && !id_usable) return m;
    if (params != end) {
      if (!params->value.IsObject() && !params->value.IsArray()) return m;
      m.params = &params->value;
    }
    m.method = std::string_view(method->value.GetString(), method->value.GetStringLength());
    m.kind = id_usable ? MessageKind::kRequest : MessageKind::kNotification;
    return m;
  }

  // A response: an id (null only for errors) and exactly one of result/error.
  if (id == end || (result != end) == (error != end)) return m;
  if (result != end) {
    if (!id_usable) return m;
    m.result = &result->value;
    m.kind = MessageKind::kResponse;
    return m;
  }
  if (!id_usable && !id->value.IsNull()) return m;
  if (!error->value.IsObject()) return m;
  m.is_error = true;
  const auto code = error->value.FindMember("code");
  if (code != error->value.MemberEnd() && code->value.IsInt64()) {
    m.error_code = code->value.GetInt64();
  }
  const auto message = error->value.FindMember("message");
  if (message != error->value.MemberEnd() && message->value.IsString()) {
    m.error_message = base::CleanServerText(
        std::string_view(message->value.GetString(), message->value.GetStringLength()));
  }
  m.kind = MessageKind::kResponse;
  return m;
}

}  // namespace mcpgw::mcp
