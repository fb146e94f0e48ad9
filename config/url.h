// Whether a configured url can name a Streamable HTTP server (BEHAVIOR.md §2, §6):
// an absolute http or https URL with a host. Used by the entry parser on the
// url after interpolation; pure.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::config {

// True for `http://host...` or `https://host...` (scheme in any case) with a
// non-empty host, a numeric port if one is given, and no whitespace or
// control character anywhere.
bool IsServerUrl(std::string_view url);

// The userinfo of `url` (`user:password` in `https://user:password@host/`),
// or "" when it has none. A password written in a url is a credential.
std::string_view UrlUserinfo(std::string_view url);
// `url` with its userinfo, if any, replaced by `<redacted>`.
std::string RedactUserinfo(std::string_view url);

}  // namespace mcpgw::config
