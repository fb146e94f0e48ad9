// SHA-256 through OpenSSL's EVP digest: the PKCE S256 challenge (raw bytes,
// then base64url), token file names and the call log's request digests (lower-
// case hex). Pure functions; in the mcpgw_base_crypto target (links
// libcrypto), not in mcpgw_base.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::base {

// The 32-byte digest of `bytes`.
std::string Sha256(std::string_view bytes);

// The digest as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view bytes);

}  // namespace mcpgw::base
