// ChildProcess: the real Child (child.h) on a libuv loop. The daemon forks a
// small keeper, which forks the server into a process group of its own and
// stays beside it: it reaps the server, ends whatever the server left in its
// group, tells the daemon how the server ended, and, when the daemon itself
// is gone (even killed with SIGKILL), stops the group — stdin's end first
// tells the server, then SIGTERM, then SIGKILL (BEHAVIOR.md §17). The keeper
// runs no code but system calls between fork and its end, so forking from a
// threaded daemon is safe.
#pragma once

#include <uv.h>

#include <memory>

#include "base/status.h"
#include "daemon/runtime/child.h"

namespace mcpgw {

// Starts `spec` on `loop` (that loop's thread only). The error is a system
// call's failure (no pipe, no fork); a command that cannot be executed starts
// and ends at once with ChildExit::exec_errno.
base::Result<std::unique_ptr<Child>> SpawnChildProcess(uv_loop_t* loop, const ChildSpec& spec,
                                                       ChildSink* sink);

namespace child_detail {
// What differs between Linux and macOS (child_process_linux.cc,
// child_process_macos.cc). All but MakePipe run in the keeper: system calls
// only.
// A pipe whose two ends are close-on-exec; 0 or -1 with errno.
int MakePipe(int fds[2]);
// Closes every descriptor from `from` up.
void CloseFrom(int from);
// The keeper hears of the daemon's end as soon as the system can tell it.
void KeeperArm();
// Waits until `server` ends (true, its wait status in *status) or the process
// `daemon` is no longer the keeper's parent (false).
bool KeeperWait(pid_t server, pid_t daemon, int* status);
// Waits at most `ms` for `server` to end; true when it did.
bool KeeperWaitFor(pid_t server, int ms);
}  // namespace child_detail

}  // namespace mcpgw
