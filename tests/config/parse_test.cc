// File-level rules of BEHAVIOR.md §2: what makes a whole mcp.json unusable, what
// means "no servers", and how entries map to namespaces.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;

ParseResult P(std::string_view text) { return Parse(text, "/etc/mcp.json", FakeEnv()); }

TEST_CASE("invalid JSON names the file, line:column and the parse error", "[config][parse]") {
  ParseResult r = P("{\n  \"mcpServers\": {\n    \"a\" {}\n  }\n}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind("/etc/mcp.json:3:9: invalid JSON: ", 0) == 0);
  CHECK(r.message().find("colon") != std::string::npos);
}

TEST_CASE("line:column counts characters, not bytes, on the error line", "[config][parse]") {
  ParseResult r = P("{\"é\u00e9\": 1,,}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind("/etc/mcp.json:1:", 0) == 0);
  CHECK(r.message().find(":1:10: ") != std::string::npos);
}

TEST_CASE("trailing garbage after the object is invalid JSON", "[config][parse]") {
  ParseResult r = P("{\"mcpServers\":{}} x");
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind("/etc/mcp.json:1:19: invalid JSON", 0) == 0);
}

TEST_CASE("an empty file is invalid JSON", "[config][parse]") {
  ParseResult r = P("");
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind("/etc/mcp.json:1:1: invalid JSON: ", 0) == 0);
  CHECK(P("  \n ").message().rfind("/etc/mcp.json:2:2: invalid JSON: ", 0) == 0);
}

TEST_CASE("the top level must be an object", "[config][parse]") {
  for (const char* text : {"[]", "null", "\"mcpServers\"", "42", "true"}) {
    ParseResult r = P(text);
    CHECK_FALSE(r.ok());
    CHECK(r.message().rfind("/etc/mcp.json: ", 0) == 0);
    CHECK(r.message().find("top level must be a JSON object") != std::string::npos);
  }
}

TEST_CASE("mcpServers missing means no servers", "[config][parse]") {
  ParseResult r = P("{\"other\": {\"a\": {\"url\": \"http://x\"}}}");
  CHECK(r.ok());
  CHECK(r->entries.empty());
  CHECK(r.message().empty());
}

TEST_CASE("mcpServers null means no servers", "[config][parse]") {
  ParseResult r = P("{\"mcpServers\": null}");
  CHECK(r.ok());
  CHECK(r->entries.empty());
}

TEST_CASE("mcpServers that is not an object makes the file unusable", "[config][parse]") {
  for (const char* text : {"{\"mcpServers\": []}", "{\"mcpServers\": \"a\"}", "{\"mcpServers\": 1}",
                           "{\"mcpServers\": false}"}) {
    ParseResult r = P(text);
    CHECK_FALSE(r.ok());
    CHECK(r.message().rfind("/etc/mcp.json: \"mcpServers\" must be an object (got ", 0) == 0);
  }
}

TEST_CASE("entries keep file order and names exactly as written", "[config][parse]") {
  ParseResult r =
      P("{\"mcpServers\": {\"zeta\": {\"url\": \"http://z\"}, \"\": {\"url\": \"http://e\"},"
        " \"Alpha\": {\"command\": \"x\"}, \"日本語 ☃\": {\"url\": \"http://u\"},"
        " \" pad \": {\"url\": \"http://p\"}}}");
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 5);
  CHECK(r->entries[0].name == "zeta");
  CHECK(r->entries[1].name.empty());
  CHECK(r->entries[1].accepted());
  CHECK(r->entries[2].name == "Alpha");
  CHECK(r->entries[3].name == "日本語 ☃");
  CHECK(r->entries[3].accepted());
  CHECK(r->entries[4].name == " pad ");
}

TEST_CASE("escaped names decode, including an escaped NUL inside a name", "[config][parse]") {
  ParseResult r = P("{\"mcpServers\": {\"a\\u0000b\\n\": {\"url\": \"http://x\"}}}");
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 1);
  CHECK(r->entries[0].name == std::string("a\0b\n", 4));
}

TEST_CASE("a repeated server name keeps the last value at the first position", "[config][parse]") {
  ParseResult r =
      P("{\"mcpServers\": {\"a\": {\"url\": \"http://first\"}, \"b\": {\"url\": \"http://b\"},"
        " \"a\": {\"url\": \"http://last\"}}}");
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 2);
  CHECK(r->entries[0].name == "a");
  REQUIRE(r->entries[0].accepted());
  CHECK(r->entries[0].remote->url_redacted == "http://last");
  CHECK(r->entries[1].name == "b");
}

TEST_CASE("a repeated server name whose last value is bad is refused", "[config][parse]") {
  ParseResult r = P("{\"mcpServers\": {\"a\": {\"url\": \"http://ok\"}, \"a\": {\"command\": 7}}}");
  REQUIRE(r->entries.size() == 1);
  CHECK(r->entries[0].refusal == "command must be a string (got number)");
}

TEST_CASE("a repeated mcpServers key uses the last one", "[config][parse]") {
  ParseResult r = P("{\"mcpServers\": {\"a\": {\"url\": \"http://a\"}}, \"mcpServers\": {}}");
  REQUIRE(r.ok());
  CHECK(r->entries.empty());
}

TEST_CASE("a repeated key inside an entry uses the last one", "[config][parse]") {
  ParseResult r = P("{\"mcpServers\": {\"a\": {\"url\": 5, \"url\": \"http://good\"}}}");
  REQUIRE(r->entries.size() == 1);
  REQUIRE(r->entries[0].accepted());
  CHECK(r->entries[0].remote->url.Reveal() == "http://good");
}

TEST_CASE("one bad entry does not affect the others", "[config][parse]") {
  ParseResult r =
      P("{\"mcpServers\": {\"bad\": 7, \"good\": {\"url\": \"https://h/mcp\"},"
        " \"local\": {\"command\": \"npx\", \"args\": {}}}}");
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 3);
  CHECK_FALSE(r->entries[0].accepted());
  CHECK(r->entries[1].accepted());
  CHECK(r->entries[1].refusal.empty());
  CHECK_FALSE(r->entries[2].accepted());
}

TEST_CASE("unknown top-level fields are ignored", "[config][parse]") {
  ParseResult r =
      P("{\"inputs\": [1, {\"x\": null}], \"mcpServers\": {\"a\": {\"url\": \"http://a\"}}}");
  REQUIRE(r.ok());
  CHECK(r->entries.size() == 1);
}

}  // namespace
}  // namespace mcpgw::config
