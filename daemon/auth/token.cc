#include "daemon/auth/token.h"

#include <cmath>

#include <rapidjson/document.h>

#include "base/base64.h"
#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/text.h"
#include "daemon/auth/challenge.h"

namespace mcpgw::auth {
namespace {

// Longest lifetime believed (a year): a bigger expires_in is treated as this.
constexpr int64_t kMaxLifetimeS = 365LL * 24 * 3600;

base::Status Refused(std::string message) {
  return base::Status(base::ErrorKind::kBackend, std::move(message));
}

bool IsJsonMedia(std::string_view media) {
  return media == "application/json" ||
         (media.size() > 5 && media.compare(media.size() - 5, 5, "+json") == 0);
}

HttpCall TokenCall(std::string_view token_endpoint, const ClientIdentity& client,
                   std::string form) {
  HttpCall call;
  call.method = "POST";
  call.url = std::string(token_endpoint);
  call.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                  {"Accept", "application/json"}};
  AuthenticateClient(client, &call, &form);
  call.body = std::move(form);
  call.at_most_once = true;
  return call;
}

std::optional<int64_t> ExpiresIn(const rapidjson::Value& v) {
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsNumber()) {
    const double d = v.GetDouble();
    if (std::isfinite(d) && d >= 0 && d < 1e12) return static_cast<int64_t>(d);
    return std::nullopt;
  }
  if (v.IsString()) {  // some servers send "3600"
    const std::string_view s(v.GetString(), v.GetStringLength());
    if (s.empty() || s.size() > 12) return std::nullopt;
    int64_t n = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + (c - '0');
    }
    return n;
  }
  return std::nullopt;
}

std::string Str(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

std::string BuildAuthorizationUrl(const AuthorizationRequest& r) {
  Params params = {{"response_type", "code"},         {"client_id", r.client_id},
                   {"redirect_uri", r.redirect_uri},  {"code_challenge", r.code_challenge},
                   {"code_challenge_method", "S256"}, {"state", r.state}};
  if (!r.scope.empty()) params.emplace_back("scope", r.scope);
  // OpenID Connect Core §11 lets a server ignore offline_access unless the
  // user is asked for consent, and widely used servers do: no refresh token,
  // and every expiry would need the browser again.
  if (ScopesInclude(r.scope, "offline_access")) params.emplace_back("prompt", "consent");
  params.emplace_back("resource", r.resource);
  return AppendParams(r.authorization_endpoint, params);
}

HttpCall BuildCodeExchange(std::string_view token_endpoint, const ClientIdentity& client,
                           std::string_view code, std::string_view verifier,
                           std::string_view redirect_uri, std::string_view resource) {
  std::string form = EncodeParams({{"grant_type", "authorization_code"},
                                   {"code", std::string(code)},
                                   {"code_verifier", std::string(verifier)},
                                   {"redirect_uri", std::string(redirect_uri)},
                                   {"resource", std::string(resource)}});
  return TokenCall(token_endpoint, client, std::move(form));
}

HttpCall BuildRefresh(std::string_view token_endpoint, const ClientIdentity& client,
                      const Secret& refresh_token, std::string_view resource) {
  std::string form = EncodeParams({{"grant_type", "refresh_token"},
                                   {"refresh_token", refresh_token.Reveal()},
                                   {"resource", std::string(resource)}});
  return TokenCall(token_endpoint, client, std::move(form));
}

base::Result<Tokens> ParseTokenResponse(int http_status, std::string_view content_type,
                                        std::string_view body, int64_t now_unix,
                                        std::string_view requested_scope, const Tokens* previous) {
  const std::string media = base::MediaType(content_type);
  rapidjson::Document doc;
  const bool json = IsJsonMedia(media) &&
                    base::ParseBoundedJson(body, {kMaxDocumentBytes, 16}, doc).ok() &&
                    doc.IsObject();
  if (http_status < 200 || http_status >= 300) {
    const std::string code = json ? base::CleanServerText(Str(doc, "error"), 64) : "";
    if (code.empty()) {
      return Refused("token endpoint answered HTTP " + std::to_string(http_status));
    }
    const std::string desc = base::CleanServerText(Str(doc, "error_description"), 200);
    std::string error = "token endpoint refused: " + code + (desc.empty() ? "" : ": " + desc);
    if (code == "invalid_grant") return base::Status(base::ErrorKind::kDenied, std::move(error));
    return Refused(std::move(error));
  }
  if (!json) {
    return Refused("token endpoint answered " +
                   (media.empty() ? std::string("no content type") : media) +
                   ", not a JSON object (HTTP " + std::to_string(http_status) + ")");
  }
  const std::string access = Str(doc, "access_token");
  if (access.empty()) return Refused("token endpoint answered no access_token");
  const std::string type = base::ToLowerAscii(Str(doc, "token_type"));
  if (!type.empty() && type != "bearer") {
    return Refused("token endpoint issued a \"" + base::CleanServerText(type, 32) +
                   "\" token; mcpgw uses Bearer tokens only");
  }
  Tokens out;
  out.access_token = Secret(access);
  out.obtained_at = now_unix;
  std::string refresh = Str(doc, "refresh_token");
  if (!refresh.empty()) {
    out.refresh_token = Secret(std::move(refresh));
  } else if (previous) {
    out.refresh_token = previous->refresh_token;  // not rotated: keep the old one
  }
  out.scope = Str(doc, "scope");
  if (out.scope.empty()) out.scope = previous ? previous->scope : std::string(requested_scope);
  auto exp = doc.FindMember("expires_in");
  if (exp != doc.MemberEnd()) {
    if (std::optional<int64_t> s = ExpiresIn(exp->value)) {
      out.expires_at = now_unix + std::min(*s, kMaxLifetimeS);
    }
  }
  out.subject = JwtSubject(Str(doc, "id_token"));
  if (out.subject.empty()) out.subject = JwtSubject(access);
  if (out.subject.empty() && previous) out.subject = previous->subject;
  return out;
}

std::string JwtSubject(std::string_view jwt) {
  const size_t a = jwt.find('.');
  if (a == std::string_view::npos) return "";
  const size_t b = jwt.find('.', a + 1);
  if (b == std::string_view::npos || jwt.find('.', b + 1) != std::string_view::npos) return "";
  const std::optional<std::string> payload = base::DecodeBase64(jwt.substr(a + 1, b - a - 1));
  if (!payload) return "";
  rapidjson::Document doc;
  if (!base::ParseBoundedJson(*payload, {64u << 10, 16}, doc).ok() || !doc.IsObject()) return "";
  return base::CleanServerText(Str(doc, "sub"), 128);
}

}  // namespace mcpgw::auth
