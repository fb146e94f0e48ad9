#include <libproc.h>

#include "daemon/runtime/process_tree.h"

namespace mcpgw {

uint64_t ProcessTreeRss(pid_t pid) {
  if (pid <= 0) return 0;
  proc_taskinfo info{};
  if (proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, sizeof info) != sizeof info) return 0;
  return info.pti_resident_size;
}

}  // namespace mcpgw
