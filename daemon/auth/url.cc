#include "daemon/auth/url.h"

#include <cctype>

namespace mcpgw::auth {
namespace {

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

std::string CanonicalResource(const base::Url& server) {
  return server.Origin() + WithoutTrailingSlash(server.path);
}

bool ResourceCovers(const base::Url& resource, const base::Url& server) {
  if (resource.Origin() != server.Origin()) return false;
  const std::string prefix = WithoutTrailingSlash(resource.path);
  const std::string path = WithoutTrailingSlash(server.path);
  if (prefix.empty() || prefix == path) return true;
  return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
         path[prefix.size()] == '/';
}

std::vector<std::string> ProtectedResourceMetadataUrls(const base::Url& server) {
  constexpr std::string_view kWellKnown = "/.well-known/oauth-protected-resource";
  std::vector<std::string> out;
  const std::string path = WithoutTrailingSlash(server.path);
  if (!path.empty()) out.push_back(server.Origin() + std::string(kWellKnown) + path);
  out.push_back(server.Origin() + std::string(kWellKnown));
  return out;
}

std::vector<std::string> AuthorizationServerMetadataUrls(const base::Url& issuer) {
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
