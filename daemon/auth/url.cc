#include "daemon/auth/url.h"

#include <cctype>

namespace mcpgw::auth {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "/a/b/" → "/a/b"; "/" → "".
std::string WithoutTrailingSlash(std::string path) {
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

std::string Url::Origin() const {
  std::string out = scheme + "://" + host;
  if (!port.empty()) out += ":" + port;
  return out;
}

std::string Url::ToString() const {
  std::string out = Origin() + path;
  if (!query.empty()) out += "?" + query;
  return out;
}

std::optional<Url> ParseUrl(std::string_view text) {
  for (unsigned char c : text) {
    if (c <= 0x20 || c == 0x7f) return std::nullopt;
  }
  const size_t sep = text.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  Url url;
  url.scheme = Lower(text.substr(0, sep));
  if (url.scheme != "http" && url.scheme != "https") return std::nullopt;
  std::string_view rest = text.substr(sep + 3);
  rest = rest.substr(0, rest.find('#'));
  const size_t authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  rest = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority = authority.substr(at + 1);
  }
  std::string_view host = authority, port;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos || close < 2) return std::nullopt;
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else if (const size_t colon = authority.find(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return std::nullopt;
  if (!port.empty()) {
    if (port.size() > 5) return std::nullopt;
    unsigned value = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value == 0 || value > 65535) return std::nullopt;
    const bool default_port =
        (url.scheme == "http" && value == 80) || (url.scheme == "https" && value == 443);
    if (!default_port) url.port = std::to_string(value);
  }
  url.host = Lower(host);
  const size_t q = rest.find('?');
  url.path = std::string(rest.substr(0, q));
  if (q != std::string_view::npos) url.query = std::string(rest.substr(q + 1));
  return url;
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost" || host == "[::1]") return true;
  if (host.rfind("127.", 0) != 0) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

std::string CanonicalResource(const Url& server) {
  return server.Origin() + WithoutTrailingSlash(server.path);
}

bool ResourceCovers(const Url& resource, const Url& server) {
  if (resource.Origin() != server.Origin()) return false;
  const std::string prefix = WithoutTrailingSlash(resource.path);
  const std::string path = WithoutTrailingSlash(server.path);
  if (prefix.empty() || prefix == path) return true;
  return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
         path[prefix.size()] == '/';
}

std::vector<std::string> ProtectedResourceMetadataUrls(const Url& server) {
  constexpr std::string_view kWellKnown = "/.well-known/oauth-protected-resource";
  std::vector<std::string> out;
  const std::string path = WithoutTrailingSlash(server.path);
  if (!path.empty()) out.push_back(server.Origin() + std::string(kWellKnown) + path);
  out.push_back(server.Origin() + std::string(kWellKnown));
  return out;
}

std::vector<std::string> AuthorizationServerMetadataUrls(const Url& issuer) {
  const std::string origin = issuer.Origin();
  const std::string path = WithoutTrailingSlash(issuer.path);
  if (path.empty()) {
    return {origin + "/.well-known/oauth-authorization-server",
            origin + "/.well-known/openid-configuration"};
  }
  return {origin + "/.well-known/oauth-authorization-server" + path,
          origin + "/.well-known/openid-configuration" + path,
          origin + path + "/.well-known/openid-configuration"};
}

std::string FormEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size() * 3);
  for (unsigned char c : value) {
    if (Unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string FormDecode(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%' && i + 2 < value.size() && HexValue(value[i + 1]) >= 0 &&
               HexValue(value[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(value[i + 1]) * 16 + HexValue(value[i + 2]));
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string EncodeParams(const Params& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += FormEncode(name);
    out += '=';
    out += FormEncode(value);
  }
  return out;
}

Params DecodeParams(std::string_view query) {
  Params out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.empty()) continue;
    const size_t eq = piece.find('=');
    if (eq == std::string_view::npos) {
      out.emplace_back(FormDecode(piece), "");
    } else {
      out.emplace_back(FormDecode(piece.substr(0, eq)), FormDecode(piece.substr(eq + 1)));
    }
  }
  return out;
}

std::optional<std::string> FindParam(const Params& params, std::string_view name) {
  for (const auto& [n, v] : params) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::string AppendParams(std::string_view url, const Params& params) {
  std::string out(url.substr(0, url.find('#')));
  if (params.empty()) return out;
  const size_t q = out.find('?');
  if (q == std::string::npos) {
    out += '?';
  } else if (q + 1 != out.size() && out.back() != '&') {
    out += '&';
  }
  return out + EncodeParams(params);
}

}  // namespace mcpgw::auth
