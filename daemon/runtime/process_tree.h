// The resident memory of a process and its descendants, as `mcpgw status`
// shows it for a local server (BEHAVIOR.md §17): one reading of /proc on
// Linux serves every server of one status; macOS tells only of the process
// itself.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace mcpgw {

class ProcessTree {
 public:
  // Which process is whose parent, now.
  static ProcessTree Read();

  // Bytes resident in `pid` and every process descended from it; 0 when
  // `pid` is not running or the system cannot tell.
  uint64_t Rss(pid_t pid) const;

 private:
  std::unordered_map<pid_t, std::vector<pid_t>> children_;
};

}  // namespace mcpgw
