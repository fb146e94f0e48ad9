// Base64 (RFC 4648 §4) and base64url (RFC 4648 §5), built on OpenSSL's
// EVP_EncodeBlock/EVP_DecodeBlock with the url-safe alphabet and the padding
// rules handled here. Used by OAuth (PKCE values and `state` in base64url
// without padding, HTTP Basic credentials, JWT payloads) and by the
// Mcp-Param-* headers' Base64 sentinel. Pure functions; in the
// mcpgw_base_crypto target (links libcrypto), not in mcpgw_base.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcpgw::base {

// Standard alphabet, padded: "user:pass" → "dXNlcjpwYXNz", "a" → "YQ==".
std::string Base64(std::string_view bytes);

// Url-safe alphabet ('-' and '_'), no padding: what PKCE (RFC 7636) and JWTs
// (RFC 7515) use.
std::string Base64Url(std::string_view bytes);

// Decodes either alphabet, with or without padding. Anything else is refused:
// whitespace, other characters, '=' that is not the exact padding of the last
// group, a length no encoding has (4n+1), a mix of the two alphabets.
std::optional<std::string> DecodeBase64(std::string_view text);

}  // namespace mcpgw::base
