#include <libproc.h>

#include "daemon/runtime/process_tree.h"

namespace mcpgw {

ProcessTree ProcessTree::Read() { return ProcessTree(); }

uint64_t ProcessTree::Rss(pid_t pid) const {
  if (pid <= 0) return 0;
  proc_taskinfo info{};
  if (proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, sizeof info) != sizeof info) return 0;
  return info.pti_resident_size;
}

}  // namespace mcpgw
