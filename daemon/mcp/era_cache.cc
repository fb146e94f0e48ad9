#include "daemon/mcp/era_cache.h"

#include <optional>

#include "base/url.h"

namespace mcpgw::mcp {

std::string OriginOf(std::string_view url) {
  const std::optional<base::Url> parsed = base::ParseUrl(url);
  if (!parsed) return "";
  std::string port = parsed->port;
  if (port.empty()) port = parsed->scheme == "https" ? "443" : "80";
  return parsed->scheme + "://" + parsed->host + ":" + port;
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
