// ParseHostLine: one SAX pass gives the DOM and the exact bytes of the id, the cancelled
// request's id and the tool arguments, whatever the spacing and order of the line.
#include "client/stdio/stdio_request.h"

#include <deque>

#include <catch2/catch.hpp>

namespace mcpgw::cli {
namespace {

// Parses a copy of `text` that lives to the end of the test binary: the spans point into it.
const HostLine& Parse(const std::string& text) {
  static std::deque<std::string> kept;
  static std::deque<HostLine> parsed;
  const std::string& line = kept.emplace_back(text);
  HostLine& out = parsed.emplace_back();
  INFO(line);
  REQUIRE(ParseHostLine(line, &out).ok());
  return out;
}

TEST_CASE("stdio request: the tool arguments' bytes, however the line is laid out", "[stdio]") {
  const std::string args = R"({ "s" : "} \" {", "n" :1e-400,"deep":{"arguments":[{}]} })";
  const std::string layouts[] = {
      R"({"params":{"arguments":{"arguments":)" + args + "}}}",
      "{ \"params\" : { \"name\" : \"x\" ,\n \"arguments\" :\t{ \"arguments\" : " + args +
          " , \"toolName\":\"t\" } } , \"id\" : 3 }",
      R"({"id":1,"params":{"arguments":{"namespace":"a","arguments":)" + args + R"(}},"x":[]})",
  };
  for (const std::string& line : layouts) {
    const HostLine& parsed = Parse(line);
    CHECK(parsed.tool_arguments == args);
  }
  CHECK(Parse(R"({"params":{"arguments":{"arguments":{}}}})").tool_arguments == "{}");
}

TEST_CASE("stdio request: arguments elsewhere, or not an object, are not taken", "[stdio]") {
  CHECK(Parse(R"({"arguments":{"arguments":{"a":1}}})").tool_arguments.empty());
  CHECK(Parse(R"({"params":{"arguments":{"x":{"arguments":{"a":1}}}}})").tool_arguments.empty());
  CHECK(Parse(R"({"params":{"arguments":{"arguments":[1]}}})").tool_arguments.empty());
  CHECK(Parse(R"({"params":{"arguments":{"arguments":"{}"}}})").tool_arguments.empty());
  // The first occurrence wins, as it does for the DOM's FindMember().
  CHECK(Parse(R"({"params":{"arguments":{"arguments":[],"arguments":{"a":1}}}})")
            .tool_arguments.empty());
  CHECK(Parse(R"({"params":{"arguments":{"arguments":{"a":1},"arguments":{"b":2}}}})")
            .tool_arguments == R"({"a":1})");
}

TEST_CASE("stdio request: ids as written", "[stdio]") {
  const HostLine& big = Parse(R"({"id" :  12345678901234567890123 ,"method":"ping"})");
  CHECK(big.id == "12345678901234567890123");
  CHECK(IdJson(big.id, big.doc["id"]) == "12345678901234567890123");
  const HostLine& text = Parse(R"({"id":"a\u0062","method":"ping"})");
  CHECK(IdJson(text.id, text.doc["id"]) == R"("ab")");
  const HostLine& cancel =
      Parse(R"({"method":"notifications/cancelled","params":{"requestId": -1.50e2 }})");
  CHECK(cancel.request_id == "-1.50e2");
  CHECK(Parse(R"({"params":{"requestId":1},"id":{"x":1}})").id.empty());
}

TEST_CASE("stdio request: a line that is not JSON says where", "[stdio]") {
  HostLine parsed;
  const base::Status status = ParseHostLine(R"({"id":1,)", &parsed);
  CHECK(status.kind() == base::ErrorKind::kInvalidInput);
  CHECK(status.message().find("(at byte 8)") != std::string::npos);
  CHECK(parsed.id.empty());
  HostLine bad_utf8;
  CHECK(ParseHostLine("{\"a\":\"\xff\"}", &bad_utf8).message() ==
        "Invalid encoding in string. (at byte 6)");
  HostLine late_bad_utf8;  // well-formed up to a truncated sequence at the end
  CHECK(ParseHostLine("{\"id\":1,\"a\":\"ok \xc3\"}", &late_bad_utf8)
            .message()
            .find("Invalid encoding in string.") == 0);
  CHECK(late_bad_utf8.id.empty());
  HostLine good_utf8;
  REQUIRE(ParseHostLine("{\"a\":\"gr\xc3\xbc\xc3\x9f \xf0\x9f\x91\x8b\"}", &good_utf8).ok());
  CHECK(std::string_view(good_utf8.doc["a"].GetString()) == "gr\xc3\xbc\xc3\x9f \xf0\x9f\x91\x8b");
  HostLine deep;
  REQUIRE(ParseHostLine(std::string(600, '[') + std::string(600, ']'), &deep).ok());
  CHECK(deep.depth == 600);
}

TEST_CASE("stdio request: UTF-8 is accepted and refused exactly as the reader's own check does",
          "[stdio]") {
  // Each sequence sits in a string value; the reference is RapidJSON's parse with its
  // byte-by-byte check, which is what every line went through before the faster check.
  const std::string sequences[] = {
      "a",
      "\xc3\xa9",          // U+00E9
      "\xe2\x82\xac",      // U+20AC
      "\xf0\x9f\x98\x80",  // U+1F600
      "\xf4\x8f\xbf\xbf",  // U+10FFFF, the last scalar value
      "\xef\xbb\xbf",      // a byte-order mark inside a string
      "\xc0\xaf",          // overlong '/'
      "\xe0\x80\xaf",      // overlong, three bytes
      "\xf0\x80\x80\xaf",  // overlong, four bytes
      "\xed\xa0\x80",      // U+D800, a surrogate
      "\xed\xbf\xbf",      // U+DFFF
      "\xf4\x90\x80\x80",  // past U+10FFFF
      "\xf5\x80\x80\x80",
      "\xc3",  // truncated
      "\xe2\x82",
      "\x80",  // a continuation byte alone
      "\xfe",
      "\xff",
      "ok \xc3\xa9 then \xc3",
  };
  for (const std::string& seq : sequences) {
    for (const std::string& line :
         {"{\"a\":\"" + seq + "\"}", "{\"id\":1,\"params\":{\"arguments\":{\"arguments\":{\"" +
                                         seq + "\":\"" + seq + "\"}}}}"}) {
      rapidjson::Document reference;
      reference.Parse<rapidjson::kParseValidateEncodingFlag>(line.data(), line.size());
      HostLine parsed;
      INFO(line);
      const base::Status status = ParseHostLine(line, &parsed);
      CHECK(status.ok() == !reference.HasParseError());
      if (reference.HasParseError()) CHECK(status.message().find("Invalid encoding") == 0);
    }
  }
}

}  // namespace
}  // namespace mcpgw::cli
