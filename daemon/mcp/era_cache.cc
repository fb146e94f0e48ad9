#include "daemon/mcp/era_cache.h"

namespace mcpgw::mcp {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string OriginOf(std::string_view url) {
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return "";
  const std::string scheme = Lower(url.substr(0, sep));
  std::string_view authority = url.substr(sep + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  if (authority.empty()) return "";
  // The port follows the last colon after any bracketed IPv6 literal.
  const size_t bracket = authority.rfind(']');
  const size_t colon = authority.rfind(':');
  std::string_view host = authority;
  std::string_view port;
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return "";
  std::string out = scheme + "://" + Lower(host) + ":";
  if (!port.empty()) {
    out += port;
  } else {
    out += scheme == "https" ? "443" : "80";
  }
  return out;
}

std::string EraCache::Lookup(std::string_view url) const {
  const auto it = by_origin_.find(OriginOf(url));
  return it == by_origin_.end() ? std::string() : it->second;
}

void EraCache::Remember(std::string_view url, std::string_view version) {
  std::string origin = OriginOf(url);
  if (origin.empty()) return;
  if (version.empty()) {
    by_origin_.erase(origin);
    return;
  }
  auto it = by_origin_.find(origin);
  if (it != by_origin_.end()) {
    it->second.assign(version);
    return;
  }
  if (by_origin_.size() >= kMaxOrigins) by_origin_.erase(by_origin_.begin());
  by_origin_.emplace(std::move(origin), std::string(version));
}

}  // namespace mcpgw::mcp
