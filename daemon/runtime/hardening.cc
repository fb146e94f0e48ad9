#include "daemon/runtime/hardening.h"

#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <cstring>

namespace mcpgw {

base::Status ForbidCoreDumps() {
  base::Status error;
  const rlimit none{0, 0};
  if (setrlimit(RLIMIT_CORE, &none) != 0) {
    error = base::ErrnoError("cannot disable core dumps", errno);
  }
#ifdef __linux__
  // Also keeps /proc/PID/mem and ptrace to root; survives until exec.
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    error = base::ErrnoError("cannot clear the dumpable flag", errno);
  }
#endif
  return error;
}

}  // namespace mcpgw
