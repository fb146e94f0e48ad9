// The resident memory of a process and its descendants, as `mcpgw status`
// shows it for a local server (BEHAVIOR.md §17): read from /proc on Linux;
// macOS tells only of the process itself.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace mcpgw {

// Bytes resident in `pid` and every process descended from it; 0 when `pid`
// is not running or the system cannot tell.
uint64_t ProcessTreeRss(pid_t pid);

}  // namespace mcpgw
