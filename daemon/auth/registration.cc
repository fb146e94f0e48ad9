#include "daemon/auth/registration.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/base64.h"
#include "base/bounded_json.h"
#include "base/clean_text.h"

namespace mcpgw::auth {
namespace {

constexpr std::string_view kClientName = "mcpgw";

base::Status Refused(std::string message) {
  return base::Status(base::ErrorKind::kBackend, std::move(message));
}

std::string ErrorFromBody(std::string_view body) {
  rapidjson::Document doc;
  if (!base::ParseBoundedJson(body, {kMaxDocumentBytes, 16}, doc).ok() || !doc.IsObject()) {
    return "";
  }
  std::string out;
  auto error = doc.FindMember("error");
  if (error != doc.MemberEnd() && error->value.IsString()) {
    out = base::CleanServerText(error->value.GetString(), 100);
  }
  auto desc = doc.FindMember("error_description");
  if (desc != doc.MemberEnd() && desc->value.IsString()) {
    std::string d = base::CleanServerText(desc->value.GetString(), 200);
    if (!d.empty()) out += (out.empty() ? "" : ": ") + d;
  }
  return out;
}

}  // namespace

std::string_view ClientSourceName(ClientSource source) {
  switch (source) {
    case ClientSource::kConfigured:
      return "configured";
    case ClientSource::kMetadataDocument:
      return "metadata document";
    case ClientSource::kRegistered:
      return "registered";
  }
  return "registered";
}

std::string ChooseAuthMethod(const ServerMetadata& as, bool has_secret) {
  if (!has_secret) return "none";
  if (as.SupportsAuthMethod("client_secret_basic")) return "client_secret_basic";
  if (as.SupportsAuthMethod("client_secret_post")) return "client_secret_post";
  return "client_secret_basic";
}

IdentityPlan PlanIdentity(const config::OAuthClient& configured, const ServerMetadata& as,
                          const ClientIdentity& stored) {
  IdentityPlan plan;
  if (!configured.client_id.empty()) {
    plan.kind = IdentityPlan::kUse;
    plan.identity.source = ClientSource::kConfigured;
    plan.identity.client_id = configured.client_id;
    plan.identity.client_secret = configured.client_secret;
    plan.identity.auth_method = ChooseAuthMethod(as, !configured.client_secret.empty());
    return plan;
  }
  if (!configured.client_metadata_url.empty() && as.client_id_metadata_document_supported) {
    plan.kind = IdentityPlan::kUse;
    plan.identity.source = ClientSource::kMetadataDocument;
    plan.identity.client_id = configured.client_metadata_url;
    plan.identity.auth_method = "none";
    return plan;
  }
  if (!stored.client_id.empty()) {
    plan.kind = IdentityPlan::kUse;
    plan.identity = stored;
    return plan;
  }
  if (!as.registration_endpoint.empty()) {
    plan.kind = IdentityPlan::kRegister;
    // A native client keeps no secret worth the name; ask for none when the
    // server takes it, else for what it supports.
    plan.auth_method = as.SupportsAuthMethod("none") ? "none" : ChooseAuthMethod(as, true);
    return plan;
  }
  plan.kind = IdentityPlan::kImpossible;
  plan.reason =
      "the authorization server offers no dynamic client registration"
      " and mcp.json names no client for it (set oauth.clientId";
  plan.reason += as.client_id_metadata_document_supported ? " or oauth.clientMetadataUrl)" : ")";
  return plan;
}

HttpCall BuildRegistration(const ServerMetadata& as, std::string_view redirect_uri,
                           std::string_view auth_method) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  str("client_name");
  str(kClientName);
  str("redirect_uris");
  w.StartArray();
  str(redirect_uri);
  w.EndArray();
  str("grant_types");
  w.StartArray();
  str("authorization_code");
  str("refresh_token");
  w.EndArray();
  str("response_types");
  w.StartArray();
  str("code");
  w.EndArray();
  str("token_endpoint_auth_method");
  str(auth_method);
  str("application_type");
  str("native");
  w.EndObject();
  HttpCall call;
  call.method = "POST";
  call.url = as.registration_endpoint;
  call.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  call.body = buf.GetString();
  return call;
}

base::Result<ClientIdentity> ParseRegistration(int http_status, std::string_view body,
                                               std::string_view requested_method,
                                               std::string_view redirect_uri,
                                               std::string_view issuer) {
  if (http_status < 200 || http_status >= 300) {
    std::string detail = ErrorFromBody(body);
    return Refused("client registration refused (HTTP " + std::to_string(http_status) + ")" +
                   (detail.empty() ? "" : ": " + detail));
  }
  rapidjson::Document doc;
  if (!base::ParseBoundedJson(body, {kMaxDocumentBytes, 16}, doc).ok() || !doc.IsObject()) {
    return Refused("client registration answered something that is not a JSON object");
  }
  auto id = doc.FindMember("client_id");
  if (id == doc.MemberEnd() || !id->value.IsString() || id->value.GetStringLength() == 0) {
    return Refused("client registration answered no client_id");
  }
  ClientIdentity out;
  out.source = ClientSource::kRegistered;
  out.client_id.assign(id->value.GetString(), id->value.GetStringLength());
  auto secret = doc.FindMember("client_secret");
  if (secret != doc.MemberEnd() && secret->value.IsString()) {
    out.client_secret =
        Secret(std::string(secret->value.GetString(), secret->value.GetStringLength()));
  }
  std::string method(requested_method);
  auto m = doc.FindMember("token_endpoint_auth_method");
  const bool named = m != doc.MemberEnd() && m->value.IsString();
  if (named) method = m->value.GetString();
  // A server that issued no secret and named no method made a public client.
  if (!named && out.client_secret.empty()) method = "none";
  if (method != "none" && method != "client_secret_basic" && method != "client_secret_post") {
    return Refused("client registration chose token endpoint authentication \"" +
                   base::CleanServerText(method, 64) + "\", which mcpgw does not support");
  }
  if (method != "none" && out.client_secret.empty()) {
    return Refused("client registration chose " + method + " but answered no client_secret");
  }
  out.auth_method = method;
  out.redirect_uri = std::string(redirect_uri);
  out.issuer = std::string(issuer);
  return out;
}

void AuthenticateClient(const ClientIdentity& client, HttpCall* call, std::string* form) {
  auto add = [&](std::string_view name, std::string_view value) {
    if (!form->empty()) *form += '&';
    *form += FormEncode(name) + "=" + FormEncode(value);
  };
  if (client.auth_method == "client_secret_basic" && !client.client_secret.empty()) {
    const std::string pair =
        FormEncode(client.client_id) + ":" + FormEncode(client.client_secret.Reveal());
    call->headers.emplace_back("Authorization", "Basic " + base::Base64(pair));
    return;
  }
  add("client_id", client.client_id);
  if (client.auth_method == "client_secret_post" && !client.client_secret.empty()) {
    add("client_secret", client.client_secret.Reveal());
  }
}

}  // namespace mcpgw::auth
