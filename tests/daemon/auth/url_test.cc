// URLs of the OAuth client: canonical resources, resource matching, and the
// discovery URLs in the order the MCP authorization spec gives.
#include <catch2/catch.hpp>

#include "daemon/auth/url.h"

namespace mcpgw::auth {
namespace {

base::Url U(std::string_view text) {
  std::optional<base::Url> url = base::ParseUrl(text);
  REQUIRE(url);
  return *url;
}

TEST_CASE("the canonical resource drops query, fragment and trailing slash", "[auth][url]") {
  CHECK(CanonicalResource(U("https://Mcp.Example.com/mcp/?apiKey=secret#x")) ==
        "https://mcp.example.com/mcp");
  CHECK(CanonicalResource(U("https://mcp.example.com/")) == "https://mcp.example.com");
  CHECK(CanonicalResource(U("https://mcp.example.com:8443")) == "https://mcp.example.com:8443");
}

TEST_CASE("a resource covers its own url and urls under its path", "[auth][url]") {
  const base::Url server = U("http://localhost:3000/mcp");
  CHECK(ResourceCovers(U("http://localhost:3000/mcp"), server));
  CHECK(ResourceCovers(U("http://localhost:3000"), server));
  CHECK(ResourceCovers(U("http://LOCALHOST:3000/"), server));
  CHECK(ResourceCovers(U("http://localhost:3000/mcp"), U("http://localhost:3000/mcp/v2")));
  CHECK_FALSE(ResourceCovers(U("https://evil.example.com/mcp"), server));
  CHECK_FALSE(ResourceCovers(U("http://localhost:3001/mcp"), server));
  CHECK_FALSE(ResourceCovers(U("https://localhost:3000/mcp"), server));
  CHECK_FALSE(ResourceCovers(U("http://localhost:3000/mc"), server));
  CHECK_FALSE(ResourceCovers(U("http://localhost:3000/mcp/v2"), server));
}

TEST_CASE("protected resource metadata is looked for path-based first, then at the root",
          "[auth][url]") {
  CHECK(ProtectedResourceMetadataUrls(U("https://example.com/public/mcp?x=1")) ==
        std::vector<std::string>{
            "https://example.com/.well-known/oauth-protected-resource/public/mcp",
            "https://example.com/.well-known/oauth-protected-resource"});
  CHECK(ProtectedResourceMetadataUrls(U("https://example.com/")) ==
        std::vector<std::string>{"https://example.com/.well-known/oauth-protected-resource"});
}

TEST_CASE("authorization server metadata candidates follow the spec's order", "[auth][url]") {
  CHECK(AuthorizationServerMetadataUrls(U("https://auth.example.com/tenant1")) ==
        std::vector<std::string>{
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example.com/.well-known/openid-configuration/tenant1",
            "https://auth.example.com/tenant1/.well-known/openid-configuration"});
  CHECK(AuthorizationServerMetadataUrls(U("https://auth.example.com/")) ==
        std::vector<std::string>{"https://auth.example.com/.well-known/oauth-authorization-server",
                                 "https://auth.example.com/.well-known/openid-configuration"});
}

TEST_CASE("form encoding round-trips any bytes", "[auth][url]") {
  const std::string raw = "a b+c&d=e/é\x01%";
  CHECK(FormEncode(raw) == "a%20b%2Bc%26d%3De%2F%C3%A9%01%25");
  CHECK(FormDecode(FormEncode(raw)) == raw);
  CHECK(FormDecode("a+b%2") == "a b%2");
  Params p = DecodeParams("code=abc&state=x%2Fy&&flag&iss=https%3A%2F%2Fas");
  CHECK(FindParam(p, "code") == "abc");
  CHECK(FindParam(p, "state") == "x/y");
  CHECK(FindParam(p, "flag") == "");
  CHECK(FindParam(p, "iss") == "https://as");
  CHECK_FALSE(FindParam(p, "error"));
  CHECK(AppendParams("https://as/authorize?x=1#f", {{"a", "b c"}}) ==
        "https://as/authorize?x=1&a=b%20c");
  CHECK(AppendParams("https://as/authorize", {{"a", "1"}}) == "https://as/authorize?a=1");
}

TEST_CASE("loopback hosts are recognised", "[auth][url]") {
  for (const char* h : {"localhost", "127.0.0.1", "127.1.2.3", "[::1]"}) CHECK(IsLoopbackHost(h));
  for (const char* h : {"example.com", "127.0.0.1.nip.io", "10.0.0.1", "[::2]", "127.0.0"}) {
    CHECK_FALSE(IsLoopbackHost(h));
  }
}

}  // namespace
}  // namespace mcpgw::auth
