// The entry's `oauth` object (BEHAVIOR.md §2, §9) and the Authorization header that
// turns OAuth off.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;
using testing::OnlyEntry;
using testing::ParseEntryJson;

TEST_CASE("the oauth object is read, its secret interpolated and kept secret", "[config][oauth]") {
  ParseResult r = ParseEntryJson(
      R"({"url":"https://x/mcp","oauth":{"clientId":"my-app","clientSecret":"${env:APP_SECRET}",
          "clientMetadataUrl":"https://app.example/client.json","other":1}})",
      FakeEnv({{"APP_SECRET", "s3cret-value"}}));
  REQUIRE(r.ok());
  const Entry& e = r->entries[0];
  REQUIRE(e.accepted());
  CHECK(e.remote->oauth.client_id == "my-app");
  CHECK(e.remote->oauth.client_secret.Reveal() == "s3cret-value");
  CHECK(e.remote->oauth.client_metadata_url == "https://app.example/client.json");
  CHECK(e.remote->oauth_allowed);
  bool known = false;
  for (const Secret& s : r->secrets) known |= s.Reveal() == "s3cret-value";
  CHECK(known);
}

TEST_CASE("a literal client secret is a secret too", "[config][oauth]") {
  ParseResult r = ParseEntryJson(
      R"({"url":"https://x","oauth":{"clientId":"a","clientSecret":"literal-secret"}})");
  REQUIRE(r.ok());
  bool known = false;
  for (const Secret& s : r->secrets) known |= s.Reveal() == "literal-secret";
  CHECK(known);
}

TEST_CASE("no oauth object, or null, means defaults", "[config][oauth]") {
  for (const char* json : {R"({"url":"https://x"})", R"({"url":"https://x","oauth":null})",
                           R"({"url":"https://x","oauth":{}})"}) {
    Entry e = OnlyEntry(json);
    REQUIRE(e.accepted());
    CHECK(e.remote->oauth == OAuthClient{});
  }
}

TEST_CASE("bad oauth objects are refused with reasons naming keys", "[config][oauth]") {
  CHECK(OnlyEntry(R"({"url":"https://x","oauth":"yes"})").refusal ==
        "\"oauth\" must be an object (got string)");
  CHECK(OnlyEntry(R"({"url":"https://x","oauth":{"clientId":5}})").refusal ==
        "oauth.clientId: must be a string (got number)");
  CHECK(OnlyEntry(R"({"url":"https://x","oauth":{"clientSecret":"abcdefgh"}})").refusal ==
        "oauth.clientSecret: needs oauth.clientId");
  for (const char* url : {"http://app/client.json", "https://app", "https://app/", "not a url"}) {
    INFO(url);
    std::string json =
        std::string(R"({"url":"https://x","oauth":{"clientMetadataUrl":")") + url + "\"}}";
    std::string want = "oauth.clientMetadataUrl: must be an https:// URL with a path";
    CHECK(OnlyEntry(json).refusal == want);
  }
  Entry e =
      OnlyEntry(R"({"url":"https://x","oauth":{"clientSecret":"${env:NOPE}","clientId":"a"}})");
  CHECK(e.refusal == "oauth.clientSecret: environment variable NOPE is not set");
}

TEST_CASE("an Authorization header turns OAuth off, in any case", "[config][oauth]") {
  Entry e = OnlyEntry(R"({"url":"https://x","headers":{"authorization":"Bearer abc"}})");
  REQUIRE(e.accepted());
  CHECK_FALSE(e.remote->oauth_allowed);
  CHECK(OnlyEntry(R"({"url":"https://x","headers":{"X-Api-Key":"k"}})").remote->oauth_allowed);
}

TEST_CASE("a changed oauth object makes the entry differ (a reload restarts it)",
          "[config][oauth]") {
  Entry a = OnlyEntry(R"({"url":"https://x","oauth":{"clientId":"a"}})");
  Entry b = OnlyEntry(R"({"url":"https://x","oauth":{"clientId":"b"}})");
  CHECK_FALSE(*a.remote == *b.remote);
  CHECK(*a.remote == *OnlyEntry(R"({"url":"https://x","oauth":{"clientId":"a"}})").remote);
}

}  // namespace
}  // namespace mcpgw::config
