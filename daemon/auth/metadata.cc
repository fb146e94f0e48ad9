#include "daemon/auth/metadata.h"

#include <algorithm>

#include <rapidjson/document.h>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/url.h"

namespace mcpgw::auth {
namespace {

constexpr int kMaxDepth = 16;

base::Status ParseObject(std::string_view body, std::string_view what, rapidjson::Document* doc) {
  if (!base::ParseBoundedJson(body, {kMaxDocumentBytes, kMaxDepth}, *doc).ok()) {
    return base::InvalidInput(std::string(what) + " is not valid JSON");
  }
  if (!doc->IsObject()) return base::InvalidInput(std::string(what) + " is not a JSON object");
  return base::Status();
}

std::string String(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::optional<std::vector<std::string>> Strings(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsArray()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& v : it->value.GetArray()) {
    if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
  }
  return out;
}

bool Bool(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  return it != obj.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

bool Contains(const std::optional<std::vector<std::string>>& list, std::string_view value) {
  return list && std::find(list->begin(), list->end(), value) != list->end();
}

std::string Quoted(std::string_view untrusted) {
  return "\"" + base::CleanServerText(untrusted, 200) + "\"";
}

std::string WithoutTrailingSlash(std::string_view s) {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

base::Result<ResourceMetadata> ParseResourceMetadata(std::string_view body) {
  rapidjson::Document doc;
  if (base::Status parsed = ParseObject(body, "protected resource metadata", &doc); !parsed.ok()) {
    return parsed;
  }
  ResourceMetadata out;
  out.resource = String(doc, "resource");
  if (out.resource.empty()) {
    return base::InvalidInput("protected resource metadata has no \"resource\"");
  }
  for (std::string& s :
       Strings(doc, "authorization_servers").value_or(std::vector<std::string>{})) {
    if (base::ParseUrl(s)) out.authorization_servers.push_back(std::move(s));
  }
  if (out.authorization_servers.empty()) {
    return base::InvalidInput("protected resource metadata names no authorization server");
  }
  out.scopes_supported = Strings(doc, "scopes_supported");
  return out;
}

base::Status CheckResource(const ResourceMetadata& prm, const base::Url& server) {
  const std::optional<base::Url> resource = base::ParseUrl(prm.resource);
  if (!resource || !ResourceCovers(*resource, server)) {
    return base::InvalidInput("protected resource metadata is for " + Quoted(prm.resource) +
                              ", not for " + CanonicalResource(server));
  }
  return base::Status();
}

bool ServerMetadata::SupportsScope(std::string_view scope) const {
  return Contains(scopes_supported, scope);
}

bool ServerMetadata::SupportsAuthMethod(std::string_view method) const {
  if (!token_endpoint_auth_methods_supported) return method == "client_secret_basic";
  return Contains(token_endpoint_auth_methods_supported, method);
}

base::Result<ServerMetadata> ParseServerMetadata(std::string_view body) {
  rapidjson::Document doc;
  if (base::Status parsed = ParseObject(body, "authorization server metadata", &doc);
      !parsed.ok()) {
    return parsed;
  }
  ServerMetadata out;
  out.issuer = String(doc, "issuer");
  out.authorization_endpoint = String(doc, "authorization_endpoint");
  out.token_endpoint = String(doc, "token_endpoint");
  out.registration_endpoint = String(doc, "registration_endpoint");
  out.revocation_endpoint = String(doc, "revocation_endpoint");
  out.scopes_supported = Strings(doc, "scopes_supported");
  out.code_challenge_methods_supported = Strings(doc, "code_challenge_methods_supported");
  out.token_endpoint_auth_methods_supported = Strings(doc, "token_endpoint_auth_methods_supported");
  out.client_id_metadata_document_supported = Bool(doc, "client_id_metadata_document_supported");
  out.authorization_response_iss_parameter_supported =
      Bool(doc, "authorization_response_iss_parameter_supported");
  for (const char* key : {"issuer", "authorization_endpoint", "token_endpoint"}) {
    if (String(doc, key).empty()) {
      return base::InvalidInput(std::string("authorization server metadata has no \"") + key +
                                "\"");
    }
  }
  return out;
}

base::Status EndpointAllowed(std::string_view url, const base::Url& mcp_server) {
  const std::optional<base::Url> parsed = base::ParseUrl(url);
  if (!parsed) return base::InvalidInput(Quoted(url) + " is not an http(s) URL");
  if (parsed->scheme == "https" || IsLoopbackHost(parsed->host) ||
      parsed->Origin() == mcp_server.Origin()) {
    return base::Status();
  }
  return base::InvalidInput(Quoted(url) + " is not https");
}

base::Status CheckServerMetadata(const ServerMetadata& as, Discovery how, std::string_view expected,
                                 const base::Url& mcp_server) {
  if (how == Discovery::kIssuer) {
    if (WithoutTrailingSlash(as.issuer) != WithoutTrailingSlash(expected)) {
      return base::InvalidInput("authorization server metadata names issuer " + Quoted(as.issuer) +
                                ", not the " + Quoted(expected) + " it was fetched for");
    }
  } else {
    const std::optional<base::Url> issuer = base::ParseUrl(as.issuer);
    if (!issuer || issuer->Origin() != mcp_server.Origin()) {
      return base::InvalidInput("authorization server metadata names issuer " + Quoted(as.issuer) +
                                ", not one on " + mcp_server.Origin());
    }
  }
  if (!Contains(as.code_challenge_methods_supported, "S256")) {
    return base::InvalidInput(
        "the authorization server does not support PKCE with S256 "
        "(code_challenge_methods_supported)");
  }
  for (const std::string* url : {&as.authorization_endpoint, &as.token_endpoint,
                                 &as.registration_endpoint, &as.revocation_endpoint}) {
    if (url->empty()) continue;
    if (base::Status allowed = EndpointAllowed(*url, mcp_server); !allowed.ok()) {
      return std::move(allowed).Prefixed("authorization server metadata: endpoint ");
    }
  }
  return base::Status();
}

ServerMetadata DefaultServerMetadata(const base::Url& mcp_server) {
  ServerMetadata as;
  const std::string origin = mcp_server.Origin();
  as.issuer = origin;
  as.authorization_endpoint = origin + "/authorize";
  as.token_endpoint = origin + "/token";
  as.registration_endpoint = origin + "/register";
  as.code_challenge_methods_supported = std::vector<std::string>{"S256"};
  return as;
}

}  // namespace mcpgw::auth
