// base/text: sizes, durations and ASCII case.
#include "base/text.h"

#include <catch2/catch.hpp>

namespace mcpgw::base {
namespace {

using namespace std::chrono_literals;

TEST_CASE("sizes read as people write them", "[base][text]") {
  CHECK(DescribeSize(0) == "0 bytes");
  CHECK(DescribeSize(1) == "1 byte");
  CHECK(DescribeSize(100) == "100 bytes");
  CHECK(DescribeSize(1023) == "1023 bytes");
  CHECK(DescribeSize(1024) == "1 KiB");
  CHECK(DescribeSize(1536) == "1.5 KiB");
  CHECK(DescribeSize(16u << 20) == "16 MiB");
  CHECK(DescribeSize(32u << 20) == "32 MiB");
  CHECK(DescribeSize((33u << 20) + (1u << 19)) == "33.5 MiB");
  CHECK(DescribeSize(3ull << 30) == "3 GiB");
}

TEST_CASE("durations read as people write them", "[base][text]") {
  CHECK(DescribeDuration(2min) == "2 min");
  CHECK(DescribeDuration(90s) == "90 s");
  CHECK(DescribeDuration(30s) == "30 s");
  CHECK(DescribeDuration(250ms) == "250 ms");
  CHECK(DescribeDuration(1500ms) == "1500 ms");
  CHECK(DescribeDuration(std::chrono::microseconds(2500)) == "2 ms");
}

TEST_CASE("ASCII case-insensitive comparison", "[base][text]") {
  CHECK(EqualsIgnoreCase("Content-Type", "content-type"));
  CHECK(EqualsIgnoreCase("", ""));
  CHECK_FALSE(EqualsIgnoreCase("Content-Type", "content-typ"));
  CHECK_FALSE(EqualsIgnoreCase("\xC3\xA9", "\xC3\x89"));  // only ASCII folds
  CHECK(StartsWithIgnoreCase("HTTPS://x", "https://"));
  CHECK_FALSE(StartsWithIgnoreCase("http", "https"));
  CHECK(ToLowerAscii("MCP-Session-Id") == "mcp-session-id");
}

TEST_CASE("HTTP tokens are 1*tchar", "[base][text]") {
  CHECK(IsHttpToken("X-Api-Key"));
  CHECK(IsHttpToken("a-b_c.d~e!f#g$h%i&j'k*l+m^n`o|p"));
  CHECK(IsHttpToken("Az09"));
  for (const char* bad : {"", "a b", "a:b", "a\"b", "a\tb", "caf\xC3\xA9", "a(b)", "a/b"}) {
    INFO(bad);
    CHECK_FALSE(IsHttpToken(bad));
  }
  CHECK_FALSE(IsHttpToken(std::string_view("a\0b", 3)));
}

}  // namespace
}  // namespace mcpgw::base
