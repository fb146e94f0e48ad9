#include "daemon/mcp/bounded_json.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

namespace mcpgw::mcp {
namespace {

bool Parse(std::string_view text, std::string* error = nullptr, JsonLimits limits = {}) {
  rapidjson::Document doc;
  std::string e;
  const bool ok = ParseBoundedJson(text, limits, doc, e);
  if (error) *error = e;
  if (ok) CHECK(e.empty());
  return ok;
}

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// Parses `text` with default limits and serialises it again.
std::string RoundTrip(std::string_view text) {
  rapidjson::Document doc;
  std::string error;
  REQUIRE(ParseBoundedJson(text, {}, doc, error));
  return ToCompactJson(doc);
}

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

// The string `literal` (a JSON string literal) denotes, or "<invalid>".
std::string Unquote(const std::string& literal) {
  rapidjson::Document doc;
  std::string error;
  if (!ParseBoundedJson(literal, {}, doc, error) || !doc.IsString()) return "<invalid>";
  return std::string(doc.GetString(), doc.GetStringLength());
}

TEST_CASE("json: a valid message parses into the document", "[json]") {
  rapidjson::Document doc;
  std::string error;
  REQUIRE(ParseBoundedJson(R"( {"jsonrpc":"2.0","id":1,"result":{"x":[1,2.5,"s",null,true]}} )", {},
                           doc, error));
  CHECK(doc["id"].GetInt() == 1);
  CHECK(doc["result"]["x"][1].GetDouble() == 2.5);
  CHECK(doc["result"]["x"][2].GetString() == std::string("s"));
}

TEST_CASE("json: the byte bound is checked before parsing", "[json]") {
  JsonLimits limits;
  limits.max_bytes = 10;
  std::string error;
  CHECK(Parse("[1,2,3,44]", &error, limits));  // exactly 10 bytes
  CHECK_FALSE(Parse("[1,2,3,444]", &error, limits));
  CHECK(error == "response exceeds 10 bytes");
  // Too big is reported even when the text is not JSON at all.
  CHECK_FALSE(Parse(std::string(11, '@'), &error, limits));
  CHECK(error == "response exceeds 10 bytes");
}

TEST_CASE("json: the byte bound reads in MiB or KiB when it is a whole number of them", "[json]") {
  std::string error;
  JsonLimits limits;
  limits.max_bytes = 16u << 20;
  CHECK_FALSE(Parse(std::string((16u << 20) + 1, ' '), &error, limits));
  CHECK(error == "response exceeds 16 MiB");
  limits.max_bytes = 4096;
  CHECK_FALSE(Parse(std::string(4097, ' '), &error, limits));
  CHECK(error == "response exceeds 4 KiB");
}

TEST_CASE("json: nesting exactly at the depth bound passes, one deeper fails", "[json]") {
  JsonLimits limits;
  limits.max_depth = 5;
  std::string error;
  CHECK(Parse(Nested(5), &error, limits));
  CHECK_FALSE(Parse(Nested(6), &error, limits));
  CHECK(error == "JSON nested deeper than 5");
  CHECK(Parse(R"({"a":{"b":{"c":{"d":{"e":1}}}}})", &error, limits));
  CHECK_FALSE(Parse(R"({"a":{"b":{"c":{"d":{"e":[]}}}}})", &error, limits));
  CHECK(error == "JSON nested deeper than 5");
  // Siblings do not add up: depth is nesting, not count.
  CHECK(Parse("[" + Nested(4) + "," + Nested(4) + "," + Nested(4) + "]", &error, limits));
}

TEST_CASE("json: 100,000 levels of nesting fail cleanly", "[json]") {
  std::string error;
  CHECK_FALSE(Parse(Nested(100000), &error));
  CHECK(error == "JSON nested deeper than 128");
  // Unclosed, as a hostile server would send it.
  CHECK_FALSE(Parse(std::string(100000, '['), &error));
  CHECK(error == "JSON nested deeper than 128");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  CHECK_FALSE(Parse(objects, &error));
  CHECK(error == "JSON nested deeper than 128");
}

TEST_CASE("json: the default depth bound is 128", "[json]") {
  CHECK(Parse(Nested(128)));
  CHECK_FALSE(Parse(Nested(129)));
}

TEST_CASE("json: syntax errors give the offset and a reason", "[json]") {
  std::string error;
  CHECK_FALSE(Parse(R"({"a":1 "b":2})", &error));
  CHECK(error.rfind("invalid JSON at offset 7: ", 0) == 0);
  CHECK_FALSE(Parse("", &error));
  CHECK(error.rfind("invalid JSON at offset 0: ", 0) == 0);
  CHECK_FALSE(Parse("[1,]", &error));
  CHECK_FALSE(Parse("{'a':1}", &error));
  CHECK_FALSE(Parse("NaN", &error));
  CHECK_FALSE(Parse("[Infinity]", &error));
}

TEST_CASE("json: trailing garbage is refused, trailing whitespace is not", "[json]") {
  std::string error;
  CHECK(Parse("{} \r\n\t"));
  CHECK_FALSE(Parse("{}x", &error));
  CHECK_FALSE(Parse("{}{}", &error));
  CHECK_FALSE(Parse("1 2", &error));
  // A NUL byte does not end the input early.
  CHECK_FALSE(Parse(std::string_view("{}\0{\"evil\":1}", 13), &error));
  CHECK(error.rfind("invalid JSON at offset 2: ", 0) == 0);
  CHECK_FALSE(Parse(std::string_view("{\"a\":\"x\0\"}", 10), &error));
}

TEST_CASE("json: invalid UTF-8 is refused", "[json]") {
  std::string error;
  CHECK(Parse("\"caf\xC3\xA9 \xF0\x9F\x98\x80\""));
  CHECK_FALSE(Parse("\"\xFF\"", &error));
  CHECK_FALSE(Parse("\"\xC3\"", &error));          // truncated sequence
  CHECK_FALSE(Parse("\"\xC0\xAF\"", &error));      // overlong
  CHECK_FALSE(Parse("\"\xED\xA0\x80\"", &error));  // raw surrogate
  CHECK_FALSE(Parse("{\"\xFE\":1}", &error));      // in a key
}

TEST_CASE("json: escaped surrogates must pair", "[json]") {
  rapidjson::Document doc;
  std::string error;
  REQUIRE(ParseBoundedJson(R"("\ud83d\ude00")", {}, doc, error));
  CHECK(std::string(doc.GetString()) == "\xF0\x9F\x98\x80");
  CHECK_FALSE(Parse(R"("\ud83d")", &error));
  CHECK_FALSE(Parse(R"("\ude00")", &error));
  CHECK(error.find("surrogate") != std::string::npos);
  CHECK_FALSE(Parse(R"({"\udc00x":1})", &error));
}

TEST_CASE("json: numbers read exactly and keep their integer types", "[json]") {
  rapidjson::Document doc;
  std::string error;
  REQUIRE(
      ParseBoundedJson("[0e300,1e-400,-1e-400,2.2250738585072011e-308,0.1,1.7976931348623157e308,"
                       "-2147483648,-2147483649,4294967295,4294967296,18446744073709551616,-0,"
                       "0.00000000000000000000000000000000000000000000000001e300]",
                       {}, doc, error));
  CHECK(doc[0].IsDouble());
  CHECK(doc[0].GetDouble() == 0.0);
  CHECK(doc[1].GetDouble() == 0.0);  // too small for a double: zero
  CHECK(std::signbit(doc[2].GetDouble()));
  CHECK(doc[3].GetDouble() == 2.2250738585072011e-308);
  CHECK(doc[4].GetDouble() == 0.1);
  CHECK(doc[5].GetDouble() == 1.7976931348623157e308);
  CHECK(doc[6].IsInt());
  CHECK(doc[6].GetInt() == INT32_MIN);
  CHECK((doc[7].IsInt64() && !doc[7].IsInt()));
  CHECK(doc[8].IsUint());
  CHECK((doc[9].IsUint64() && !doc[9].IsUint()));
  CHECK(doc[10].IsDouble());
  CHECK(doc[10].GetDouble() == 18446744073709551616.0);
  CHECK(doc[11].IsInt());
  CHECK(doc[12].GetDouble() == 1e250);
}

TEST_CASE("json: numbers too big for a double are refused", "[json]") {
  std::string error;
  CHECK_FALSE(Parse("[1e309]", &error));
  CHECK(error.find("Number too big") != std::string::npos);
  CHECK_FALSE(Parse("1.7976931348623159e308", &error));
  CHECK(error.find("Number too big") != std::string::npos);
  CHECK_FALSE(Parse("-1e3092233720368", &error));
}

TEST_CASE("json: a failed parse leaves a null document", "[json]") {
  rapidjson::Document doc;
  doc.SetObject();
  std::string error;
  CHECK_FALSE(ParseBoundedJson("[1,", {}, doc, error));
  CHECK(doc.IsNull());
}

TEST_CASE("json: compact serialisation", "[json]") {
  CHECK(RoundTrip(R"( { "a" : [ 1 , -2 , 3.25 , true , false , null ] , "b" : { } } )") ==
        R"({"a":[1,-2,3.25,true,false,null],"b":{}})");
  CHECK(RoundTrip("[18446744073709551615,-9223372036854775808,4294967296]") ==
        "[18446744073709551615,-9223372036854775808,4294967296]");
  CHECK(RoundTrip("[1.0,1e300,-0.0,0.1]") == "[1.0,1e+300,-0.0,0.1]");
  CHECK(RoundTrip(R"({"k\"ey":"line\nbreak"})") == R"({"k\"ey":"line\nbreak"})");
  // Member order is kept.
  CHECK(RoundTrip(R"({"z":1,"a":2})") == R"({"z":1,"a":2})");
}

TEST_CASE("json: compact serialisation reparses to the same text", "[json]") {
  const std::string once =
      RoundTrip(R"({"s":"\u0001\u2028\ud83d\ude00","n":[1.5e-7,12345678901234]})");
  CHECK(RoundTrip(once) == once);
}

TEST_CASE("json: AppendCompactJson stops past its bound", "[json]") {
  rapidjson::Document doc;
  std::string error;
  REQUIRE(ParseBoundedJson(R"({"a":"0123456789"})", {}, doc, error));  // 18 bytes
  std::string out;
  CHECK(AppendCompactJson(out, doc, 18));
  CHECK(out == R"({"a":"0123456789"})");
  out.clear();
  CHECK_FALSE(AppendCompactJson(out, doc, 17));
}

TEST_CASE("json: strings escape quotes, backslashes and control characters", "[json]") {
  CHECK(Quoted("plain") == "\"plain\"");
  CHECK(Quoted("a\"b\\c") == R"("a\"b\\c")");
  CHECK(Quoted("\n\t\r\b\f") == R"("\n\t\r\b\f")");
  CHECK(Quoted(std::string_view("\0\x01\x1f", 3)) == R"("\u0000\u0001\u001f")");
  CHECK(Quoted("\x7f") == "\"\x7f\"");
  CHECK(Quoted("") == "\"\"");
}

TEST_CASE("json: strings escape U+2028 and U+2029", "[json]") {
  CHECK(Quoted("a\xE2\x80\xA8"
               "b\xE2\x80\xA9") == R"("a\u2028b\u2029")");
  CHECK(Quoted("\xE2\x80\xA7") == "\"\xE2\x80\xA7\"");  // the neighbour stays as it is
}

TEST_CASE("json: strings keep valid UTF-8 and replace invalid bytes", "[json]") {
  CHECK(Quoted("caf\xC3\xA9 \xF0\x9F\x98\x80") == "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  CHECK(Quoted("a\xFF"
               "b") ==
        "\"a\xEF\xBF\xBD"
        "b\"");
  CHECK(Quoted("\xC3") == "\"\xEF\xBF\xBD\"");  // truncated at the end
  CHECK(Quoted("\xE2\x82"
               "x") == "\"\xEF\xBF\xBDx\"");  // one U+FFFD per maximal subpart
  CHECK(Quoted("\xED\xA0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // surrogate
  CHECK(Quoted("\xF4\x90\x80\x80") ==
        "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // past U+10FFFF
}

TEST_CASE("json: every byte string comes out as a JSON string", "[json]") {
  // Every two-byte string, and each between two quotes and a backslash.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const char raw[] = {static_cast<char>(a), static_cast<char>(b), '\\', '"'};
      const std::string literal = Quoted(std::string_view(raw, 4));
      const std::string back = Unquote(literal);
      if (back == "<invalid>") FAIL("not a JSON string: " << a << "," << b);
      CHECK(back.substr(back.size() - 2) == "\\\"");
    }
  }
}

TEST_CASE("json: Utf8PrefixWithin does not cut a sequence", "[json]") {
  const std::string s = "ab\xC3\xA9\xF0\x9F\x98\x80";  // a b é 😀 = 2+2+4 bytes
  CHECK(Utf8PrefixWithin(s, 100) == s.size());
  CHECK(Utf8PrefixWithin(s, 4) == 4);
  CHECK(Utf8PrefixWithin(s, 3) == 2);
  CHECK(Utf8PrefixWithin(s, 7) == 4);
  CHECK(Utf8PrefixWithin(s, 0) == 0);
}

TEST_CASE("json: AppendUtf8Replacing", "[json]") {
  std::string out;
  AppendUtf8Replacing(out, "ok\xC3\xA9\x80z");
  CHECK(out == "ok\xC3\xA9\xEF\xBF\xBDz");
}

}  // namespace
}  // namespace mcpgw::mcp
