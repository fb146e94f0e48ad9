// The request digest (daemon/guard/request_digest.h, BEHAVIOR.md §8): the
// same call written differently has one digest; different calls do not.
#include "daemon/guard/request_digest.h"

#include <catch2/catch.hpp>

#include "base/sha256.h"

using mcpgw::CanonicalRequest;
using mcpgw::RequestDigest;

TEST_CASE("digest: the canonical text is namespace, tool and sorted arguments",
          "[request_digest]") {
  CHECK(CanonicalRequest("gh", "create_issue", R"({ "title" : "x", "body":"y" })") ==
        R"({"arguments":{"body":"y","title":"x"},"namespace":"gh","tool":"create_issue"})");
  CHECK(*RequestDigest("gh", "create_issue", R"({"title":"x","body":"y"})") ==
        mcpgw::base::Sha256Hex(
            R"({"arguments":{"body":"y","title":"x"},"namespace":"gh","tool":"create_issue"})"));
}

TEST_CASE("digest: reordered keys and white space at every level give the same digest",
          "[request_digest]") {
  const auto a = RequestDigest("s", "t", R"({"a":1,"b":{"y":[1,2,{"q":true,"p":null}],"x":"z"}})");
  const auto b = RequestDigest("s", "t",
                               "{\n  \"b\": {\"x\": \"z\",\t\"y\": [1, 2, {\"p\": null, \"q\": "
                               "true}]},\r\n  \"a\": 1\n}");
  REQUIRE(a);
  CHECK(a == b);
  // Array order is the caller's meaning: not sorted.
  CHECK(RequestDigest("s", "t", R"({"y":[2,1]})") != RequestDigest("s", "t", R"({"y":[1,2]})"));
}

TEST_CASE("digest: no arguments and {} are the same call", "[request_digest]") {
  CHECK(RequestDigest("s", "t", "{}") == RequestDigest("s", "t", " { } "));
  CHECK(CanonicalRequest("s", "t", "{}") == R"({"arguments":{},"namespace":"s","tool":"t"})");
}

TEST_CASE("digest: numbers a double cannot tell apart are different calls", "[request_digest]") {
  const auto a = RequestDigest("s", "t", R"({"n":123456789012345678901234567890})");
  const auto b = RequestDigest("s", "t", R"({"n":123456789012345678901234567891})");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a != b);
  // Written as sent: digits are not normalised either.
  CHECK(CanonicalRequest("s", "t", R"({"n":1.0})") ==
        R"({"arguments":{"n":1.0},"namespace":"s","tool":"t"})");
  CHECK(RequestDigest("s", "t", R"({"n":1.0})") != RequestDigest("s", "t", R"({"n":1})"));
  // A number and the string of its digits are not the same argument.
  CHECK(RequestDigest("s", "t", R"({"n":1})") != RequestDigest("s", "t", R"({"n":"1"})"));
}

TEST_CASE("digest: the namespace and the tool are part of the call", "[request_digest]") {
  CHECK(RequestDigest("a", "t", "{}") != RequestDigest("b", "t", "{}"));
  CHECK(RequestDigest("a", "t", "{}") != RequestDigest("a", "u", "{}"));
  // A quote in a name cannot forge another call's canonical text.
  CHECK(RequestDigest("a\",\"tool\":\"x", "t", "{}") != RequestDigest("a", "x", "{}"));
}

TEST_CASE("digest: strings are compared by their value, escapes written one way",
          "[request_digest]") {
  CHECK(RequestDigest("s", "t", R"({"k":"\u0041\/"})") == RequestDigest("s", "t", R"({"k":"A/"})"));
  CHECK(RequestDigest("s", "t", R"({"k":"caf\u00e9"})") ==
        RequestDigest("s", "t", "{\"k\":\"caf\xC3\xA9\"}"));
  // Not Unicode-normalised: a decomposed é is another string.
  CHECK(RequestDigest("s", "t", "{\"k\":\"cafe\xCC\x81\"}") !=
        RequestDigest("s", "t", "{\"k\":\"caf\xC3\xA9\"}"));
}

TEST_CASE("digest: arguments that are not one JSON object have none", "[request_digest]") {
  CHECK_FALSE(RequestDigest("s", "t", "[]"));
  CHECK_FALSE(RequestDigest("s", "t", "7"));
  CHECK_FALSE(RequestDigest("s", "t", R"({"a":1} x)"));
  CHECK_FALSE(RequestDigest("s", "t", R"({"a":)"));
  CHECK_FALSE(RequestDigest("s", "t", R"({"a":"\udc00"})"));  // a lone surrogate
  std::string deep(200, '[');
  deep = "{\"a\":" + deep + std::string(200, ']') + "}";
  CHECK_FALSE(RequestDigest("s", "t", deep));
}
