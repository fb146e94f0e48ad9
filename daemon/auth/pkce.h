// The random values of the authorization code flow: PKCE verifiers and their
// S256 challenges (RFC 7636) and `state` values. Randomness comes from
// OpenSSL's CSPRNG; the encodings and the digest are base/'s (base64.h,
// sha256.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mcpgw::auth {

// `bytes` random bytes from the CSPRNG, base64url without padding.
std::string RandomToken(size_t bytes);
// A PKCE code verifier: 32 random bytes → 43 characters of [A-Za-z0-9-_].
std::string NewCodeVerifier();
// BASE64URL(SHA256(ASCII(verifier))), RFC 7636 §4.2.
std::string CodeChallengeS256(std::string_view verifier);

}  // namespace mcpgw::auth
