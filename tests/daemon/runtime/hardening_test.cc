// mcpgwd's process hardening (BEHAVIOR.md §8): after ForbidCoreDumps the process
// makes no core file and is not dumpable. Checked in a child process, so the
// test binary itself stays debuggable.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <catch2/catch.hpp>

#include "daemon/runtime/hardening.h"

namespace mcpgw {
namespace {

TEST_CASE("ForbidCoreDumps leaves no core limit and clears the dumpable flag", "[hardening]") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int failures = 0;
    if (!ForbidCoreDumps().ok()) failures |= 1;
    rlimit core{};
    if (getrlimit(RLIMIT_CORE, &core) != 0 || core.rlim_cur != 0 || core.rlim_max != 0) {
      failures |= 2;
    }
#ifdef __linux__
    if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) failures |= 4;
#endif
    _exit(failures);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  // 1: it reported an error, 2: a core limit is left, 4: still dumpable.
  CHECK(WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace mcpgw
