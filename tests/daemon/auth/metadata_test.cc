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
  base::Result<ResourceMetadata> parsed = ParseResourceMetadata(
      R"({"resource":"http://localhost:3000/mcp","authorization_servers":["http://localhost:4000"],"scopes_supported":["a","b"]})");
  REQUIRE(parsed.ok());
  ResourceMetadata prm = *parsed;
  CHECK(prm.authorization_servers == std::vector<std::string>{"http://localhost:4000"});
  CHECK(prm.scopes_supported == std::vector<std::string>{"a", "b"});
  CHECK(CheckResource(prm, kServer).ok());

  prm.resource = "https://evil.example.com/mcp";
  const base::Status other = CheckResource(prm, kServer);
  CHECK_FALSE(other.ok());
  CHECK(other.message() ==
        "protected resource metadata is for \"https://evil.example.com/mcp\", not for "
        "http://localhost:3000/mcp");
}

TEST_CASE("malformed protected resource metadata is refused with a reason", "[auth][metadata]") {
  auto error = [](std::string_view body) {
    base::Result<ResourceMetadata> parsed = ParseResourceMetadata(body);
    CHECK_FALSE(parsed.ok());
    return parsed.message();
  };
  CHECK(error("<html>") == "protected resource metadata is not valid JSON");
  CHECK(error("[]") == "protected resource metadata is not a JSON object");
  CHECK(error(R"({"authorization_servers":["https://a"]})") ==
        "protected resource metadata has no \"resource\"");
  CHECK(error(R"({"resource":"https://x","authorization_servers":[7,"nope"]})") ==
        "protected resource metadata names no authorization server");
}

TEST_CASE("authorization server metadata must name the issuer it was fetched for",
          "[auth][metadata]") {
  base::Result<ServerMetadata> as = ParseServerMetadata(AsJson("http://localhost:4000/tenant1"));
  REQUIRE(as.ok());
  CHECK(
      CheckServerMetadata(*as, Discovery::kIssuer, "http://localhost:4000/tenant1", kServer).ok());
  CHECK(
      CheckServerMetadata(*as, Discovery::kIssuer, "http://localhost:4000/tenant1/", kServer).ok());
  const base::Status other =
      CheckServerMetadata(*as, Discovery::kIssuer, "http://localhost:4000", kServer);
  CHECK_FALSE(other.ok());
  CHECK(other.message() ==
        "authorization server metadata names issuer \"http://localhost:4000/tenant1\", not the "
        "\"http://localhost:4000\" it was fetched for");
}

TEST_CASE("a 2025-03-26 server's metadata must stay on its origin", "[auth][metadata]") {
  base::Result<ServerMetadata> as = ParseServerMetadata(AsJson("http://localhost:3000/oauth"));
  REQUIRE(as.ok());
  CHECK(CheckServerMetadata(*as, Discovery::kLegacy, "http://localhost:3000", kServer).ok());
  as = ParseServerMetadata(AsJson("https://elsewhere.example"));
  REQUIRE(as.ok());
  CHECK_FALSE(CheckServerMetadata(*as, Discovery::kLegacy, "http://localhost:3000", kServer).ok());
}

TEST_CASE("metadata without PKCE S256 is refused", "[auth][metadata]") {
  base::Result<ServerMetadata> as = ParseServerMetadata(
      R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t"})");
  REQUIRE(as.ok());
  const base::Status no_pkce = CheckServerMetadata(*as, Discovery::kIssuer, "https://as", kServer);
  CHECK_FALSE(no_pkce.ok());
  CHECK(no_pkce.message().find("PKCE") != std::string::npos);
  as = ParseServerMetadata(
      R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t","code_challenge_methods_supported":["plain"]})");
  REQUIRE(as.ok());
  CHECK_FALSE(CheckServerMetadata(*as, Discovery::kIssuer, "https://as", kServer).ok());
}

TEST_CASE("endpoints must be https unless loopback or the server's own origin",
          "[auth][metadata]") {
  CHECK(EndpointAllowed("https://as.example/token", kServer).ok());
  CHECK(EndpointAllowed("http://127.0.0.1:9/token", kServer).ok());
  CHECK(EndpointAllowed("http://localhost:3000/token", kServer).ok());
  const base::Url lan = *base::ParseUrl("http://10.0.0.5/mcp");
  CHECK(EndpointAllowed("http://10.0.0.5/token", lan).ok());
  const base::Status plain = EndpointAllowed("http://as.example/token", kServer);
  CHECK_FALSE(plain.ok());
  CHECK(plain.message() == "\"http://as.example/token\" is not https");
  CHECK_FALSE(EndpointAllowed("javascript:alert(1)", kServer).ok());

  base::Result<ServerMetadata> as = ParseServerMetadata(
      R"({"issuer":"https://as","authorization_endpoint":"http://as/a","token_endpoint":"https://as/t","code_challenge_methods_supported":["S256"]})");
  REQUIRE(as.ok());
  const base::Status checked = CheckServerMetadata(*as, Discovery::kIssuer, "https://as", kServer);
  CHECK_FALSE(checked.ok());
  CHECK(checked.message() ==
        "authorization server metadata: endpoint \"http://as/a\" is not https");
}

TEST_CASE("metadata missing endpoints or not JSON is refused", "[auth][metadata]") {
  base::Result<ServerMetadata> as =
      ParseServerMetadata(R"({"issuer":"https://as","token_endpoint":"https://as/t"})");
  CHECK_FALSE(as.ok());
  CHECK(as.message() == "authorization server metadata has no \"authorization_endpoint\"");
  as = ParseServerMetadata("<!doctype html><p>hi");
  CHECK_FALSE(as.ok());
  CHECK(as.message() == "authorization server metadata is not valid JSON");
  CHECK_FALSE(ParseServerMetadata(std::string(kMaxDocumentBytes + 10, ' ') + "{}").ok());
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
