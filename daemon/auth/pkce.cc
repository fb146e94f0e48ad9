#include "daemon/auth/pkce.h"

#include <openssl/rand.h>

#include <cstdlib>
#include <string>

#include "base/base64.h"
#include "base/sha256.h"

namespace mcpgw::auth {

std::string RandomToken(size_t bytes) {
  std::string buf(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(buf.data()), static_cast<int>(buf.size())) != 1) {
    std::abort();  // no randomness: nothing safe to hand out
  }
  return base::Base64Url(buf);
}

std::string NewCodeVerifier() { return RandomToken(32); }

std::string CodeChallengeS256(std::string_view verifier) {
  return base::Base64Url(base::Sha256(verifier));
}

}  // namespace mcpgw::auth
