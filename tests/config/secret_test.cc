// Secret never formats its value: operator<< and fmt both print <redacted>.
#include <sstream>

#include <catch2/catch.hpp>

#include "config/secret.h"
#include "config/secret_fmt.h"

namespace mcpgw {
namespace {

TEST_CASE("streaming a Secret prints <redacted>", "[config][secret]") {
  Secret secret("hunter2-value");
  std::ostringstream out;
  out << secret;
  CHECK(out.str() == "<redacted>");
}

TEST_CASE("fmt formatting a Secret prints <redacted>", "[config][secret]") {
  Secret secret("hunter2-value");
  CHECK(fmt::format("{}", secret) == "<redacted>");
  CHECK(fmt::format("token={}!", secret) == "token=<redacted>!");
  CHECK(fmt::format("[{:>12}]", secret) == "[  <redacted>]");
}

TEST_CASE("Reveal gives the value back", "[config][secret]") {
  Secret secret("hunter2-value");
  CHECK(secret.Reveal() == "hunter2-value");
  CHECK_FALSE(secret.empty());
  CHECK(Secret().empty());
}

}  // namespace
}  // namespace mcpgw
