// The socket launchd hands mcpgwd on macOS: the agent's plist
// (packaging/launchd/com.mcpgw.mcpgwd.plist) declares a "Listeners" socket,
// launchd listens on it and starts the daemon, and mcpgwd_main asks for it
// once at start-up. Only built on Apple platforms.
#pragma once

namespace mcpgw {

// The listening socket launchd passed as "Listeners", or -1 when the daemon
// was not started by launchd with such a socket. If launchd passes several,
// the first is served and the rest are closed.
int LaunchdListenFd();

}  // namespace mcpgw
