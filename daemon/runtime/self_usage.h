// The daemon's own resident memory and CPU time, as `mcpgw status` shows
// them (daemon.rss_bytes, daemon.cpu_s) for `mcpgw top`: read at each
// status, a system call or two, no walk over processes or threads.
#pragma once

#include <cstdint>

namespace mcpgw {

struct SelfUsage {
  uint64_t rss_bytes = 0;  // resident memory now; 0 when the system cannot tell
  double cpu_s = 0;        // user and system CPU seconds of every thread since start
};

SelfUsage ReadSelfUsage();

// The resident bytes alone: /proc/self/statm on Linux, the task's basic
// info on macOS (self_usage_linux.cc, self_usage_macos.cc).
uint64_t SelfResidentBytes();

}  // namespace mcpgw
