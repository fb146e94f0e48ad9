// WWW-Authenticate: the Bearer parameters of 401 and 403 answers, from real
// servers' shapes and hostile bytes.
#include <catch2/catch.hpp>

#include <random>

#include "daemon/auth/challenge.h"

namespace mcpgw::auth {
namespace {

TEST_CASE("a bearer challenge gives its resource metadata, scope and error", "[auth][challenge]") {
  BearerChallenge b = ParseBearerChallenge(
      "Bearer error=\"insufficient_scope\", scope=\"files:read files:write\", "
      "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\", "
      "error_description=\"Additional \\\"write\\\" permission required\"");
  CHECK(b.present);
  CHECK(b.error == "insufficient_scope");
  CHECK(b.scope == "files:read files:write");
  CHECK(b.resource_metadata == "https://mcp.example.com/.well-known/oauth-protected-resource");
  CHECK(b.error_description == "Additional \"write\" permission required");
}

TEST_CASE("the bearer challenge is found among others, in any case", "[auth][challenge]") {
  BearerChallenge b =
      ParseBearerChallenge("Basic realm=\"x\", Negotiate abc==, BEARER realm=api,scope=a, Other");
  CHECK(b.present);
  CHECK(b.scope == "a");
  std::vector<Challenge> all = ParseWwwAuthenticate("Basic realm=\"x\", Negotiate abc==, Bearer");
  REQUIRE(all.size() == 3);
  CHECK(all[0].scheme == "basic");
  CHECK(all[0].Param("realm") == "x");
  CHECK(all[1].scheme == "negotiate");
  CHECK(all[1].token68 == "abc==");
  CHECK(all[2].scheme == "bearer");
  CHECK(all[2].params.empty());
}

TEST_CASE("a bare bearer challenge has no parameters", "[auth][challenge]") {
  BearerChallenge b = ParseBearerChallenge("Bearer");
  CHECK(b.present);
  CHECK(b.scope.empty());
  CHECK_FALSE(ParseBearerChallenge("").present);
  CHECK_FALSE(ParseBearerChallenge("Basic realm=x").present);
}

TEST_CASE("unquoted values and odd spacing are read", "[auth][challenge]") {
  BearerChallenge b = ParseBearerChallenge("Bearer  error = invalid_token ,scope=mcp:basic");
  CHECK(b.error == "invalid_token");
  CHECK(b.scope == "mcp:basic");
}

TEST_CASE("any bytes parse without crashing", "[auth][challenge]") {
  std::mt19937 rng(12);
  const std::string alphabet = "Bearer =\",\\ \tscope_x\x01\xff";
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 60);
    for (int j = 0; j < n; ++j) s += alphabet[rng() % alphabet.size()];
    (void)ParseWwwAuthenticate(s);
  }
  (void)ParseBearerChallenge("Bearer scope=\"unterminated");
  CHECK(ParseBearerChallenge("Bearer scope=\"unterminated").scope == "unterminated");
}

TEST_CASE("scopes combine as sets", "[auth][challenge]") {
  CHECK(UnionScopes("a b", "b c") == "a b c");
  CHECK(UnionScopes("", "  x  x ") == "x");
  CHECK(ScopesInclude("a b c", "c a"));
  CHECK_FALSE(ScopesInclude("a b", "a z"));
  CHECK(ScopesInclude("a", ""));
}

}  // namespace
}  // namespace mcpgw::auth
