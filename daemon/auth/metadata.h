// Discovery documents of the MCP authorization spec: protected resource
// metadata (RFC 9728) and authorization server metadata (RFC 8414 / OpenID
// Connect Discovery), parsed from untrusted bytes and checked before any of
// their URLs is used: the resource must be this server, the issuer the one
// looked up (RFC 8414 §3.3), PKCE S256 advertised, endpoints http(s) and
// https unless on loopback or on the MCP server's own origin. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "daemon/auth/url.h"

namespace mcpgw::auth {

// Largest discovery or token document read (bytes).
inline constexpr size_t kMaxDocumentBytes = 256u << 10;

struct ResourceMetadata {
  std::string resource;
  std::vector<std::string> authorization_servers;
  std::optional<std::vector<std::string>> scopes_supported;
};

// The metadata, or an error (invalid_input) when `body` is not a JSON object
// with a string `resource` and at least one authorization server URL.
base::Result<ResourceMetadata> ParseResourceMetadata(std::string_view body);

// Ok when the metadata describes `server` (ResourceCovers); else the error
// says which resource it named instead.
base::Status CheckResource(const ResourceMetadata& prm, const base::Url& server);

struct ServerMetadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string registration_endpoint;  // "" when dynamic registration is not offered
  std::string revocation_endpoint;    // "" when absent
  std::optional<std::vector<std::string>> scopes_supported;
  std::optional<std::vector<std::string>> code_challenge_methods_supported;
  std::optional<std::vector<std::string>> token_endpoint_auth_methods_supported;
  bool client_id_metadata_document_supported = false;
  bool authorization_response_iss_parameter_supported = false;  // RFC 9207

  bool SupportsScope(std::string_view scope) const;
  bool SupportsAuthMethod(std::string_view method) const;  // absent list: RFC 8414 default
};

// The metadata, or an error (invalid_input) when `body` is not a JSON object
// with string `issuer`, `authorization_endpoint` and `token_endpoint`.
base::Result<ServerMetadata> ParseServerMetadata(std::string_view body);

// How an authorization server was found, which decides what its metadata
// must match.
enum class Discovery {
  kIssuer,  // named by protected resource metadata: issuer must equal it
  kLegacy,  // 2025-03-26 server without resource metadata: metadata at the
            // server's origin, whose issuer must be on that origin
};

// Checks issuer, PKCE S256 and endpoint URLs. `expected` is the issuer looked
// up (kIssuer) or the MCP server's origin (kLegacy). An error says what does
// not match.
base::Status CheckServerMetadata(const ServerMetadata& as, Discovery how, std::string_view expected,
                                 const base::Url& mcp_server);

// The endpoints a 2025-03-26 client falls back to when the server's origin
// serves no metadata: /authorize, /token and /register there.
ServerMetadata DefaultServerMetadata(const base::Url& mcp_server);

// Whether the OAuth client may send requests (and secrets) to `url`: http(s),
// and https unless the host is loopback or the MCP server's own origin. An
// error says why not.
base::Status EndpointAllowed(std::string_view url, const base::Url& mcp_server);

}  // namespace mcpgw::auth
