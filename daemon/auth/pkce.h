// The random values and encodings of the authorization code flow: PKCE
// verifiers and their S256 challenges (RFC 7636), `state` values, base64 and
// base64url, and the SHA-256 names of the token files. Randomness comes from
// OpenSSL's CSPRNG; everything else is a pure function.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::auth {

// `bytes` random bytes from the CSPRNG, base64url without padding.
std::string RandomToken(size_t bytes);
// A PKCE code verifier: 32 random bytes → 43 characters of [A-Za-z0-9-_].
std::string NewCodeVerifier();
// BASE64URL(SHA256(ASCII(verifier))), RFC 7636 §4.2.
std::string CodeChallengeS256(std::string_view verifier);

std::string Base64(std::string_view bytes);
std::string Base64Url(std::string_view bytes);  // no padding
// Decodes base64url or base64 (padding optional) into *out; false when malformed.
bool DecodeBase64Url(std::string_view text, std::string* out);

// Lower-case hex SHA-256 of `text`.
std::string Sha256Hex(std::string_view text);

}  // namespace mcpgw::auth
