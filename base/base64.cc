#include "base/base64.h"

#include <openssl/evp.h>

namespace mcpgw::base {
namespace {

// EVP_*Block take an int length: longer input goes through in chunks, each a
// whole number of groups (3 bytes in, 4 characters out).
constexpr size_t kChunkBytes = 3u << 14;
constexpr size_t kChunkChars = 4u << 14;

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// Appends the padded standard encoding of `bytes` to `out`.
void AppendBase64(std::string& out, std::string_view bytes) {
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  while (!bytes.empty()) {
    const std::string_view chunk = bytes.substr(0, kChunkBytes);
    bytes.remove_prefix(chunk.size());
    const size_t at = out.size();
    out.resize(at + (chunk.size() + 2) / 3 * 4 + 1);  // EVP_EncodeBlock adds a NUL
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(&out[at]), Bytes(chunk),
                                  static_cast<int>(chunk.size()));
    out.resize(at + static_cast<size_t>(n));
  }
}

}  // namespace

std::string Base64(std::string_view bytes) {
  std::string out;
  AppendBase64(out, bytes);
  return out;
}

std::string Base64Url(std::string_view bytes) {
  std::string out;
  AppendBase64(out, bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

std::optional<std::string> DecodeBase64(std::string_view text) {
  // EVP_DecodeBlock skips surrounding whitespace, takes '=' anywhere for zero
  // bits and a trailing '-' for the end of a PEM line: so the text is checked
  // here and handed over in the standard alphabet, padded exactly.
  const size_t data = text.find_last_not_of('=') + 1;  // 0 when all '=' (or empty)
  const size_t padding = text.size() - data;
  const size_t rest = data % 4;
  if (rest == 1 || (padding != 0 && (rest == 0 || padding != 4 - rest))) return std::nullopt;
  std::string standard(text.substr(0, data));
  bool url_safe = false, classic = false;
  for (char& c : standard) {
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c == '-' || c == '_') {
      url_safe = true;
      c = c == '-' ? '+' : '/';
    } else if (c == '+' || c == '/') {
      classic = true;
    } else if (!alnum) {
      return std::nullopt;
    }
  }
  if (url_safe && classic) return std::nullopt;
  standard.append(rest == 0 ? 0 : 4 - rest, '=');

  std::string out;
  out.reserve(standard.size() / 4 * 3);
  for (std::string_view in = standard; !in.empty();) {
    const std::string_view chunk = in.substr(0, kChunkChars);
    in.remove_prefix(chunk.size());
    const size_t at = out.size();
    out.resize(at + chunk.size() / 4 * 3);
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(&out[at]), Bytes(chunk),
                                  static_cast<int>(chunk.size()));
    if (n < 0) return std::nullopt;  // not reached: the text was checked
    out.resize(at + static_cast<size_t>(n));
  }
  // EVP_DecodeBlock counts the padding as zero bytes.
  out.resize(out.size() - (rest == 0 ? 0 : 4 - rest));
  return out;
}

}  // namespace mcpgw::base
