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
