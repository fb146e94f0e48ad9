#include "client/stdio/stdio_messages.h"

#include <cstdint>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_text.h"
#include "base/utf8.h"
#include "proto/mcp_versions.h"
#include "proto/proto.h"

#ifndef MCPGW_VERSION
#define MCPGW_VERSION "0.0.0"
#endif

namespace mcpgw::cli {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr std::string_view kMetaVersion = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view kMetaCapabilities = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view kMetaSubscription = "io.modelcontextprotocol/subscriptionId";
// The two tools never change: a day of freshness for a listing or a discovery.
constexpr int64_t kTtlMs = 24 * 60 * 60 * 1000;

constexpr std::string_view kInstructions =
    "This server is a gateway to many MCP servers. When you do not know which server has the "
    "tool you need (or there are many), call get_dynamic_tools with query, the task in your "
    "own words: it answers the best-matching tools, each with its inputSchema, so you can call "
    "the top match with call_dynamic_tool directly. When you know the names, call "
    "get_dynamic_tools to see the servers and their tool names (pass a namespace to get that "
    "server's tool descriptions and input schemas), then call_dynamic_tool with the namespace, "
    "toolName and arguments to run one.";

constexpr std::string_view kGetDescription =
    "Lists the MCP servers behind this gateway and their tools; answers compact JSON text. "
    "With query: the tools that best match it, best first, each with its namespace, "
    "description and inputSchema; use it when you do not know which server has the tool, "
    "then call the top match. With no arguments: every server's namespace, status (ready, "
    "loading or error, with a reason) and tool names. With namespace: that server's tools, "
    "each with its description and inputSchema. With namespace and toolName: that one tool.";

constexpr std::string_view kCallDescription =
    "Calls one tool of one MCP server behind this gateway and returns the tool's result as "
    "text. Look up the namespace, the tool name and its inputSchema with get_dynamic_tools "
    "first (with query when you do not know which server has the tool); pass the tool's "
    "arguments as an object. A very long result comes back cut, its last line naming the "
    "file that holds the whole text.";

void Key(JsonWriter& w, std::string_view key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void Str(JsonWriter& w, std::string_view value) {
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void StringProperty(JsonWriter& w, std::string_view name, std::string_view description) {
  Key(w, name);
  w.StartObject();
  Key(w, "type");
  Str(w, "string");
  Key(w, "description");
  Str(w, description);
  w.EndObject();
}

void IntegerProperty(JsonWriter& w, std::string_view name, int minimum, int maximum,
                     int default_value, std::string_view description) {
  Key(w, name);
  w.StartObject();
  Key(w, "type");
  Str(w, "integer");
  Key(w, "minimum");
  w.Int(minimum);
  Key(w, "maximum");
  w.Int(maximum);
  Key(w, "default");
  w.Int(default_value);
  Key(w, "description");
  Str(w, description);
  w.EndObject();
}

void Annotations(JsonWriter& w, std::string_view title, bool read_only, bool open_world) {
  Key(w, "annotations");
  w.StartObject();
  Key(w, "title");
  Str(w, title);
  Key(w, "readOnlyHint");
  w.Bool(read_only);
  if (!read_only) {
    Key(w, "destructiveHint");
    w.Bool(true);
  }
  Key(w, "idempotentHint");
  w.Bool(read_only);
  Key(w, "openWorldHint");
  w.Bool(open_world);
  w.EndObject();
}

std::string Done(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

void ServerInfo(JsonWriter& w) {
  w.StartObject();
  Key(w, "name");
  Str(w, "mcpgw");
  Key(w, "version");
  Str(w, MCPGW_VERSION);
  w.EndObject();
}

void ToolsCapability(JsonWriter& w) {
  Key(w, "capabilities");
  w.StartObject();
  Key(w, "tools");
  w.StartObject();
  Key(w, "listChanged");
  w.Bool(false);
  w.EndObject();
  w.EndObject();
}

void CacheHints(JsonWriter& w) {
  Key(w, "ttlMs");
  w.Int64(kTtlMs);
  Key(w, "cacheScope");
  Str(w, "public");
}

void Complete(JsonWriter& w, bool modern) {
  if (!modern) return;
  Key(w, "resultType");
  Str(w, "complete");
}

const rapidjson::Value* Find(const rapidjson::Value* object, std::string_view key) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  const auto it = object->FindMember(
      rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size())));
  return it == object->MemberEnd() ? nullptr : &it->value;
}

// Every revision the bridge speaks, the modern one first.
void SupportedVersions(JsonWriter& w) {
  w.StartArray();
  Str(w, proto::kMcpModernVersion);
  for (std::string_view v : proto::kMcpLegacyVersions) Str(w, v);
  w.EndArray();
}

// "Unsupported protocol version (this server speaks 2026-07-28 per request, or 2025-11-25,
// 2025-06-18 and 2025-03-26 after initialize)".
std::string UnsupportedVersionText() {
  std::string text = "Unsupported protocol version (this server speaks ";
  text.append(proto::kMcpModernVersion);
  text.append(" per request, or ");
  const size_t n = proto::kMcpLegacyVersions.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) text.append(i + 1 == n ? " and " : ", ");
    text.append(proto::kMcpLegacyVersions[i]);
  }
  text.append(" after initialize)");
  return text;
}

std::string UnsupportedVersion(std::string_view id_json, const rapidjson::Value& requested) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Key(w, "jsonrpc");
  Str(w, "2.0");
  Key(w, "id");
  w.RawValue(id_json.data(), id_json.size(), rapidjson::kObjectType);
  Key(w, "error");
  w.StartObject();
  Key(w, "code");
  w.Int(proto::kMcpUnsupportedVersionCode);
  Key(w, "message");
  Str(w, UnsupportedVersionText());
  Key(w, "data");
  w.StartObject();
  Key(w, "supported");
  SupportedVersions(w);
  Key(w, "requested");
  Str(w, base::Utf8Replacing(std::string_view(requested.GetString(), requested.GetStringLength())));
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return Done(buffer);
}

}  // namespace

std::string_view NegotiateProtocolVersion(std::string_view requested) {
  for (std::string_view v : proto::kMcpLegacyVersions) {
    if (v == requested) return v;
  }
  return proto::kMcpLegacyVersion;
}

std::string ResultMessage(std::string_view id_json, std::string_view result_json) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Key(w, "jsonrpc");
  Str(w, "2.0");
  Key(w, "id");
  w.RawValue(id_json.data(), id_json.size(), rapidjson::kObjectType);
  Key(w, "result");
  w.RawValue(result_json.data(), result_json.size(), rapidjson::kObjectType);
  w.EndObject();
  return Done(buffer);
}

std::string ErrorMessage(std::string_view id_json, int code, std::string_view message) {
  const std::string text = base::Utf8Replacing(message);
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Key(w, "jsonrpc");
  Str(w, "2.0");
  Key(w, "id");
  w.RawValue(id_json.data(), id_json.size(), rapidjson::kObjectType);
  Key(w, "error");
  w.StartObject();
  Key(w, "code");
  w.Int(code);
  Key(w, "message");
  Str(w, text);
  w.EndObject();
  w.EndObject();
  return Done(buffer);
}

std::string InitializeResult(std::string_view protocol_version) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Key(w, "protocolVersion");
  Str(w, protocol_version);
  ToolsCapability(w);
  Key(w, "serverInfo");
  ServerInfo(w);
  Key(w, "instructions");
  Str(w, kInstructions);
  w.EndObject();
  return Done(buffer);
}

std::string ToolsListResult(bool modern) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Complete(w, modern);
  if (modern) CacheHints(w);
  Key(w, "tools");
  w.StartArray();

  w.StartObject();
  Key(w, "name");
  Str(w, "get_dynamic_tools");
  Key(w, "description");
  Str(w, kGetDescription);
  Key(w, "inputSchema");
  w.StartObject();
  Key(w, "type");
  Str(w, "object");
  Key(w, "properties");
  w.StartObject();
  StringProperty(w, "namespace",
                 "A server's namespace: list its tools with their input schemas (with query: "
                 "search only this server).");
  StringProperty(w, "toolName", "With namespace: describe only this tool (not with query).");
  StringProperty(w, "query",
                 "What you want to do, in your own words: answers the best-matching tools of "
                 "the ready servers, best first.");
  IntegerProperty(w, "limit", 1, proto::kMaxToolsLimit, proto::kDefaultToolsLimit,
                  "With query: how many tools to answer at most.");
  w.EndObject();
  w.EndObject();
  Annotations(w, "List gateway servers and tools", /*read_only=*/true, /*open_world=*/false);
  w.EndObject();

  w.StartObject();
  Key(w, "name");
  Str(w, "call_dynamic_tool");
  Key(w, "description");
  Str(w, kCallDescription);
  Key(w, "inputSchema");
  w.StartObject();
  Key(w, "type");
  Str(w, "object");
  Key(w, "properties");
  w.StartObject();
  StringProperty(w, "namespace", "The server's namespace, as get_dynamic_tools lists it.");
  StringProperty(w, "toolName", "The tool's name within that server.");
  Key(w, "arguments");
  w.StartObject();
  Key(w, "type");
  Str(w, "object");
  Key(w, "description");
  Str(w, "The tool's arguments, matching its inputSchema (default {}).");
  w.EndObject();
  w.EndObject();
  Key(w, "required");
  w.StartArray();
  Str(w, "namespace");
  Str(w, "toolName");
  w.EndArray();
  w.EndObject();
  Annotations(w, "Call a gateway tool", /*read_only=*/false, /*open_world=*/true);
  w.EndObject();

  w.EndArray();
  w.EndObject();
  return Done(buffer);
}

// Written by hand, not through a rapidjson::Writer: this is every call's answer, and the
// writer's buffer, its stack and the copy of the text made valid first were most of its cost.
// AppendJsonString makes ill-formed UTF-8 U+FFFD as Utf8Replacing does.
void AppendToolCallResult(std::string* out, std::string_view text, bool is_error, bool modern) {
  out->append(modern ? R"({"resultType":"complete","content":[{"type":"text","text":)"
                     : R"({"content":[{"type":"text","text":)");
  base::AppendJsonString(out, text);
  out->append(is_error ? R"(}],"isError":true})" : R"(}],"isError":false})");
}

std::string ToolCallResult(std::string_view text, bool is_error, bool modern) {
  std::string out;
  out.reserve(text.size() + 80);
  AppendToolCallResult(&out, text, is_error, modern);
  return out;
}

std::string ToolCallMessage(std::string_view id_json, std::string_view text, bool is_error,
                            bool modern) {
  std::string out;
  out.reserve(id_json.size() + text.size() + 112);
  out.append(R"({"jsonrpc":"2.0","id":)");
  out.append(id_json);
  out.append(R"(,"result":)");
  AppendToolCallResult(&out, text, is_error, modern);
  out.push_back('}');
  return out;
}

std::string EmptyResult(bool modern) { return modern ? R"({"resultType":"complete"})" : "{}"; }

HostRequest ClassifyHostRequest(std::string_view id_json, const rapidjson::Value* params) {
  HostRequest out;
  const rapidjson::Value* meta = Find(params, "_meta");
  const rapidjson::Value* version = Find(meta, kMetaVersion);
  if (version == nullptr) return out;  // a legacy request
  out.modern = true;
  if (!version->IsString()) {
    out.refusal = ErrorMessage(id_json, kInvalidParams,
                               "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] "
                               "must be a string");
  } else if (std::string_view(version->GetString(), version->GetStringLength()) !=
             proto::kMcpModernVersion) {
    out.refusal = UnsupportedVersion(id_json, *version);
  } else if (const rapidjson::Value* caps = Find(meta, kMetaCapabilities);
             caps == nullptr || !caps->IsObject()) {
    out.refusal = ErrorMessage(id_json, kInvalidParams,
                               "Invalid params: _meta needs the object "
                               "\"io.modelcontextprotocol/clientCapabilities\"");
  }
  return out;
}

std::string DiscoverResult() {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Complete(w, true);
  Key(w, "supportedVersions");
  SupportedVersions(w);
  ToolsCapability(w);
  Key(w, "_meta");
  w.StartObject();
  Key(w, "io.modelcontextprotocol/serverInfo");
  ServerInfo(w);
  w.EndObject();
  Key(w, "instructions");
  Str(w, kInstructions);
  CacheHints(w);
  w.EndObject();
  return Done(buffer);
}

std::string ListenAcknowledged(std::string_view id_json) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Key(w, "jsonrpc");
  Str(w, "2.0");
  Key(w, "method");
  Str(w, "notifications/subscriptions/acknowledged");
  Key(w, "params");
  w.StartObject();
  Key(w, "_meta");
  w.StartObject();
  Key(w, kMetaSubscription);
  w.RawValue(id_json.data(), id_json.size(), rapidjson::kObjectType);
  w.EndObject();
  Key(w, "notifications");
  w.StartObject();
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return Done(buffer);
}

std::string ListenClosedResult(std::string_view id_json) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Complete(w, true);
  Key(w, "_meta");
  w.StartObject();
  Key(w, kMetaSubscription);
  w.RawValue(id_json.data(), id_json.size(), rapidjson::kObjectType);
  w.EndObject();
  w.EndObject();
  return Done(buffer);
}

}  // namespace mcpgw::cli
