#include "base/url.h"

#include <curl/curl.h>

#include <algorithm>
#include <memory>

#include "base/text.h"

namespace mcpgw::base {
namespace {

using Handle = std::unique_ptr<CURLU, decltype(&curl_url_cleanup)>;

std::optional<std::string> Part(CURLU* url, CURLUPart part) {
  char* text = nullptr;
  if (curl_url_get(url, part, &text, CURLU_NO_DEFAULT_PORT) != CURLUE_OK) return std::nullopt;
  std::string out(text);
  curl_free(text);
  return out;
}

// libcurl takes "http:/x" and "http:///x" for http://x/; a url written that
// way is a typo, not a server's address, so the form is checked first.
bool WrittenAsHttpUrl(std::string_view text) {
  for (const unsigned char c : text) {
    if (c <= 0x20 || c == 0x7F) return false;
  }
  const size_t sep = text.find("://");
  if (sep == std::string_view::npos || sep + 3 >= text.size() || text[sep + 3] == '/') return false;
  const std::string_view scheme = text.substr(0, sep);
  return EqualsIgnoreCase(scheme, "http") || EqualsIgnoreCase(scheme, "https");
}

// Where the authority of `text` lies, lexically: [begin, end) after "://" up
// to the first '/', '?' or '#'; `at` is its last '@' (npos when none), `begin`
// npos when `text` has no "://".
struct Authority {
  size_t begin = std::string_view::npos;
  size_t end = 0;
  size_t at = std::string_view::npos;
};

Authority FindAuthority(std::string_view text) {
  Authority a;
  const size_t sep = text.find("://");
  if (sep == std::string_view::npos) return a;
  a.begin = sep + 3;
  a.end = std::min(text.find_first_of("/?#", a.begin), text.size());
  const size_t at = text.substr(a.begin, a.end - a.begin).rfind('@');
  if (at != std::string_view::npos) a.at = a.begin + at;
  return a;
}

}  // namespace

std::string Url::Origin() const {
  std::string out = scheme + "://" + host;
  if (!port.empty()) out += ":" + port;
  return out;
}

std::optional<Url> ParseUrl(std::string_view text) {
  if (!WrittenAsHttpUrl(text)) return std::nullopt;
  Handle handle(curl_url(), &curl_url_cleanup);
  if (!handle ||
      curl_url_set(handle.get(), CURLUPART_URL, std::string(text).c_str(), 0) != CURLUE_OK) {
    return std::nullopt;
  }
  CURLU* u = handle.get();
  Url url;
  url.scheme = Part(u, CURLUPART_SCHEME).value_or("");
  std::optional<std::string> host = Part(u, CURLUPART_HOST);
  if (!host || host->empty()) return std::nullopt;
  url.host = ToLowerAscii(*host);
  std::optional<std::string> zone = Part(u, CURLUPART_ZONEID);
  if (zone && url.host.back() == ']') url.host.insert(url.host.size() - 1, "%25" + *zone);
  url.port = Part(u, CURLUPART_PORT).value_or("");
  if (url.port == "0") return std::nullopt;  // libcurl allows it; nothing listens there
  std::optional<std::string> user = Part(u, CURLUPART_USER);
  std::optional<std::string> password = Part(u, CURLUPART_PASSWORD);
  url.userinfo = user.value_or("");
  if (password) url.userinfo += ":" + *password;
  url.path = Part(u, CURLUPART_PATH).value_or("/");
  url.query = Part(u, CURLUPART_QUERY).value_or("");
  return url;
}

std::string ReplaceUserinfo(std::string_view text, std::string_view replacement) {
  const Authority a = FindAuthority(text);
  if (a.begin == std::string_view::npos || a.at == std::string_view::npos || a.at == a.begin) {
    return std::string(text);
  }
  std::string out(text.substr(0, a.begin));
  out += replacement;
  out += text.substr(a.at);
  return out;
}

std::string_view HostAsWritten(std::string_view text) {
  const Authority a = FindAuthority(text);
  if (a.begin == std::string_view::npos) return "";
  const size_t start = a.at == std::string_view::npos ? a.begin : a.at + 1;
  const std::string_view hostport = text.substr(start, a.end - start);
  if (!hostport.empty() && hostport.front() == '[') {
    const size_t close = hostport.find(']');
    return close == std::string_view::npos ? "" : hostport.substr(1, close - 1);
  }
  return hostport.substr(0, hostport.find(':'));
}

}  // namespace mcpgw::base
