// base/status: ok and errors, Result<T>, the kinds' names.
#include "base/status.h"

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace mcpgw::base {
namespace {

Result<int> Half(int n) {
  if (n % 2 != 0) return InvalidInput(std::to_string(n) + " is odd");
  return n / 2;
}

Result<std::string> Greeting(bool ok) {
  if (!ok) return Status(ErrorKind::kDenied, "no greeting");
  return "hello";  // converts to the value type
}

TEST_CASE("status: ok is the default and says nothing", "[base][status]") {
  const Status ok;
  CHECK(ok.ok());
  CHECK(ok.message().empty());
  CHECK(sizeof(Status) == sizeof(void*));  // an ok status is a null pointer
  const Status copy = ok;
  CHECK(copy.ok());
}

TEST_CASE("status: an error keeps its kind and message through copies and moves",
          "[base][status]") {
  Status error(ErrorKind::kTransport, "connection refused");
  CHECK_FALSE(error.ok());
  CHECK(error.kind() == ErrorKind::kTransport);
  CHECK(error.message() == "connection refused");

  Status copy = error;
  CHECK(copy.kind() == ErrorKind::kTransport);
  CHECK(copy.message() == "connection refused");
  CHECK(&copy.message() != &error.message());  // a copy of its own

  Status moved = std::move(error);
  CHECK(moved.message() == "connection refused");

  Status assigned;
  assigned = copy;
  CHECK(assigned.message() == "connection refused");
  assigned = Status();
  CHECK(assigned.ok());
}

TEST_CASE("status: Prefixed puts context before the message", "[base][status]") {
  Status error = NotFound("no such file").Prefixed("settings: ");
  CHECK(error.kind() == ErrorKind::kNotFound);
  CHECK(error.message() == "settings: no such file");
  CHECK(Status().Prefixed("settings: ").ok());
}

TEST_CASE("status: the helpers' kinds and errno's text", "[base][status]") {
  CHECK(InvalidInput("x").kind() == ErrorKind::kInvalidInput);
  CHECK(IoError("x").kind() == ErrorKind::kIo);
  const Status missing = ErrnoError("cannot read /x", ENOENT);
  CHECK(missing.kind() == ErrorKind::kNotFound);
  CHECK(missing.message() == "cannot read /x: No such file or directory");
  CHECK(ErrnoError("cannot write /x", EACCES).kind() == ErrorKind::kIo);
}

TEST_CASE("status: kind names, the first six being the wire's", "[base][status]") {
  CHECK(KindName(ErrorKind::kInvalidRequest) == "invalid_request");
  CHECK(KindName(ErrorKind::kNotReady) == "not_ready");
  CHECK(KindName(ErrorKind::kBackend) == "backend");
  CHECK(KindName(ErrorKind::kTransport) == "transport");
  CHECK(KindName(ErrorKind::kDenied) == "denied");
  CHECK(KindName(ErrorKind::kUnavailable) == "unavailable");
  CHECK(KindName(ErrorKind::kInvalidInput) == "invalid_input");
  CHECK(KindName(ErrorKind::kNotFound) == "not_found");
  CHECK(KindName(ErrorKind::kIo) == "io");
  CHECK(KindName(ErrorKind::kInternal) == "internal");
  CHECK(IsWireKind(ErrorKind::kUnavailable));
  CHECK_FALSE(IsWireKind(ErrorKind::kInvalidInput));
  CHECK_FALSE(IsWireKind(ErrorKind::kInternal));
}

TEST_CASE("result: a value or an error", "[base][status]") {
  Result<int> half = Half(8);
  REQUIRE(half.ok());
  CHECK(*half == 4);
  CHECK(half.value() == 4);
  CHECK(half.status().ok());

  Result<int> odd = Half(7);
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.kind() == ErrorKind::kInvalidInput);
  CHECK(odd.message() == "7 is odd");
  CHECK(odd.status().message() == "7 is odd");

  Result<std::string> hello = Greeting(true);
  REQUIRE(hello.ok());
  CHECK(hello->size() == 5);
  CHECK(*hello == "hello");
  Result<std::string> none = Greeting(false);
  CHECK(none.kind() == ErrorKind::kDenied);
  CHECK(none.value_or("fallback") == "fallback");
  CHECK(Greeting(true).value_or("fallback") == "hello");
  const Status taken = std::move(none).status();
  CHECK(taken.message() == "no greeting");
}

TEST_CASE("result: holds move-only values and gives them up", "[base][status]") {
  Result<std::unique_ptr<int>> owned = std::make_unique<int>(3);
  REQUIRE(owned.ok());
  std::unique_ptr<int> taken = *std::move(owned);
  CHECK(*taken == 3);

  Result<std::vector<int>> list = std::vector<int>{1, 2, 3};
  CHECK(list->size() == 3);
  list->push_back(4);
  CHECK(list.value().back() == 4);
}

}  // namespace
}  // namespace mcpgw::base
