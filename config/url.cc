#include "config/url.h"

#include "base/text.h"
#include "config/headers.h"
#include "config/secret.h"

namespace mcpgw::config {
namespace {

bool HasSpaceOrControl(std::string_view text) {
  for (unsigned char c : text) {
    if (c <= 0x20 || c == 0x7f) return true;
  }
  return false;
}

bool IsPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  unsigned value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return value <= 65535;
}

// host[:port], where host may be a bracketed IPv6 literal.
bool IsHostPort(std::string_view hostport) {
  if (!hostport.empty() && hostport.front() == '[') {
    size_t close = hostport.find(']');
    if (close == std::string_view::npos || close < 2) return false;
    std::string_view rest = hostport.substr(close + 1);
    return rest.empty() || (rest.front() == ':' && IsPort(rest.substr(1)));
  }
  size_t colon = hostport.find(':');
  if (colon == 0 || hostport.empty()) return false;
  if (colon == std::string_view::npos) return true;
  return IsPort(hostport.substr(colon + 1));
}

}  // namespace

std::string_view UrlUserinfo(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return "";
  std::string_view rest = url.substr(sep + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  size_t at = authority.rfind('@');
  return at == std::string_view::npos ? "" : authority.substr(0, at);
}

std::string RedactUserinfo(std::string_view url) {
  std::string_view userinfo = UrlUserinfo(url);
  if (userinfo.empty()) return std::string(url);
  const size_t start = static_cast<size_t>(userinfo.data() - url.data());
  std::string out(url.substr(0, start));
  out += Secret::kRedacted;
  out += url.substr(start + userinfo.size());
  return out;
}

bool IsServerUrl(std::string_view url) {
  if (HasSpaceOrControl(url)) return false;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return false;
  std::string_view scheme = url.substr(0, sep);
  if (!base::EqualsIgnoreCase(scheme, "http") && !base::EqualsIgnoreCase(scheme, "https"))
    return false;
  std::string_view rest = url.substr(sep + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  size_t at = authority.rfind('@');
  std::string_view hostport = at == std::string_view::npos ? authority : authority.substr(at + 1);
  return IsHostPort(hostport);
}

}  // namespace mcpgw::config
