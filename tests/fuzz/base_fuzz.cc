// libFuzzer target for base/'s library-backed primitives on untrusted text:
// the url parser (libcurl's CURLU) with the lexical display helpers beside
// it, and the Base64 codec (OpenSSL's) with the checks wrapped around it.
// Nothing may crash, and:
// - an accepted url is http(s) with a lower-case host (but its zone id), a port in 1..65535 or
//   none, a path; its origin parses to itself; the userinfo the display
//   helpers find is the one libcurl found (so redaction hides exactly it);
// - every byte string survives Base64 and base64url; text that decodes
//   encodes back to text that decodes to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "base/base64.h"
#include "base/url.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

void CheckUrl(std::string_view text) {
  const std::optional<mcpgw::base::Url> url = mcpgw::base::ParseUrl(text);
  if (!url) return;
  FUZZ_CHECK(url->scheme == "http" || url->scheme == "https");
  FUZZ_CHECK(!url->host.empty());
  // Lower case up to an IPv6 zone id, which names an interface as written.
  for (char c : url->host.substr(0, url->host.find('%'))) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
  if (!url->port.empty()) {
    const long port = std::strtol(url->port.c_str(), nullptr, 10);
    FUZZ_CHECK(port >= 1 && port <= 65535 && std::to_string(port) == url->port);
  }
  FUZZ_CHECK(!url->path.empty() && url->path.front() == '/');
  const std::optional<mcpgw::base::Url> origin = mcpgw::base::ParseUrl(url->Origin());
  FUZZ_CHECK(origin && origin->Origin() == url->Origin());
  // The display helpers' userinfo is libcurl's: replacing it by itself
  // changes nothing, replacing it by a marker changes the text.
  if (url->userinfo.empty()) {
    FUZZ_CHECK(mcpgw::base::ReplaceUserinfo(text, "\x01") == text);
  } else {
    FUZZ_CHECK(mcpgw::base::ReplaceUserinfo(text, url->userinfo) == text);
    FUZZ_CHECK(mcpgw::base::ReplaceUserinfo(text, "\x01") != text);
  }
}

void CheckBase64(std::string_view bytes) {
  FUZZ_CHECK(mcpgw::base::DecodeBase64(mcpgw::base::Base64(bytes)) == bytes);
  FUZZ_CHECK(mcpgw::base::DecodeBase64(mcpgw::base::Base64Url(bytes)) == bytes);
  if (const std::optional<std::string> decoded = mcpgw::base::DecodeBase64(bytes)) {
    FUZZ_CHECK(decoded->size() <= bytes.size() * 3 / 4);
    FUZZ_CHECK(mcpgw::base::DecodeBase64(mcpgw::base::Base64(*decoded)) == decoded);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckUrl(input);
  CheckBase64(input);
  return 0;
}
