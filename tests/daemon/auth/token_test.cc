// PKCE, the authorization URL, token requests and token responses.
#include <catch2/catch.hpp>

#include "base/base64.h"
#include "daemon/auth/pkce.h"
#include "daemon/auth/token.h"
#include "daemon/auth/url.h"

namespace mcpgw::auth {
namespace {

TEST_CASE("the S256 challenge matches RFC 7636's example", "[auth][token]") {
  CHECK(CodeChallengeS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") ==
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  const std::string v = NewCodeVerifier();
  CHECK(v.size() == 43);
  CHECK(v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
        std::string::npos);
  CHECK(NewCodeVerifier() != v);
}

TEST_CASE("the authorization url carries PKCE, state, scope and resource", "[auth][token]") {
  AuthorizationRequest r;
  r.authorization_endpoint = "https://as.example/authorize?tenant=a";
  r.client_id = "https://app.example/client.json";
  r.redirect_uri = "http://127.0.0.1:5555/callback";
  r.code_challenge = "CH";
  r.state = "ST";
  r.scope = "mcp:basic offline_access";
  r.resource = "https://mcp.example/mcp";
  const std::string url = BuildAuthorizationUrl(r);
  CHECK(url ==
        "https://as.example/"
        "authorize?tenant=a&response_type=code&client_id=https%3A%2F%2Fapp.example%2Fclient.json"
        "&redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback&code_challenge=CH"
        "&code_challenge_method=S256&state=ST&scope=mcp%3Abasic%20offline_access"
        "&prompt=consent&resource=https%3A%2F%2Fmcp.example%2Fmcp");
  r.scope.clear();
  CHECK(BuildAuthorizationUrl(r).find("scope=") == std::string::npos);
}

TEST_CASE("asking for offline_access also asks for consent, so a refresh token is issued",
          "[auth][token]") {
  AuthorizationRequest r;
  r.authorization_endpoint = "https://as.example/authorize";
  r.client_id = "c";
  r.redirect_uri = "http://127.0.0.1:5555/callback";
  r.code_challenge = "CH";
  r.state = "ST";
  r.resource = "https://mcp.example/mcp";
  auto prompt = [&](std::string scope) {
    r.scope = std::move(scope);
    const std::string url = BuildAuthorizationUrl(r);
    return FindParam(DecodeParams(url.substr(url.find('?') + 1)), "prompt");
  };
  CHECK(prompt("offline_access") == "consent");
  CHECK(prompt("mcp:tools offline_access files:read") == "consent");
  // Without it the user is not asked again for nothing.
  CHECK_FALSE(prompt("mcp:tools"));
  CHECK_FALSE(prompt("mcp:offline_access_log"));  // a whole scope, not a part of one
  CHECK_FALSE(prompt(""));
}

ClientIdentity Client(std::string method, std::string secret = "") {
  ClientIdentity c;
  c.client_id = "id:1";
  c.client_secret = Secret(std::move(secret));
  c.auth_method = std::move(method);
  return c;
}

std::string Header(const HttpCall& call, std::string_view name) {
  for (const auto& [n, v] : call.headers) {
    if (n == name) return v;
  }
  return "";
}

TEST_CASE("token requests authenticate the client the way it registered", "[auth][token]") {
  HttpCall basic = BuildCodeExchange("https://as/token", Client("client_secret_basic", "s&cr t"),
                                     "CODE", "VER", "http://127.0.0.1:1/callback", "https://r/mcp");
  CHECK(basic.method == "POST");
  CHECK(Header(basic, "Authorization") == "Basic " + base::Base64("id%3A1:s%26cr%20t"));
  CHECK(Header(basic, "Content-Type") == "application/x-www-form-urlencoded");
  CHECK(basic.body ==
        "grant_type=authorization_code&code=CODE&code_verifier=VER&redirect_uri=http%3A%2F%2F127.0."
        "0.1%3A1%2Fcallback"
        "&resource=https%3A%2F%2Fr%2Fmcp");

  HttpCall post = BuildCodeExchange("https://as/token", Client("client_secret_post", "sec"), "C",
                                    "V", "http://127.0.0.1:1/callback", "https://r");
  CHECK(Header(post, "Authorization").empty());
  CHECK(post.body.find("&client_id=id%3A1&client_secret=sec") != std::string::npos);

  HttpCall none = BuildRefresh("https://as/token", Client("none"), Secret("RT"), "https://r");
  CHECK(none.body ==
        "grant_type=refresh_token&refresh_token=RT&resource=https%3A%2F%2Fr&client_id=id%3A1");
}

TEST_CASE("a token response becomes tokens with an expiry", "[auth][token]") {
  base::Result<Tokens> t = ParseTokenResponse(
      200, "application/json; charset=utf-8",
      R"({"access_token":"AT","token_type":"bearer","expires_in":3600,"refresh_token":"RT","scope":"a b"})",
      1000, "x", nullptr);
  REQUIRE(t.ok());
  CHECK(t->access_token.Reveal() == "AT");
  CHECK(t->refresh_token.Reveal() == "RT");
  CHECK(t->expires_at == 4600);
  CHECK(t->scope == "a b");
  CHECK(t->obtained_at == 1000);

  t = ParseTokenResponse(200, "application/json", R"({"access_token":"AT2","expires_in":"60"})",
                         2000, "asked", &*t);
  REQUIRE(t.ok());
  CHECK(t->refresh_token.Reveal() == "RT");  // not rotated: the old one stays
  CHECK(t->scope == "a b");
  CHECK(t->expires_at == 2060);
}

TEST_CASE("token endpoint failures have clear reasons", "[auth][token]") {
  auto failure = [](int status, std::string_view type, std::string_view body) {
    base::Result<Tokens> t = ParseTokenResponse(status, type, body, 0, "", nullptr);
    CHECK_FALSE(t.ok());
    return t.status();
  };
  base::Status e = failure(200, "text/html", "<html>login</html>");
  CHECK(e.kind() == base::ErrorKind::kBackend);
  CHECK(e.message() == "token endpoint answered text/html, not a JSON object (HTTP 200)");
  e = failure(500, "application/json", "{}");
  CHECK(e.kind() == base::ErrorKind::kBackend);
  CHECK(e.message() == "token endpoint answered HTTP 500");
  e = failure(500, "text/html", "<h1>oops</h1>");
  CHECK(e.kind() == base::ErrorKind::kBackend);
  CHECK(e.message() == "token endpoint answered HTTP 500");
  // A dead grant is told apart: the caller authorizes anew.
  e = failure(400, "application/json",
              R"({"error":"invalid_grant","error_description":"refresh token revoked"})");
  CHECK(e.kind() == base::ErrorKind::kDenied);
  CHECK(e.message() == "token endpoint refused: invalid_grant: refresh token revoked");
  e = failure(401, "application/json", R"({"error":"invalid_client"})");
  CHECK(e.kind() == base::ErrorKind::kBackend);
  CHECK(e.message() == "token endpoint refused: invalid_client");
  e = failure(200, "application/json", R"({"token_type":"Bearer"})");
  CHECK(e.kind() == base::ErrorKind::kBackend);
  CHECK(e.message() == "token endpoint answered no access_token");
  e = failure(200, "application/json", R"({"access_token":"x","token_type":"DPoP"})");
  CHECK(e.kind() == base::ErrorKind::kBackend);
  CHECK(e.message() == "token endpoint issued a \"dpop\" token; mcpgw uses Bearer tokens only");
}

TEST_CASE("the subject comes from a JWT's sub claim", "[auth][token]") {
  const std::string jwt =
      "eyJhbGciOiJub25lIn0." + base::Base64Url(R"({"sub":"alice@example.com","scope":"a"})") + ".";
  CHECK(JwtSubject(jwt) == "alice@example.com");
  CHECK(JwtSubject("opaque-token").empty());
  CHECK(JwtSubject("a.b.c.d").empty());
  CHECK(JwtSubject("a." + base::Base64Url("[1]") + ".c").empty());
  // A payload padded the way some issuers write it reads the same; one that is
  // not base64 at all gives no subject rather than a subject made of garbage.
  CHECK(JwtSubject("h." + base::Base64(R"({"sub":"bob"})") + ".s") == "bob");
  CHECK(JwtSubject("h.eyJzdWIiOiJib2IifQ$.s").empty());
  CHECK(JwtSubject("h.eyJzdWIi OiJib2IifQ.s").empty());
  base::Result<Tokens> t = ParseTokenResponse(200, "application/json",
                                              "{\"access_token\":\"" + jwt + "\"}", 0, "", nullptr);
  REQUIRE(t.ok());
  CHECK(t->subject == "alice@example.com");
}

}  // namespace
}  // namespace mcpgw::auth
