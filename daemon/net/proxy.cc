#include "daemon/net/proxy.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>

#include "base/text.h"
#include "base/url.h"
#include "config/secret.h"

namespace mcpgw::http {
namespace {

using base::EqualsIgnoreCase;

// The first of `names` set to a non-empty value.
std::string FirstSet(const ProxyEnv::GetEnv& get_env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto v = get_env(name); v && !v->empty()) return *v;
  }
  return "";
}

// An IP address in network order, of either family.
struct Address {
  int family = 0;  // 0: not an address
  unsigned char bytes[16] = {};
};

Address ParseAddress(std::string_view text) {
  Address a;
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  if (text.empty() || text.size() >= 64) return a;
  char buf[64];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  if (inet_pton(AF_INET, buf, a.bytes) == 1) {
    a.family = AF_INET;
  } else if (inet_pton(AF_INET6, buf, a.bytes) == 1) {
    a.family = AF_INET6;
  }
  return a;
}

// Whether `host` lies in `network`/`bits` (all bits when `bits` < 0).
bool InNetwork(const Address& host, const Address& network, int bits) {
  if (host.family != network.family) return false;
  int total = host.family == AF_INET ? 32 : 128;
  if (bits < 0 || bits > total) bits = total;
  int whole = bits / 8;
  if (std::memcmp(host.bytes, network.bytes, static_cast<size_t>(whole)) != 0) return false;
  int rest = bits % 8;
  if (rest == 0) return true;
  auto mask = static_cast<unsigned char>(0xFF << (8 - rest));
  return (host.bytes[whole] & mask) == (network.bytes[whole] & mask);
}

// One no_proxy entry against the url's host.
bool Matches(std::string_view host, const Address& host_address, std::string_view token) {
  if (token == "*") return true;
  if (host_address.family != 0) {
    int bits = -1;
    size_t slash = token.find('/');
    if (slash != std::string_view::npos) {
      std::string_view digits = token.substr(slash + 1);
      if (digits.empty() || digits.size() > 3) return false;
      bits = 0;
      for (char c : digits) {
        if (c < '0' || c > '9') return false;
        bits = bits * 10 + (c - '0');
      }
      token = token.substr(0, slash);
    }
    Address network = ParseAddress(token);
    return network.family != 0 && InNetwork(host_address, network, bits);
  }
  if (!token.empty() && token.back() == '.') token.remove_suffix(1);
  if (!token.empty() && token.front() == '.') token.remove_prefix(1);
  if (token.empty()) return false;
  if (token.size() == host.size()) return EqualsIgnoreCase(token, host);
  return token.size() < host.size() && host[host.size() - token.size() - 1] == '.' &&
         EqualsIgnoreCase(token, host.substr(host.size() - token.size()));
}

}  // namespace

ProxyEnv ProxyEnv::FromEnv(const GetEnv& get_env) {
  ProxyEnv env;
  std::string all = FirstSet(get_env, {"all_proxy", "ALL_PROXY"});
  env.https_ = FirstSet(get_env, {"https_proxy", "HTTPS_PROXY"});
  if (env.https_.empty()) env.https_ = all;
  env.http_ = FirstSet(get_env, {"http_proxy", "HTTP_PROXY"});
  if (env.http_.empty()) env.http_ = all;
  env.no_proxy_ = FirstSet(get_env, {"no_proxy", "NO_PROXY"});
  return env;
}

const std::string& ProxyEnv::For(std::string_view url) const {
  static const std::string kDirect;
  if (empty()) return kDirect;
  const std::optional<base::Url> parsed = base::ParseUrl(url);
  if (!parsed) return kDirect;
  const std::string& proxy = parsed->scheme == "https" ? https_ : http_;
  if (proxy.empty() || Bypassed(parsed->host)) return kDirect;
  return proxy;
}

bool ProxyEnv::Bypassed(std::string_view host) const {
  if (no_proxy_.empty() || host.empty()) return false;
  if (host.back() == '.') host.remove_suffix(1);
  Address address = ParseAddress(host);
  std::string_view list = no_proxy_;
  while (!list.empty()) {
    size_t end = list.find_first_of(", \t");
    std::string_view token = list.substr(0, end);
    if (!token.empty() && Matches(host, address, token)) return true;
    if (end == std::string_view::npos) break;
    list.remove_prefix(end + 1);
  }
  return false;
}

const ProxyEnv& ProcessProxyEnv() {
  static const ProxyEnv env = ProxyEnv::FromEnv([](std::string_view name) {
    const char* v = std::getenv(std::string(name).c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  });
  return env;
}

std::string ShowProxy(std::string_view proxy) {
  if (proxy.empty()) return "";
  const std::string with_scheme = proxy.find("://") == std::string_view::npos
                                      ? "http://" + std::string(proxy)
                                      : std::string(proxy);
  return base::ReplaceUserinfo(with_scheme, Secret::kRedacted);
}

}  // namespace mcpgw::http
