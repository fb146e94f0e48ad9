// Confinement on macOS (confine.h): no Landlock, so only `limits`; a
// `confine` entry is refused by its gaps (or runs unconfined when the entry
// allows it, with status saying so).
#include <errno.h>
#include <sys/resource.h>

#include "daemon/runtime/confine.h"

namespace mcpgw {

const ConfineSupport& KernelConfineSupport() {
  static const ConfineSupport support = [] {
    ConfineSupport s;
    s.landlock_why = "macOS has no Landlock";
    return s;
  }();
  return support;
}

ConfinePlan PlanConfinement(const config::LocalServer& server, const ConfineContext&,
                            const ConfineSupport&) {
  ConfinePlan plan;
  plan.open_files = server.limits.open_files;
  plan.processes = server.limits.processes;
  return plan;
}

int ApplyConfinement(const ConfinePlan& plan, int* step, int* index) {
  *index = -1;
  *step = kConfineLimit;
  for (auto [resource, value] :
       {std::pair{RLIMIT_NOFILE, plan.open_files}, std::pair{RLIMIT_NPROC, plan.processes}}) {
    if (value == 0) continue;
    const rlimit limit{value, value};
    if (setrlimit(resource, &limit) != 0) return errno;
  }
  return 0;
}

}  // namespace mcpgw
