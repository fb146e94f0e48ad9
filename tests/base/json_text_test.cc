// base/json_text: the one JSON string encoder and the depth scan.
#include "base/json_text.h"

#include <string>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

namespace mcpgw::base {
namespace {

std::string Quoted(std::string_view s) { return JsonString(s); }

// The string `literal` (a JSON string literal) denotes, or "<invalid>".
std::string Unquote(const std::string& literal) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(literal.data(), literal.size());
  if (doc.HasParseError() || !doc.IsString()) return "<invalid>";
  return std::string(doc.GetString(), doc.GetStringLength());
}

TEST_CASE("json text: strings escape quotes, backslashes and control characters", "[base][json]") {
  CHECK(Quoted("plain") == "\"plain\"");
  CHECK(Quoted("a\"b\\c") == R"("a\"b\\c")");
  CHECK(Quoted("\n\t\r\b\f") == R"("\n\t\r\b\f")");
  CHECK(Quoted(std::string_view("\0\x01\x1f", 3)) == R"("\u0000\u0001\u001f")");
  CHECK(Quoted("\x7f") == "\"\x7f\"");
  CHECK(Quoted("") == "\"\"");
}

TEST_CASE("json text: strings escape U+2028 and U+2029", "[base][json]") {
  CHECK(Quoted("a\xE2\x80\xA8"
               "b\xE2\x80\xA9") == R"("a\u2028b\u2029")");
  CHECK(Quoted("\xE2\x80\xA7") == "\"\xE2\x80\xA7\"");  // the neighbour stays as it is
}

TEST_CASE("json text: strings keep valid UTF-8 and replace invalid bytes", "[base][json]") {
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

TEST_CASE("json text: every byte string comes out as a JSON string", "[base][json]") {
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

TEST_CASE("json text: appends", "[base][json]") {
  std::string out = "[";
  AppendJsonString(&out, "x");
  out += ',';
  AppendJsonString(&out, "");
  CHECK(out == "[\"x\",\"\"");
}

}  // namespace
}  // namespace mcpgw::base
