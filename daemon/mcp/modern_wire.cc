#include "daemon/mcp/modern_wire.h"

#include <algorithm>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/json_text.h"
#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/param_headers.h"

namespace mcpgw::mcp {
namespace {

constexpr size_t kMaxVersionBytes = 64;
constexpr size_t kMaxInputRequestsNamed = 8;
constexpr auto kMaxTtl = std::chrono::hours(24);

std::string_view View(const rapidjson::Value& s) {
  return std::string_view(s.GetString(), s.GetStringLength());
}

const rapidjson::Value* Member(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  const auto it = v.FindMember(key);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

// A list of version strings, or nullopt when `v` is not an array of strings.
// Long entries are dropped and the list is bounded: neither can name a
// version this client speaks.
std::optional<std::vector<std::string>> Versions(const rapidjson::Value* v) {
  if (v == nullptr || !v->IsArray()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& item : v->GetArray()) {
    if (!item.IsString()) return std::nullopt;
    if (item.GetStringLength() > kMaxVersionBytes || out.size() >= kMaxVersions) continue;
    out.emplace_back(View(item));
  }
  return out;
}

bool HasLegacyVersion(const std::vector<std::string>& versions) {
  return std::any_of(versions.begin(), versions.end(),
                     [](const std::string& v) { return IsSupportedProtocolVersion(v); });
}

}  // namespace

bool IsModernErrorCode(int64_t code) {
  return code == kHeaderMismatch || code == kMissingRequiredClientCapability ||
         code == kUnsupportedProtocolVersion;
}

bool IsModernProtocolVersion(std::string_view version) { return version == kModernProtocolVersion; }

std::string ModernParams(std::string_view members, std::string_view version,
                         std::string_view client_version) {
  std::string out = "{";
  out += members;
  if (!members.empty()) out += ',';
  out += "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":";
  base::AppendJsonString(&out, version);
  out += ",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"mcpgw\",\"version\":";
  base::AppendJsonString(&out, client_version);
  out += "},\"io.modelcontextprotocol/clientCapabilities\":{}}}";
  return out;
}

std::string DiscoverParams(std::string_view version, std::string_view client_version) {
  return ModernParams("", version, client_version);
}

std::string ModernToolsListParams(const std::optional<std::string>& cursor,
                                  std::string_view version, std::string_view client_version) {
  std::string members;
  if (cursor) {
    members = "\"cursor\":";
    base::AppendJsonString(&members, *cursor);
  }
  return ModernParams(members, version, client_version);
}

std::string ModernToolsCallParams(std::string_view tool, std::string_view arguments_json,
                                  std::string_view version, std::string_view client_version) {
  std::string members = "\"name\":";
  base::AppendJsonString(&members, tool);
  members += ",\"arguments\":";
  members += arguments_json;
  return ModernParams(members, version, client_version);
}

std::string ListenParams(std::string_view version, std::string_view client_version) {
  return ModernParams("\"notifications\":{\"toolsListChanged\":true}", version, client_version);
}

std::vector<std::pair<std::string, std::string>> ModernHeaders(
    std::string_view version, std::string_view method, std::optional<std::string_view> name) {
  std::vector<std::pair<std::string, std::string>> headers;
  headers.emplace_back("MCP-Protocol-Version", std::string(version));
  headers.emplace_back("Mcp-Method", EncodeHeaderValue(method));
  if (name) headers.emplace_back("Mcp-Name", EncodeHeaderValue(*name));
  return headers;
}

std::optional<DiscoverResult> ParseDiscoverResult(const rapidjson::Value& result) {
  if (!result.IsObject()) return std::nullopt;
  if (ResultTypeOf(result) != ResultType::kComplete) return std::nullopt;
  auto versions = Versions(Member(result, "supportedVersions"));
  if (!versions) return std::nullopt;
  DiscoverResult out;
  out.supported_versions = std::move(*versions);
  if (const auto* caps = Member(result, "capabilities")) {
    if (const auto* tools = Member(*caps, "tools")) {
      const auto* changed = Member(*tools, "listChanged");
      out.tools_list_changed = changed && changed->IsBool() && changed->GetBool();
    }
  }
  return out;
}

std::optional<ModernError> RecognizeModernError(const rapidjson::Value& message) {
  const rapidjson::Value* error = Member(message, "error");
  if (error == nullptr || !error->IsObject()) return std::nullopt;
  const rapidjson::Value* code = Member(*error, "code");
  if (code == nullptr || !code->IsInt64()) return std::nullopt;
  ModernError out;
  out.code = code->GetInt64();
  if (!IsModernErrorCode(out.code)) return std::nullopt;
  if (const auto* text = Member(*error, "message"); text && text->IsString()) {
    out.message = base::CleanServerText(View(*text));
  }
  if (out.code == kUnsupportedProtocolVersion) {
    const rapidjson::Value* data = Member(*error, "data");
    auto supported = Versions(data ? Member(*data, "supported") : nullptr);
    if (!supported) return std::nullopt;
    out.supported = std::move(*supported);
  }
  return out;
}

std::optional<std::string> PickModernVersion(const std::vector<std::string>& supported) {
  for (const auto& v : supported) {
    if (IsModernProtocolVersion(v)) return v;
  }
  return std::nullopt;
}

std::string DescribeVersions(const std::vector<std::string>& versions) {
  if (versions.empty()) return "none";
  std::string out;
  for (const auto& v : versions) {
    if (!out.empty()) out += ", ";
    out += base::CleanServerText(v, kMaxVersionBytes);
    if (out.size() > 200) {
      out += ", ...";
      break;
    }
  }
  return out;
}

EraVerdict JudgeDiscover(const rapidjson::Value* message, bool refused, bool retried) {
  EraVerdict verdict;  // legacy unless the answer says modern
  if (message == nullptr || !message->IsObject()) return verdict;

  if (auto error = RecognizeModernError(*message)) {
    if (error->code != kUnsupportedProtocolVersion) {
      verdict.kind = EraVerdict::Kind::kFail;
      verdict.reason =
          "server/discover refused: error " + std::to_string(error->code) + ": " + error->message;
      return verdict;
    }
    if (auto version = PickModernVersion(error->supported)) {
      if (!retried) {
        verdict.kind = EraVerdict::Kind::kRetry;
        verdict.version = *version;
        return verdict;
      }
      verdict.kind = EraVerdict::Kind::kFail;
      verdict.reason = "server refused protocol version " + *version +
                       " though it lists it as supported (" + DescribeVersions(error->supported) +
                       ")";
      return verdict;
    }
    if (HasLegacyVersion(error->supported)) return verdict;
    verdict.kind = EraVerdict::Kind::kFail;
    verdict.reason = "server supports only protocol versions " + DescribeVersions(error->supported);
    return verdict;
  }

  if (refused) return verdict;
  const rapidjson::Value* result = Member(*message, "result");
  if (result == nullptr) return verdict;
  auto discover = ParseDiscoverResult(*result);
  if (!discover) return verdict;
  if (auto version = PickModernVersion(discover->supported_versions)) {
    verdict.kind = EraVerdict::Kind::kModern;
    verdict.version = *version;
    verdict.tools_list_changed = discover->tools_list_changed;
  }
  return verdict;
}

ResultType ResultTypeOf(const rapidjson::Value& result) {
  const rapidjson::Value* type = Member(result, "resultType");
  if (type == nullptr) return ResultType::kComplete;
  if (!type->IsString()) return ResultType::kInvalid;
  if (View(*type) == "complete") return ResultType::kComplete;
  if (View(*type) == "input_required") return ResultType::kInputRequired;
  if (View(*type) == "task") return ResultType::kTask;
  return ResultType::kInvalid;
}

std::string InputRequiredText(const rapidjson::Value& result) {
  std::string text =
      "the server needs interactive input that the gateway cannot give (it declares no client "
      "capabilities)";
  const rapidjson::Value* requests = Member(result, "inputRequests");
  if (requests == nullptr || !requests->IsObject() || requests->MemberCount() == 0) return text;
  std::vector<std::string> methods;
  for (const auto& request : requests->GetObject()) {
    const rapidjson::Value* method = Member(request.value, "method");
    std::string name = method && method->IsString() ? base::CleanServerText(View(*method), 64)
                                                    : std::string("unknown");
    if (std::find(methods.begin(), methods.end(), name) == methods.end()) {
      methods.push_back(std::move(name));
    }
    if (methods.size() >= kMaxInputRequestsNamed) break;
  }
  text += "; it asked for ";
  for (size_t i = 0; i < methods.size(); ++i) {
    if (i > 0) text += ", ";
    text += methods[i];
  }
  return text;
}

std::chrono::milliseconds TtlOf(const rapidjson::Value& result) {
  const rapidjson::Value* ttl = Member(result, "ttlMs");
  if (ttl == nullptr || !ttl->IsNumber()) return std::chrono::milliseconds(0);
  const double ms = ttl->GetDouble();
  if (!(ms > 0)) return std::chrono::milliseconds(0);
  const double cap = static_cast<double>(std::chrono::milliseconds(kMaxTtl).count());
  return std::chrono::milliseconds(static_cast<int64_t>(std::min(ms, cap)));
}

}  // namespace mcpgw::mcp
