// base/utf8: the strict decoder every layer shares.
#include "base/utf8.h"

#include <catch2/catch.hpp>

namespace mcpgw::base {
namespace {

TEST_CASE("utf8: well-formed sequences of every length", "[base][utf8]") {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // a é € 😀
  CHECK(IsValidUtf8(text));
  size_t pos = 0;
  CHECK(DecodeUtf8(text, &pos) == U'a');
  CHECK(DecodeUtf8(text, &pos) == U'\u00E9');
  CHECK(DecodeUtf8(text, &pos) == U'\u20AC');
  CHECK(DecodeUtf8(text, &pos) == U'\U0001F600');
  CHECK(pos == text.size());
  CHECK(Utf8Replacing(text) == text);
}

TEST_CASE("utf8: overlongs, surrogates and out-of-range are refused", "[base][utf8]") {
  for (std::string bad : {
           std::string("\xC0\xAF"),          // overlong '/'
           std::string("\xC1\xBF"),          // overlong
           std::string("\xE0\x80\xAF"),      // overlong, 3 bytes
           std::string("\xF0\x80\x80\xAF"),  // overlong, 4 bytes
           std::string("\xED\xA0\x80"),      // U+D800
           std::string("\xED\xBF\xBF"),      // U+DFFF
           std::string("\xF4\x90\x80\x80"),  // U+110000
           std::string("\xF5\x80\x80\x80"),  // no such lead byte
           std::string("\x80"),              // lone continuation
           std::string("\xE2\x82"),          // truncated
       }) {
    INFO(bad.size() << " bytes");
    CHECK_FALSE(IsValidUtf8(bad));
    size_t pos = 0;
    CHECK(DecodeUtf8(bad, &pos) == kReplacementChar);
    CHECK(pos > 0);
  }
  CHECK(IsValidUtf8("\xED\x9F\xBF"));      // U+D7FF, just below the surrogates
  CHECK(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST_CASE("utf8: the valid prefix ends where the first bad sequence starts", "[base][utf8]") {
  const std::string ascii(21, 'a');  // past a few eight-byte words
  CHECK(Utf8ValidPrefix("") == 0);
  CHECK(Utf8ValidPrefix(ascii) == ascii.size());
  CHECK(Utf8ValidPrefix(ascii + "\xC3\xA9" + ascii) == 2 * ascii.size() + 2);
  CHECK(Utf8ValidPrefix(ascii + "\xFF" + ascii) == ascii.size());
  CHECK(Utf8ValidPrefix("abcdefg\xC3") == 7);  // cut short
  CHECK(Utf8ValidPrefix("abcdefgh\xC3\xA9\xED\xA0\x80"
                        "abcdefgh") == 10);  // a surrogate
  // A bad byte in every position of a word is found.
  for (size_t at = 0; at < 16; ++at) {
    std::string text(16, 'x');
    text[at] = '\x80';
    INFO("at " << at);
    CHECK(Utf8ValidPrefix(text) == at);
    CHECK_FALSE(IsValidUtf8(text));
  }
}

TEST_CASE("utf8: one replacement per maximal ill-formed subpart", "[base][utf8]") {
  // The Unicode example: each of these is one subpart, hence one U+FFFD.
  CHECK(Utf8Replacing("a\xE2\x82"
                      "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(Utf8Replacing("\xF0\x9F\x98") == "\xEF\xBF\xBD");
  // Surrogate bytes: the lead byte alone is the subpart, then each trailer.
  CHECK(Utf8Replacing("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(Utf8Replacing("\xFF\xFE") == "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("utf8: encoding code points", "[base][utf8]") {
  std::string out;
  for (char32_t cp : {U'x', U'\u00E9', U'\u20AC', U'\U0001F600'}) AppendUtf8(cp, &out);
  CHECK(out == "x\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  out.clear();
  AppendUtf8(0xD800, &out);
  AppendUtf8(0x110000, &out);
  CHECK(out == "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("utf8: Utf8PrefixWithin does not cut a sequence", "[base][utf8]") {
  const std::string s = "ab\xC3\xA9\xF0\x9F\x98\x80";  // a b é 😀 = 2+2+4 bytes
  CHECK(Utf8PrefixWithin(s, 100) == s.size());
  CHECK(Utf8PrefixWithin(s, 4) == 4);
  CHECK(Utf8PrefixWithin(s, 3) == 2);
  CHECK(Utf8PrefixWithin(s, 7) == 4);
  CHECK(Utf8PrefixWithin(s, 0) == 0);
}

TEST_CASE("utf8: AppendUtf8Replacing", "[base][utf8]") {
  std::string out;
  AppendUtf8Replacing("ok\xC3\xA9\x80z", &out);
  CHECK(out == "ok\xC3\xA9\xEF\xBF\xBDz");
}

}  // namespace
}  // namespace mcpgw::base
