// Hostile and unusual files: size, depth, encoding. The parser must answer
// every one of them without crashing, and large valid files must parse whole.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "config/document.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;

ParseResult P(std::string_view text) { return Parse(text, "mcp.json", FakeEnv()); }

TEST_CASE("a 5 MB file with 10,000 entries is parsed whole", "[config][limits]") {
  std::string text = "{\"mcpServers\": {";
  const std::string filler(440, 'v');
  for (int i = 0; i < 10000; ++i) {
    if (i > 0) text += ",\n";
    text += "\"server-" + std::to_string(i) + "\": {\"url\": \"https://host-" + std::to_string(i) +
            ".example/mcp\", \"headers\": {\"X-Filler\": \"" + filler + "\"}}";
  }
  text += "}}";
  REQUIRE(text.size() > 5'000'000);
  ParseResult r = P(text);
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 10000);
  CHECK(r->entries[9999].name == "server-9999");
  CHECK(r->entries[9999].accepted());
  CHECK(r->entries[9999].remote->url_redacted == "https://host-9999.example/mcp");
  CHECK(r->secrets.size() == 1);  // the one filler value, deduplicated
}

TEST_CASE("10,000 nested arrays in an unknown field do not crash", "[config][limits]") {
  std::string text =
      "{\"deep\": " + std::string(10000, '[') + std::string(10000, ']') +
      ", \"mcpServers\": {\"a\": {\"url\": \"http://a\", \"x\": " + std::string(10000, '[') +
      std::string(10000, ']') + "}}}";
  ParseResult r = P(text);
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 1);
  CHECK(r->entries[0].accepted());
}

TEST_CASE("1,000,000 unclosed nested arrays are an error, not a crash", "[config][limits]") {
  ParseResult r = P("{\"mcpServers\": " + std::string(1'000'000, '['));
  CHECK_FALSE(r.ok());
  CHECK(r.message().rfind("mcp.json:1:", 0) == 0);
}

TEST_CASE("a text over 64 MiB is refused with a clear error", "[config][limits]") {
  std::string text(kMaxConfigBytes + 1, ' ');
  text[0] = '{';
  text[text.size() - 1] = '}';
  ParseResult r = P(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.message() == "mcp.json: file is too large (67108865 bytes; the limit is 64 MiB)");
}

TEST_CASE("a text of exactly 64 MiB is still parsed", "[config][limits]") {
  std::string text(kMaxConfigBytes, ' ');
  text[0] = '{';
  text[text.size() - 1] = '}';
  CHECK(P(text).ok());
}

TEST_CASE("invalid UTF-8 in a string rejects the file with line:column", "[config][limits]") {
  ParseResult r = P("{\"mcpServers\": {\n\"bad\xC3\x28\": {\"url\": \"http://x\"}}}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind("mcp.json:2:", 0) == 0);
  CHECK(r.message().find("invalid JSON") != std::string::npos);
  CHECK(r.message().find("encoding") != std::string::npos);
}

TEST_CASE("invalid UTF-8 in an unknown field still rejects the file", "[config][limits]") {
  ParseResult r = P("{\"note\": \"\xFF\xFE\", \"mcpServers\": {}}");
  CHECK_FALSE(r.ok());
}

TEST_CASE("an overlong UTF-8 encoding is rejected", "[config][limits]") {
  CHECK_FALSE(P("{\"note\": \"\xC0\xAF\"}").ok());
}

TEST_CASE("a UTF-8 byte order mark at the start is accepted", "[config][limits]") {
  ParseResult r = P("\xEF\xBB\xBF{\"mcpServers\": {\"a\": {\"url\": \"http://a\"}}}");
  REQUIRE(r.ok());
  CHECK(r->entries.size() == 1);
}

TEST_CASE("line:column ignores the byte order mark", "[config][limits]") {
  ParseResult r = P("\xEF\xBB\xBF{,}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind("mcp.json:1:2: ", 0) == 0);
}

TEST_CASE("a byte order mark anywhere else is invalid JSON", "[config][limits]") {
  CHECK_FALSE(P(" \xEF\xBB\xBF{}").ok());
}

TEST_CASE("a raw NUL byte is invalid JSON even after a complete object", "[config][limits]") {
  ParseResult r = P(std::string("{\"mcpServers\": {}}\0{\"x\"", 23));
  REQUIRE_FALSE(r.ok());
  CHECK(r.message() == "mcp.json:1:19: invalid JSON: NUL byte in the text");
  CHECK_FALSE(P(std::string("{\"a\0\": 1}", 9)).ok());
}

TEST_CASE("comments and trailing commas are accepted (JSONC)", "[config][limits]") {
  CHECK(P("{// c\n\"mcpServers\": {}}").ok());
  CHECK(P("{\"mcpServers\": {},}").ok());
  CHECK(P("/* a */ {} // the end, no newline").ok());
  CHECK_FALSE(P("{\"mcpServers\": {},,}").ok());
  CHECK_FALSE(P("{/* unterminated }").ok());
}

}  // namespace
}  // namespace mcpgw::config
