// The authorization code grant with PKCE (OAuth 2.1 §4.1) and refresh
// (OAuth 2.1 §4.3): the authorization URL the user opens, the token requests, and the
// token endpoint's answer read into Tokens. Token values travel as Secret.
// Pure: time comes in as Unix seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "config/secret.h"
#include "daemon/auth/registration.h"

namespace mcpgw::auth {

// What one authorization yields, as kept on disk and shown (without the
// secrets) in status.
struct Tokens {
  Secret access_token;
  Secret refresh_token;               // empty when the server issued none
  std::string scope;                  // granted; else what was asked for
  std::optional<int64_t> expires_at;  // Unix seconds; nullopt: not said
  int64_t obtained_at = 0;            // Unix seconds
  std::string subject;                // "sub" of the ID token or a JWT access token
};

struct AuthorizationRequest {
  std::string authorization_endpoint;
  std::string client_id;
  std::string redirect_uri;
  std::string code_challenge;
  std::string state;
  std::string scope;  // "" omits the parameter
  std::string resource;
};

// The authorization URL. A scope with offline_access also carries
// prompt=consent (OpenID Connect Core §11), so that the refresh token is
// issued.
std::string BuildAuthorizationUrl(const AuthorizationRequest& request);

// grant_type=authorization_code with the PKCE verifier and the resource.
HttpCall BuildCodeExchange(std::string_view token_endpoint, const ClientIdentity& client,
                           std::string_view code, std::string_view verifier,
                           std::string_view redirect_uri, std::string_view resource);
// grant_type=refresh_token with the resource.
HttpCall BuildRefresh(std::string_view token_endpoint, const ClientIdentity& client,
                      const Secret& refresh_token, std::string_view resource);

// Reads a token endpoint response. `requested_scope` stands in for a granted
// scope the server does not name; on refresh, `previous` supplies a refresh
// token the server did not rotate. An error says what went wrong; its kind
// is kDenied when the grant (code or refresh token) is dead (invalid_grant:
// authorize anew), kBackend for any other refusal or unusable answer.
base::Result<Tokens> ParseTokenResponse(int http_status, std::string_view content_type,
                                        std::string_view body, int64_t now_unix,
                                        std::string_view requested_scope, const Tokens* previous);

// The "sub" claim of a JWT's payload, cleaned for display; "" when the value
// is not a JWT or has no string subject. The signature is not checked: the
// value only labels status output.
std::string JwtSubject(std::string_view jwt);

}  // namespace mcpgw::auth
