// ProxyEnv: the HTTP proxies the environment names, read once, and the
// choice they make for one url. HttpClient hands that choice to libcurl on
// every transfer (a proxy url, or "" for a direct connection) so libcurl
// never reads the environment itself, and `mcpgw status` shows the same
// choice: what status says is what the transfers do.
//
// The variables, as curl reads them (a lower-case name wins over upper-case;
// an empty value counts as unset):
//   https_proxy / HTTPS_PROXY  for https:// servers
//   http_proxy / HTTP_PROXY    for http:// servers
//   all_proxy / ALL_PROXY      for either, when the one above is unset
//   no_proxy / NO_PROXY        hosts reached directly: "*" for every host,
//     else a list separated by commas or spaces of host names (which also
//     match their subdomains; a leading dot is ignored) and IP addresses
//     (with an optional /prefix length). No port numbers. Loopback hosts are
//     not special: list them to keep them direct.
// A proxy value is a url (http://, https://, socks5h:// …; no scheme means
// http://), credentials included as user:password@.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcpgw::http {

class ProxyEnv {
 public:
  using GetEnv = std::function<std::optional<std::string>(std::string_view name)>;

  ProxyEnv() = default;  // no proxy for anything
  static ProxyEnv FromEnv(const GetEnv& get_env);

  // The proxy url for `url` (http or https, read by base::ParseUrl), or ""
  // for a direct connection (and for a url that does not parse).
  const std::string& For(std::string_view url) const;
  // Whether any proxy is configured at all.
  bool empty() const { return https_.empty() && http_.empty(); }

 private:
  bool Bypassed(std::string_view host) const;

  std::string https_;  // https_proxy, else all_proxy
  std::string http_;   // http_proxy, else all_proxy
  std::string no_proxy_;
};

// The daemon process's proxies, read from its environment on first use.
const ProxyEnv& ProcessProxyEnv();

// `proxy` fit to show: "http://" added when it names no scheme, and any
// user:password replaced by "<redacted>" ("http://<redacted>@10.0.0.1:3128",
// base::ReplaceUserinfo).
std::string ShowProxy(std::string_view proxy);

}  // namespace mcpgw::http
