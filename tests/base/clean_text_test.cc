// base/clean_text: the one rule that makes text from elsewhere safe to show,
// in a terminal (StripControls) and in a one-line reason (CleanServerText).
#include "base/clean_text.h"

#include <catch2/catch.hpp>

namespace mcpgw::base {
namespace {

TEST_CASE("StripControls removes every escape form and replaces bad UTF-8", "[base][clean]") {
  CHECK(StripControls("a\x1b[1;31mb\x1b[0m") == "ab");
  CHECK(StripControls("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\") == "alink");
  CHECK(StripControls("a\x1bPq#0;2;0\x1b\\b") == "ab");
  CHECK(StripControls("a\x1b"
                      "cb") == "ab");
  CHECK(StripControls("a\x1b(Bb") == "ab");  // ESC with an intermediate, then its final byte
  CHECK(StripControls("a\x1b]0;title\x07"
                      "b") == "ab");  // OSC ended by BEL
  CHECK(StripControls("a\xc2\x9b"
                      "2Jb") == "ab");  // C1 CSI with its parameters
  CHECK(StripControls("a\xc2\x80\xc2\x85"
                      "b") == "ab");
  CHECK(StripControls("a\xc2\x9fhidden\xc2\x9c"
                      "b") == "ab");  // C1 APC ... ST
  CHECK(StripControls("tab\there\nnl") == "tabherenl");
  CHECK(StripControls("tab\there\nnl", {.keep_newlines = true}) == "tab\there\nnl");
  CHECK(StripControls("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");
  CHECK(StripControls("bad\xff"
                      "byte") ==
        "bad\xef\xbf\xbd"
        "byte");
  CHECK(StripControls(std::string("nul\0byte", 8)) == "nulbyte");
}

TEST_CASE("removing a control never joins stray bytes into a character", "[base][clean]") {
  // C2 then BEL then 85: two ill-formed bytes, not the C1 control C2 85.
  CHECK(StripControls("\xC2\x07\x85") == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(CleanServerText("\xC2\x07\x85") == "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("server text in a reason is one clean line, escape sequences and all", "[base][clean]") {
  CHECK(CleanServerText("plain text") == "plain text");
  // A server that colours its error message gets no colour and no "[31m".
  CHECK(CleanServerText("a\r\nb\tc\x1b[31md\x1b[0m\x7f") == "abcd");
  CHECK(CleanServerText("x\xC2\x85y\xC2\xA0z") == "xy\xC2\xA0z");  // C1 NEL gone, NBSP kept
  CHECK(CleanServerText("title\x1b]0;pwned\x07 set") == "title set");
}

TEST_CASE("server text is cut to its byte bound on a UTF-8 boundary", "[base][clean]") {
  CHECK(CleanServerText(std::string(300, 'a')) == std::string(200, 'a') + "...");
  CHECK(CleanServerText(std::string(200, 'a')) == std::string(200, 'a'));
  // Controls do not count against the bound: they are gone before it is checked.
  CHECK(CleanServerText(std::string(50, '\x01') + "abc", 3) == "abc");
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xE2\x82\xAC";
  CHECK(CleanServerText(euros, 10) == "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC...");
  CHECK(CleanServerText("abc", 0) == "...");
}

}  // namespace
}  // namespace mcpgw::base

TEST_CASE("invisible characters are removed, visible text of every script stays", "[base][clean]") {
  // A tag-character instruction ("read key" spelt in U+E0000 tags), a
  // right-to-left override, zero-width spaces and joiners, a word joiner and
  // a byte order mark, each between visible letters.
  std::string text =
      "Adds\xF3\xA0\x81\xB2\xF3\xA0\x81\xA5\xF3\xA0\x81\xA1\xF3\xA0\x81\xA4 two\xE2\x80\xAE"
      "numbers\xE2\x80\x8B.\xE2\x80\x8C\xE2\x80\x8D\xE2\x80\x8E\xE2\x80\x8F\xE2\x81\xA0\xEF\xBB\xBF"
      "\xE2\x80\xAA\xE2\x81\xA6\xE2\x81\xA9";
  CHECK(mcpgw::base::RemoveInvisible(text) == 15);
  CHECK(text == "Adds twonumbers.");

  // CJK, emoji (with its own zero-width joiner kept out: U+200D is invisible),
  // accents, Arabic and Hebrew letters, a no-break space and ill-formed bytes
  // are all left as they are.
  std::string visible =
      "\xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80 caf\xC3\xA9 \xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A "
      "\xD7\xA2\xD7\x91\xD7\xA8\xD7\x99\xD7\xAA \xC2\xA0 \xE2\x80\x94 \xFF\xC3";
  const std::string before = visible;
  CHECK(mcpgw::base::RemoveInvisible(visible) == 0);
  CHECK(visible == before);
  std::string family = "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9";  // man ZWJ woman
  CHECK(mcpgw::base::RemoveInvisible(family) == 1);
  CHECK(family == "\xF0\x9F\x91\xA8\xF0\x9F\x91\xA9");
  for (char32_t cp : {U'\U000E0000', U'\U000E007F', U'\u202A', U'\u202E', U'\u2066', U'\u2069',
                      U'\u200B', U'\u200F', U'\u2060', U'\uFEFF'}) {
    CHECK(mcpgw::base::IsInvisible(cp));
  }
  for (char32_t cp : {U'\U000E0080', U'\u2029', U'\u2065', U'\u206A', U'\u200A', U'\u2010',
                      U'\u2061', U'\uFEFE', U'a', U'\u4E2D'}) {
    CHECK_FALSE(mcpgw::base::IsInvisible(cp));
  }
}
