// EraCache: which protocol revision each origin's MCP server spoke, for the
// daemon's whole life. The era is a property of the server, not of a request
// (revision 2026-07-28, basic/versioning "Backward Compatibility"): HTTP
// clients cache it per origin and probe again when it stops holding. The
// daemon's main loop owns one; a session gets the cached version as a hint
// when it is created and reports the version it ends up speaking. Bounded;
// single-threaded; keys and values are never logged (a url may hold secrets).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace mcpgw::mcp {

// "scheme://host:port" of an http(s) url (base::ParseUrl): scheme and host
// lowercased, the default port filled in, userinfo, path, query and fragment
// dropped. Empty when `url` does not parse.
std::string OriginOf(std::string_view url);

class EraCache {
 public:
  static constexpr size_t kMaxOrigins = 4096;

  // The version the origin of `url` spoke last, or "" when unknown.
  std::string Lookup(std::string_view url) const;
  // Records what a server at `url` speaks; an empty `version` forgets it. A
  // full cache forgets an arbitrary other origin first.
  void Remember(std::string_view url, std::string_view version);
  size_t size() const { return by_origin_.size(); }

 private:
  std::map<std::string, std::string, std::less<>> by_origin_;
};

}  // namespace mcpgw::mcp
