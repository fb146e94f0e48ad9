// Configured headers (BEHAVIOR.md §2): names are HTTP tokens, values are strings
// without CR/LF/NUL, client-owned and duplicate names are refused.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "config/headers.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;
using testing::OnlyEntry;

Entry WithHeaders(std::string_view headers_json) {
  return OnlyEntry("{\"url\": \"https://h/mcp\", \"headers\": " + std::string(headers_json) + "}");
}

TEST_CASE("headers are kept in order with their values", "[config][headers]") {
  Entry e =
      WithHeaders("{\"Authorization\": \"Bearer abc\", \"X-Api-Key\": \"k\", \"x-empty\": \"\"}");
  REQUIRE(e.accepted());
  REQUIRE(e.remote->headers.size() == 3);
  CHECK(e.remote->headers[0].name == "Authorization");
  CHECK(e.remote->headers[0].value.Reveal() == "Bearer abc");
  CHECK(e.remote->headers[1].name == "X-Api-Key");
  CHECK(e.remote->headers[2].value.Reveal().empty());
}

TEST_CASE("headers null or absent means no headers", "[config][headers]") {
  Entry e = WithHeaders("null");
  REQUIRE(e.accepted());
  CHECK(e.remote->headers.empty());
}

TEST_CASE("headers that is not an object is refused", "[config][headers]") {
  for (const char* json : {"[]", "\"Authorization: x\"", "1", "true"}) {
    Entry e = WithHeaders(json);
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal.rfind("\"headers\" must be an object (got ", 0) == 0);
  }
}

TEST_CASE("a header value that is not a string is refused naming the key", "[config][headers]") {
  for (const char* json : {"1", "null", "[\"a\"]", "{}", "true"}) {
    Entry e = WithHeaders(std::string("{\"X-Count\": ") + json + "}");
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal.rfind("headers.X-Count: value must be a string (got ", 0) == 0);
  }
}

TEST_CASE("a header name that is not an HTTP token is refused", "[config][headers]") {
  CHECK(WithHeaders("{\"X Y\": \"v\"}").refusal == "headers.\"X Y\": not a valid HTTP header name");
  CHECK(WithHeaders("{\"\": \"v\"}").refusal == "headers.\"\": not a valid HTTP header name");
  CHECK(WithHeaders("{\"X:Y\": \"v\"}").refusal == "headers.\"X:Y\": not a valid HTTP header name");
  CHECK(WithHeaders("{\"X\\nY\": \"v\"}").refusal ==
        "headers.\"X\\nY\": not a valid HTTP header name");
  for (const char* name : {"a(b", "a/b", "é", "a@b", "[x]", "a=b", "a;b", "a,b", "a{b"}) {
    INFO(name);
    CHECK_FALSE(WithHeaders(std::string("{\"") + name + "\": \"v\"}").accepted());
  }
}

TEST_CASE("every tchar is accepted in a header name", "[config][headers]") {
  CHECK(WithHeaders("{\"Az09!#$%&'*+-.^_`|~\": \"v\"}").accepted());
}

TEST_CASE("client-owned headers are refused in any case, naming the key as written",
          "[config][headers]") {
  for (const char* name :
       {"Accept", "accept", "ACCEPT", "Mcp-Session-Id", "mcp-session-id", "Last-Event-Id",
        "last-event-ID", "MCP-Protocol-Version", "mcp-protocol-version", "Mcp-Method", "MCP-NAME",
        "Mcp-Param-Region", "mcp-param-", "MCP-PARAM-X"}) {
    INFO(name);
    Entry e = WithHeaders(std::string("{\"") + name + "\": \"v\"}");
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal == std::string("headers.") + name +
                           ": the client sets this header; it cannot be configured");
  }
  CHECK(WithHeaders("{\"Accept-Language\": \"en\"}").accepted());
  CHECK(WithHeaders("{\"Mcp-Params\": \"v\", \"X-Mcp-Method\": \"v\"}").accepted());
}

TEST_CASE("duplicate header names are refused case-insensitively", "[config][headers]") {
  Entry e = WithHeaders("{\"X-Key\": \"a\", \"x-key\": \"b\"}");
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal == "headers.x-key: duplicate header name (names are case-insensitive)");
  CHECK(WithHeaders("{\"X-Key\": \"a\", \"X-Key\": \"a\"}").refusal ==
        "headers.X-Key: duplicate header name (names are case-insensitive)");
}

TEST_CASE("a header value with CR, LF or NUL is refused", "[config][headers]") {
  for (const char* value : {"a\\rb", "a\\nX-Injected: 1", "a\\u0000b", "\\r\\n"}) {
    INFO(value);
    Entry e = WithHeaders(std::string("{\"X-Key\": \"") + value + "\"}");
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal == "headers.X-Key: value contains CR, LF or NUL");
  }
  CHECK(WithHeaders("{\"X-Key\": \"tab\\tis fine\"}").accepted());
}

TEST_CASE("CR/LF coming from the environment is refused too", "[config][headers]") {
  Entry e = OnlyEntry(
      "{\"url\": \"https://h\", \"headers\": {\"Authorization\": \"Bearer ${env:TOKEN}\"}}",
      FakeEnv({{"TOKEN", "abc\r\nX-Evil: 1"}}));
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal == "headers.Authorization: value contains CR, LF or NUL");
}

}  // namespace
}  // namespace mcpgw::config
