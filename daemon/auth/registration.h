// Who the daemon is to an authorization server (BEHAVIOR.md §9, MCP authorization
// spec "Client Registration Approaches"): a client configured in mcp.json,
// else a Client ID Metadata Document URL when the server supports them, else
// a client registered dynamically (RFC 7591) and kept per issuer. Also the
// token endpoint authentication each identity uses, and the HTTP request shape
// every OAuth exchange is built as. Pure.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "config/config.h"
#include "daemon/auth/metadata.h"

namespace mcpgw::auth {

// One HTTP request of the OAuth client. Header values and the body may hold
// secrets (client secrets, codes, verifiers, refresh tokens): never log them.
struct HttpCall {
  std::string method = "GET";  // "GET" or "POST"
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Never sent twice by the transport (HttpRequest::at_most_once): a token
  // request spends a one-time code or a refresh token the server may rotate,
  // and a second copy would present a spent one (which some servers answer
  // by revoking the whole grant).
  bool at_most_once = false;
};

enum class ClientSource { kConfigured, kMetadataDocument, kRegistered };
std::string_view ClientSourceName(ClientSource source);  // "configured", ...

struct ClientIdentity {
  ClientSource source = ClientSource::kRegistered;
  std::string client_id;
  Secret client_secret;      // empty for a public client
  std::string auth_method;   // "none", "client_secret_basic" or "client_secret_post"
  std::string redirect_uri;  // registered clients: the redirect registered
  std::string issuer;        // registered clients: who registered it
};

// The token endpoint authentication for a client that has (or lacks) a
// secret, given what the server supports.
std::string ChooseAuthMethod(const ServerMetadata& as, bool has_secret);

// What to do about the client identity.
struct IdentityPlan {
  enum Kind { kUse, kRegister, kImpossible } kind = kImpossible;
  ClientIdentity identity;  // kUse
  std::string auth_method;  // kRegister: the method to ask for
  std::string reason;       // kImpossible
};

// `configured` is the entry's oauth object; `stored` a registration kept for
// this issuer (client_id empty when none).
IdentityPlan PlanIdentity(const config::OAuthClient& configured, const ServerMetadata& as,
                          const ClientIdentity& stored);

// The RFC 7591 registration request for a native, loopback-redirect client.
HttpCall BuildRegistration(const ServerMetadata& as, std::string_view redirect_uri,
                           std::string_view auth_method);

// Reads the registration response: the client, or an error (backend) when
// the server refused or answered something unusable.
base::Result<ClientIdentity> ParseRegistration(int http_status, std::string_view body,
                                               std::string_view requested_method,
                                               std::string_view redirect_uri,
                                               std::string_view issuer);

// Adds client authentication to a token endpoint request: HTTP Basic
// (RFC 6749 §2.3.1: id and secret form-encoded), or client_id (and
// client_secret) in the form body.
void AuthenticateClient(const ClientIdentity& client, HttpCall* call, std::string* form);

}  // namespace mcpgw::auth
