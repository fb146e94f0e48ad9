#include "base/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace mcpgw::base {

std::string Sha256(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1) {
    std::abort();  // only when libcrypto cannot allocate: no name or digest is safe to invent
  }
  return std::string(reinterpret_cast<const char*>(md), len);
}

std::string Sha256Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(64);
  for (const char c : Sha256(bytes)) {
    const auto b = static_cast<unsigned char>(c);
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return hex;
}

}  // namespace mcpgw::base
