// Client identity: configured, metadata document, stored, registered.
#include <catch2/catch.hpp>

#include <rapidjson/document.h>

#include "daemon/auth/registration.h"

namespace mcpgw::auth {
namespace {

ServerMetadata As() {
  ServerMetadata as;
  as.issuer = "https://as";
  as.registration_endpoint = "https://as/register";
  as.token_endpoint_auth_methods_supported =
      std::vector<std::string>{"none", "client_secret_basic"};
  return as;
}

TEST_CASE("a configured client comes first", "[auth][registration]") {
  config::OAuthClient configured;
  configured.client_id = "mine";
  configured.client_secret = Secret("shh");
  configured.client_metadata_url = "https://app/client.json";
  ServerMetadata as = As();
  as.client_id_metadata_document_supported = true;
  IdentityPlan plan = PlanIdentity(configured, as, {});
  REQUIRE(plan.kind == IdentityPlan::kUse);
  CHECK(plan.identity.source == ClientSource::kConfigured);
  CHECK(plan.identity.client_id == "mine");
  CHECK(plan.identity.auth_method == "client_secret_basic");
  as.token_endpoint_auth_methods_supported = std::vector<std::string>{"client_secret_post"};
  CHECK(PlanIdentity(configured, as, {}).identity.auth_method == "client_secret_post");
  configured.client_secret = Secret();
  CHECK(PlanIdentity(configured, as, {}).identity.auth_method == "none");
}

TEST_CASE("a metadata document is used only where the server supports it", "[auth][registration]") {
  config::OAuthClient configured;
  configured.client_metadata_url = "https://app/client.json";
  ServerMetadata as = As();
  CHECK(PlanIdentity(configured, as, {}).kind == IdentityPlan::kRegister);
  as.client_id_metadata_document_supported = true;
  IdentityPlan plan = PlanIdentity(configured, as, {});
  REQUIRE(plan.kind == IdentityPlan::kUse);
  CHECK(plan.identity.source == ClientSource::kMetadataDocument);
  CHECK(plan.identity.client_id == "https://app/client.json");
  CHECK(plan.identity.auth_method == "none");
}

TEST_CASE("a stored registration is reused, else one is made", "[auth][registration]") {
  ClientIdentity stored;
  stored.client_id = "reg-1";
  stored.auth_method = "none";
  IdentityPlan plan = PlanIdentity({}, As(), stored);
  REQUIRE(plan.kind == IdentityPlan::kUse);
  CHECK(plan.identity.client_id == "reg-1");
  plan = PlanIdentity({}, As(), {});
  REQUIRE(plan.kind == IdentityPlan::kRegister);
  CHECK(plan.auth_method == "none");
  ServerMetadata basic_only = As();
  basic_only.token_endpoint_auth_methods_supported =
      std::vector<std::string>{"client_secret_basic"};
  CHECK(PlanIdentity({}, basic_only, {}).auth_method == "client_secret_basic");
  ServerMetadata closed = As();
  closed.registration_endpoint.clear();
  plan = PlanIdentity({}, closed, {});
  CHECK(plan.kind == IdentityPlan::kImpossible);
  CHECK(plan.reason.find("set oauth.clientId") != std::string::npos);
}

TEST_CASE("the registration request is a native client with both grants", "[auth][registration]") {
  HttpCall call = BuildRegistration(As(), "http://127.0.0.1:4242/callback", "none");
  CHECK(call.method == "POST");
  CHECK(call.url == "https://as/register");
  rapidjson::Document doc;
  doc.Parse(call.body.c_str());
  REQUIRE(doc.IsObject());
  CHECK(std::string(doc["application_type"].GetString()) == "native");
  CHECK(doc["grant_types"].Size() == 2);
  CHECK(std::string(doc["grant_types"][1].GetString()) == "refresh_token");
  CHECK(std::string(doc["token_endpoint_auth_method"].GetString()) == "none");
  CHECK(std::string(doc["redirect_uris"][0].GetString()) == "http://127.0.0.1:4242/callback");
}

TEST_CASE("registration responses are read or refused with a reason", "[auth][registration]") {
  base::Result<ClientIdentity> c = ParseRegistration(
      201,
      R"({"client_id":"abc","client_secret":"s","token_endpoint_auth_method":"client_secret_post"})",
      "none", "http://127.0.0.1:1/callback", "https://as");
  REQUIRE(c.ok());
  CHECK(c->client_id == "abc");
  CHECK(c->auth_method == "client_secret_post");
  CHECK(c->client_secret.Reveal() == "s");
  CHECK(c->issuer == "https://as");
  c = ParseRegistration(201, R"({"client_id":"abc","client_secret":"s"})", "none", "r", "i");
  REQUIRE(c.ok());
  CHECK(c->auth_method == "none");
  c = ParseRegistration(400, R"({"error":"invalid_redirect_uri","error_description":"nope"})",
                        "none", "r", "i");
  CHECK_FALSE(c.ok());
  CHECK(c.message() == "client registration refused (HTTP 400): invalid_redirect_uri: nope");
  CHECK_FALSE(ParseRegistration(201, "<html>", "none", "r", "i").ok());
  c = ParseRegistration(201, R"({"client_id":"a","token_endpoint_auth_method":"private_key_jwt"})",
                        "none", "r", "i");
  CHECK_FALSE(c.ok());
  CHECK(c.message().find("private_key_jwt") != std::string::npos);
  CHECK_FALSE(ParseRegistration(
                  201, R"({"client_id":"a","token_endpoint_auth_method":"client_secret_basic"})",
                  "none", "r", "i")
                  .ok());
}

}  // namespace
}  // namespace mcpgw::auth
