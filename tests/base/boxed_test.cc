// Boxed: an optional on the heap, read, assigned and compared like one.
#include "base/boxed.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

namespace mcpgw::base {
namespace {

TEST_CASE("boxed: empty until assigned, then holds the value", "[boxed]") {
  Boxed<std::string> b;
  CHECK_FALSE(b);
  CHECK_FALSE(b.has_value());
  CHECK(sizeof(b) == sizeof(void*));
  b = std::string("tokens");
  REQUIRE(b);
  CHECK(*b == "tokens");
  CHECK(b->size() == 6);
  b.reset();
  CHECK_FALSE(b);
}

TEST_CASE("boxed: assigned from an optional, empty or not", "[boxed]") {
  Boxed<std::string> b;
  b = std::optional<std::string>("x");
  REQUIRE(b);
  CHECK(*b == "x");
  b = std::optional<std::string>();
  CHECK_FALSE(b);
}

TEST_CASE("boxed: compares with an optional as an optional would", "[boxed]") {
  Boxed<std::string> b;
  CHECK(b == std::optional<std::string>());
  CHECK_FALSE(b == std::optional<std::string>("a"));
  b = std::string("a");
  CHECK(b == std::optional<std::string>("a"));
  CHECK_FALSE(b == std::optional<std::string>("b"));
  CHECK_FALSE(b == std::optional<std::string>());
}

TEST_CASE("boxed: a copy holds its own value", "[boxed]") {
  Boxed<std::string> a;
  a = std::string("one");
  Boxed<std::string> b = a;
  *b = "two";
  CHECK(*a == "one");
  CHECK(*b == "two");
  Boxed<std::string> c = std::move(b);
  CHECK(*c == "two");
}

}  // namespace
}  // namespace mcpgw::base
