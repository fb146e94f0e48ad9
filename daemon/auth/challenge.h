// WWW-Authenticate parsing (RFC 7235 §4.1, RFC 6750 §3, RFC 9728 §5.1): the
// challenges of a 401 or 403 response, and the Bearer parameters the OAuth
// client acts on. The header is untrusted server text: the parser is total
// (any bytes give some answer, never a crash) and bounded by its input.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpgw::auth {

struct Challenge {
  std::string scheme;  // lower case, e.g. "bearer"
  std::string token68;
  std::vector<std::pair<std::string, std::string>> params;  // names lower case

  std::optional<std::string> Param(std::string_view name) const;
};

// Every challenge in a WWW-Authenticate value (several headers may be joined
// with ", "). Malformed pieces are skipped.
std::vector<Challenge> ParseWwwAuthenticate(std::string_view header);

// What a Bearer challenge asks for. Absent parameters are empty.
struct BearerChallenge {
  bool present = false;           // the header held a Bearer challenge
  std::string resource_metadata;  // RFC 9728 §5.1
  std::string scope;              // space-separated
  std::string error;              // "invalid_token", "insufficient_scope", ...
  std::string error_description;
};

BearerChallenge ParseBearerChallenge(std::string_view header);

// "a b" ∪ "b c" = "a b c": scope strings as sets, first-seen order kept.
std::string UnionScopes(std::string_view a, std::string_view b);
// Whether every scope of `wanted` is in `held`.
bool ScopesInclude(std::string_view held, std::string_view wanted);
// The space-separated scopes, without empties or duplicates.
std::vector<std::string> SplitScopes(std::string_view scopes);

}  // namespace mcpgw::auth
