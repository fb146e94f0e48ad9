// mcpgwd raises its open-file soft limit to the hard one at start.
#include "daemon/runtime/fd_limit.h"

#include <sys/resource.h>

#include <catch2/catch.hpp>

namespace mcpgw {
namespace {

TEST_CASE("the open-file soft limit is raised to the hard limit", "[runtime]") {
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  REQUIRE(saved.rlim_max >= 256);  // room to lower the soft limit under it
  rlimit low = saved;
  low.rlim_cur = 128;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);

  FdLimit fds;
  CHECK(RaiseFdLimit(&fds).ok());
  CHECK(fds.before == 128);
  CHECK(fds.now == saved.rlim_max);
  rlimit now{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &now) == 0);
  CHECK(now.rlim_cur == saved.rlim_max);

  // At the hard limit already: nothing to do, nothing to say.
  FdLimit again;
  CHECK(RaiseFdLimit(&again).ok());
  CHECK(again.before == again.now);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
}

TEST_CASE("the descriptors the budgets need grow with servers, workers and hosts", "[runtime]") {
  const size_t one = FdsNeeded(1, 1, 64, 64);
  CHECK(FdsNeeded(1001, 1, 64, 64) == one + 2000);
  CHECK(FdsNeeded(1, 3, 64, 64) == one + 128);
  CHECK(FdsNeeded(1, 1, 64, 128) == one + 64);
}

}  // namespace
}  // namespace mcpgw
