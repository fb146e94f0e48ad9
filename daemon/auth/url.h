// URL rules of the OAuth client (BEHAVIOR.md §9), over urls parsed by
// base::ParseUrl (base/url.h): the canonical resource URI of RFC 8707 and
// which resource covers which server, the well-known discovery URLs of RFC
// 9728 and RFC 8414 in the order the MCP authorization spec gives, loopback
// hosts, and application/x-www-form-urlencoded encoding and decoding. Pure
// functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/url.h"

namespace mcpgw::auth {

// True for localhost, 127.0.0.0/8 and [::1].
bool IsLoopbackHost(std::string_view host);

// The canonical URI of an MCP server (RFC 8707 §2, MCP authorization spec):
// scheme and host lower case, no default port, no query, no fragment, no
// trailing slash. The query is dropped on purpose: servers that take an API
// key in the query would otherwise hand it to the authorization server.
std::string CanonicalResource(const base::Url& server);

// Whether protected resource metadata naming `resource` may describe the
// server at `server`: same origin, and the resource's path is the server's
// path or a whole-segment prefix of it (the root well-known document names
// the origin alone).
bool ResourceCovers(const base::Url& resource, const base::Url& server);

// RFC 9728 §3.1 candidates for the server's protected resource metadata, in
// the spec's order: path-based (only when the server URL has a path), root.
std::vector<std::string> ProtectedResourceMetadataUrls(const base::Url& server);

// Authorization server metadata candidates for `issuer` in the order of the
// MCP authorization spec: with a path, OAuth path insertion, OpenID Connect
// path insertion, OpenID Connect path appending; without, OAuth then OpenID.
std::vector<std::string> AuthorizationServerMetadataUrls(const base::Url& issuer);

// Percent-encodes every byte but RFC 3986 unreserved ones.
std::string FormEncode(std::string_view value);
// Decodes %XX and '+' (a space). Malformed escapes are kept as they are.
std::string FormDecode(std::string_view value);

using Params = std::vector<std::pair<std::string, std::string>>;
// "a=1&b=2" from pairs, each side form-encoded.
std::string EncodeParams(const Params& params);
// Splits and decodes a query string; empty pieces are skipped.
Params DecodeParams(std::string_view query);
// The value of the first pair named `name`, or nullopt.
std::optional<std::string> FindParam(const Params& params, std::string_view name);
// `url` with the pairs appended to its query string.
std::string AppendParams(std::string_view url, const Params& params);

}  // namespace mcpgw::auth
