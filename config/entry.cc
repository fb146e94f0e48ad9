#include "config/entry.h"

#include <unordered_set>

#include "base/text.h"
#include "config/display.h"
#include "config/document.h"
#include "config/headers.h"
#include "config/interpolate.h"
#include "config/url.h"

namespace mcpgw::config {
namespace {

using rapidjson::Value;

std::string Got(const Value& value) { return std::string(" (got ") + TypeName(value) + ")"; }

void Keep(std::vector<std::string>& values, std::vector<std::string>& secrets) {
  for (std::string& v : values) secrets.push_back(std::move(v));
}

// The checks every entry goes through before its remote fields are read.
std::string ShapeRefusal(const Value& entry) {
  if (!entry.IsObject()) return "entry must be an object" + Got(entry);
  bool has_url = FindLast(entry, "url") != nullptr;
  bool has_command = FindLast(entry, "command") != nullptr;
  if (has_url && has_command) {
    return "entry has both \"url\" and \"command\"; a server is either remote (url) or local "
           "(command)";
  }
  if (!has_url && !has_command) {
    return "entry has neither \"url\" (remote server) nor \"command\" (local server)";
  }
  if (has_command) return std::string(kLocalRefusal);
  const Value* type = FindLast(entry, "type");
  if (type && type->IsString() && base::EqualsIgnoreCase(StringOf(*type), "sse")) {
    return std::string(kSseRefusal);
  }
  return "";
}

std::string ParseUrl(const Value& url, const ParseEnv& env, std::vector<std::string>& secrets,
                     RemoteServer& out) {
  if (!url.IsString()) return "\"url\" must be a string" + Got(url);
  Interpolated expanded = Interpolate(StringOf(url), env);
  Keep(expanded.env_values, secrets);
  if (!expanded.ok()) return "url: " + expanded.error;
  if (!IsServerUrl(expanded.value)) return "url: not an http:// or https:// URL with a host";
  out.url = Secret(std::move(expanded.value));
  out.url_redacted = std::move(expanded.redacted);
  return "";
}

std::string ParseHeader(std::string_view name, const Value& value, const ParseEnv& env,
                        std::vector<std::string>& secrets, std::unordered_set<std::string>& seen,
                        std::vector<Header>& out) {
  std::string key = "headers." + DisplayName(name);
  if (!IsHttpToken(name)) return key + ": not a valid HTTP header name";
  if (IsClientOwnedHeader(name))
    return key + ": the client sets this header; it cannot be configured";
  std::string lower(name);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (!seen.insert(lower).second)
    return key + ": duplicate header name (names are case-insensitive)";
  if (!value.IsString()) return key + ": value must be a string" + Got(value);
  Interpolated expanded = Interpolate(StringOf(value), env);
  Keep(expanded.env_values, secrets);
  if (!expanded.ok()) return key + ": " + expanded.error;
  secrets.push_back(expanded.value);
  if (HasForbiddenHeaderByte(expanded.value)) return key + ": value contains CR, LF or NUL";
  out.push_back(Header{std::string(name), Secret(std::move(expanded.value))});
  return "";
}

std::string ParseHeaders(const Value* headers, const ParseEnv& env,
                         std::vector<std::string>& secrets, std::vector<Header>& out) {
  if (headers == nullptr || headers->IsNull()) return "";
  if (!headers->IsObject()) return "\"headers\" must be an object" + Got(*headers);
  std::unordered_set<std::string> seen;
  for (const auto& member : headers->GetObject()) {
    std::string refusal = ParseHeader(StringOf(member.name), member.value, env, secrets, seen, out);
    if (!refusal.empty()) return refusal;
  }
  return "";
}

// `oauth`: {"clientId", "clientSecret", "clientMetadataUrl"}, strings, each
// optional; unknown keys are ignored like unknown entry fields.
std::string ParseOAuth(const Value* oauth, const ParseEnv& env, std::vector<std::string>& secrets,
                       OAuthClient& out) {
  if (oauth == nullptr || oauth->IsNull()) return "";
  if (!oauth->IsObject()) return "\"oauth\" must be an object" + Got(*oauth);
  struct Field {
    const char* key;
    std::string* value;
  };
  std::string secret;
  for (Field f : {Field{"clientId", &out.client_id}, Field{"clientSecret", &secret},
                  Field{"clientMetadataUrl", &out.client_metadata_url}}) {
    const Value* v = FindLast(*oauth, f.key);
    if (v == nullptr || v->IsNull()) continue;
    const std::string key = std::string("oauth.") + f.key;
    if (!v->IsString()) return key + ": must be a string" + Got(*v);
    Interpolated expanded = Interpolate(StringOf(*v), env);
    Keep(expanded.env_values, secrets);
    if (!expanded.ok()) return key + ": " + expanded.error;
    if (f.value == &secret) secrets.push_back(expanded.value);
    *f.value = std::move(expanded.value);
  }
  out.client_secret = Secret(std::move(secret));
  if (!out.client_secret.empty() && out.client_id.empty()) {
    return "oauth.clientSecret: needs oauth.clientId";
  }
  const std::string& cimd = out.client_metadata_url;
  const size_t path = cimd.find('/', 8);
  if (!cimd.empty() && (cimd.rfind("https://", 0) != 0 || !IsServerUrl(cimd) ||
                        path == std::string::npos || path + 1 >= cimd.size())) {
    return "oauth.clientMetadataUrl: must be an https:// URL with a path";
  }
  return "";
}

}  // namespace

Entry ParseEntry(std::string name, const Value& value, const ParseEnv& env,
                 std::vector<std::string>& secrets) {
  Entry entry;
  entry.name = std::move(name);
  entry.refusal = ShapeRefusal(value);
  if (!entry.refusal.empty()) return entry;
  RemoteServer remote;
  entry.refusal = ParseUrl(*FindLast(value, "url"), env, secrets, remote);
  if (entry.refusal.empty()) {
    entry.refusal = ParseHeaders(FindLast(value, "headers"), env, secrets, remote.headers);
  }
  if (entry.refusal.empty()) {
    entry.refusal = ParseOAuth(FindLast(value, "oauth"), env, secrets, remote.oauth);
  }
  for (const Header& h : remote.headers) {
    if (base::EqualsIgnoreCase(h.name, "authorization")) remote.oauth_allowed = false;
  }
  if (entry.refusal.empty()) entry.remote = std::move(remote);
  return entry;
}

}  // namespace mcpgw::config
