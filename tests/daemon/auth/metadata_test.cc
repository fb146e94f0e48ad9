// Discovery documents: what is accepted, and the reason for each refusal.
#include <catch2/catch.hpp>

#include "daemon/auth/metadata.h"

namespace mcpgw::auth {
namespace {

const base::Url kServer = *base::ParseUrl("http://localhost:3000/mcp");

std::string AsJson(std::string_view issuer, std::string_view extra = "") {
  std::string out = "{\"issuer\":\"" + std::string(issuer) + "\",\"authorization_endpoint\":\"" +
                    std::string(issuer) + "/authorize\",\"token_endpoint\":\"" +
                    std::string(issuer) +
                    "/token\",\"code_challenge_methods_supported\":[\"S256\"]";
  if (!extra.empty()) out += "," + std::string(extra);
  return out + "}";
}

TEST_CASE("protected resource metadata is read and checked against the server",
          "[auth][metadata]") {
  ResourceMetadata prm;
  std::string error;
  REQUIRE(ParseResourceMetadata(
      R"({"resource":"http://localhost:3000/mcp","authorization_servers":["http://localhost:4000"],"scopes_supported":["a","b"]})",
      &prm, &error));
  CHECK(prm.authorization_servers == std::vector<std::string>{"http://localhost:4000"});
  CHECK(prm.scopes_supported == std::vector<std::string>{"a", "b"});
  CHECK(CheckResource(prm, kServer, &error));

  prm.resource = "https://evil.example.com/mcp";
  CHECK_FALSE(CheckResource(prm, kServer, &error));
  CHECK(error ==
        "protected resource metadata is for \"https://evil.example.com/mcp\", not for "
        "http://localhost:3000/mcp");
}

TEST_CASE("malformed protected resource metadata is refused with a reason", "[auth][metadata]") {
  ResourceMetadata prm;
  std::string error;
  CHECK_FALSE(ParseResourceMetadata("<html>", &prm, &error));
  CHECK(error == "protected resource metadata is not valid JSON");
  CHECK_FALSE(ParseResourceMetadata("[]", &prm, &error));
  CHECK(error == "protected resource metadata is not a JSON object");
  CHECK_FALSE(ParseResourceMetadata(R"({"authorization_servers":["https://a"]})", &prm, &error));
  CHECK(error == "protected resource metadata has no \"resource\"");
  CHECK_FALSE(ParseResourceMetadata(
      R"({"resource":"https://x","authorization_servers":[7,"nope"]})", &prm, &error));
  CHECK(error == "protected resource metadata names no authorization server");
}

TEST_CASE("authorization server metadata must name the issuer it was fetched for",
          "[auth][metadata]") {
  ServerMetadata as;
  std::string error;
  REQUIRE(ParseServerMetadata(AsJson("http://localhost:4000/tenant1"), &as, &error));
  CHECK(CheckServerMetadata(as, Discovery::kIssuer, "http://localhost:4000/tenant1", kServer,
                            &error));
  CHECK(CheckServerMetadata(as, Discovery::kIssuer, "http://localhost:4000/tenant1/", kServer,
                            &error));
  CHECK_FALSE(
      CheckServerMetadata(as, Discovery::kIssuer, "http://localhost:4000", kServer, &error));
  CHECK(error ==
        "authorization server metadata names issuer \"http://localhost:4000/tenant1\", not the "
        "\"http://localhost:4000\" it was fetched for");
}

TEST_CASE("a 2025-03-26 server's metadata must stay on its origin", "[auth][metadata]") {
  ServerMetadata as;
  std::string error;
  REQUIRE(ParseServerMetadata(AsJson("http://localhost:3000/oauth"), &as, &error));
  CHECK(CheckServerMetadata(as, Discovery::kLegacy, "http://localhost:3000", kServer, &error));
  REQUIRE(ParseServerMetadata(AsJson("https://elsewhere.example"), &as, &error));
  CHECK_FALSE(
      CheckServerMetadata(as, Discovery::kLegacy, "http://localhost:3000", kServer, &error));
}

TEST_CASE("metadata without PKCE S256 is refused", "[auth][metadata]") {
  ServerMetadata as;
  std::string error;
  REQUIRE(ParseServerMetadata(
      R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t"})",
      &as, &error));
  CHECK_FALSE(CheckServerMetadata(as, Discovery::kIssuer, "https://as", kServer, &error));
  CHECK(error.find("PKCE") != std::string::npos);
  REQUIRE(ParseServerMetadata(
      R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t","code_challenge_methods_supported":["plain"]})",
      &as, &error));
  CHECK_FALSE(CheckServerMetadata(as, Discovery::kIssuer, "https://as", kServer, &error));
}

TEST_CASE("endpoints must be https unless loopback or the server's own origin",
          "[auth][metadata]") {
  std::string why;
  CHECK(EndpointAllowed("https://as.example/token", kServer, &why));
  CHECK(EndpointAllowed("http://127.0.0.1:9/token", kServer, &why));
  CHECK(EndpointAllowed("http://localhost:3000/token", kServer, &why));
  const base::Url lan = *base::ParseUrl("http://10.0.0.5/mcp");
  CHECK(EndpointAllowed("http://10.0.0.5/token", lan, &why));
  CHECK_FALSE(EndpointAllowed("http://as.example/token", kServer, &why));
  CHECK(why == "\"http://as.example/token\" is not https");
  CHECK_FALSE(EndpointAllowed("javascript:alert(1)", kServer, &why));

  ServerMetadata as;
  std::string error;
  REQUIRE(ParseServerMetadata(
      R"({"issuer":"https://as","authorization_endpoint":"http://as/a","token_endpoint":"https://as/t","code_challenge_methods_supported":["S256"]})",
      &as, &error));
  CHECK_FALSE(CheckServerMetadata(as, Discovery::kIssuer, "https://as", kServer, &error));
  CHECK(error == "authorization server metadata: endpoint \"http://as/a\" is not https");
}

TEST_CASE("metadata missing endpoints or not JSON is refused", "[auth][metadata]") {
  ServerMetadata as;
  std::string error;
  CHECK_FALSE(ParseServerMetadata(R"({"issuer":"https://as","token_endpoint":"https://as/t"})", &as,
                                  &error));
  CHECK(error == "authorization server metadata has no \"authorization_endpoint\"");
  CHECK_FALSE(ParseServerMetadata("<!doctype html><p>hi", &as, &error));
  CHECK(error == "authorization server metadata is not valid JSON");
  CHECK_FALSE(ParseServerMetadata(std::string(kMaxDocumentBytes + 10, ' ') + "{}", &as, &error));
}

TEST_CASE("auth method support follows RFC 8414's default", "[auth][metadata]") {
  ServerMetadata as;
  CHECK(as.SupportsAuthMethod("client_secret_basic"));
  CHECK_FALSE(as.SupportsAuthMethod("none"));
  as.token_endpoint_auth_methods_supported = std::vector<std::string>{"none"};
  CHECK(as.SupportsAuthMethod("none"));
  CHECK_FALSE(as.SupportsAuthMethod("client_secret_basic"));
}

}  // namespace
}  // namespace mcpgw::auth
