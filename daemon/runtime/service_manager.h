// What mcpgwd says to, and takes from, a service manager that speaks
// systemd's two small protocols (both documented as stable interfaces, and
// spoken here directly rather than through libsystemd, which would load six
// shared libraries into the daemon for two system calls):
//  - socket activation: the manager opens the listening socket, starts the
//    daemon with it as descriptor 3 and sets LISTEN_PID (the daemon's pid)
//    and LISTEN_FDS (how many descriptors it passed);
//  - readiness notification: the daemon sends "READY=1", "RELOADING=1",
//    "STOPPING=1" as datagrams to the Unix socket named by NOTIFY_SOCKET (a
//    path, or "@name" for the abstract namespace).
// Without a service manager both are nothing: no variable is set.
#pragma once

#include <string_view>

#include "base/status.h"

namespace mcpgw {

// The first descriptor a service manager passes.
inline constexpr int kFirstPassedFd = 3;

// How many descriptors the service manager passed: kFirstPassedFd ..
// kFirstPassedFd + count - 1 (0 without a service manager), or an error when
// LISTEN_FDS was meant for this process and cannot be read. LISTEN_PID,
// LISTEN_FDS and LISTEN_FDNAMES are removed from the environment when they
// were meant for this process, so the programs it starts do not take the
// descriptors for their own.
base::Result<int> TakePassedFds();

// Sends `state` (e.g. "READY=1") to NOTIFY_SOCKET, if it is set. Best effort,
// as a notification is: a manager that does not listen is not an error.
// Returns whether a datagram was sent.
bool NotifyServiceManager(std::string_view state);

}  // namespace mcpgw
