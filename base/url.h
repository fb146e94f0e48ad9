// URLs, parsed once: libcurl's URL parser (CURLU) splits and checks every
// http(s) url the gateway reads — a server's url in mcp.json, the OAuth
// client's metadata, issuer and redirect urls, the url a proxy is chosen for —
// so what is accepted is what libcurl will later connect to. Also the one
// place that reads a url shown to people (its userinfo hidden, its host named
// in an error). In the mcpgw_base_url target (links libcurl), not in
// mcpgw_base.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcpgw::base {

// An absolute http or https url, split. Scheme and host are lower case; the
// port is kept only when it is not the scheme's default; the path has its dot
// segments resolved (as libcurl sends it). The fragment is dropped.
struct Url {
  std::string scheme;    // "http" or "https"
  std::string userinfo;  // "user:password" as written; "" when absent. A credential.
  std::string host;      // lower case; an IPv6 literal keeps its brackets (and zone id)
  std::string port;      // "" for the default port
  std::string path;      // "/" at least
  std::string query;     // without the '?'; "" when absent

  std::string Origin() const;  // scheme://host[:port]
};

// Parses an absolute http(s) url written as `scheme://authority...`; nullopt
// for anything else: other schemes, no host, a port that is not 1..65535,
// whitespace or control characters anywhere, a host libcurl refuses.
std::optional<Url> ParseUrl(std::string_view text);

// For display: text that is shown need not parse (a url whose interpolated
// pieces show as "<redacted>", a proxy written without a scheme), and must
// still lose its credential. These two read the authority lexically — what
// follows "://" up to the first '/', '?' or '#', its userinfo ending at the
// last '@' in it — which for any url ParseUrl accepts is the split libcurl
// makes.

// `text` with the userinfo of its authority replaced by `replacement`;
// unchanged when it has none.
std::string ReplaceUserinfo(std::string_view text, std::string_view replacement);

// The host of `text`'s authority as written, without brackets, userinfo or
// port ("https://u@[::1]:8443/mcp" gives "::1"): a view into `text`, "" when
// it has no authority.
std::string_view HostAsWritten(std::string_view text);

}  // namespace mcpgw::base
