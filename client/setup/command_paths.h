// Where mcpgwd will look for a local server's command (base/command_path.h), as `mcpgw
// doctor` needs to know it: the PATH of the user's login shell, then the daemon's own PATH.
// The daemon runs as a service, so its own PATH is the service manager's, not the
// terminal's: on Linux the systemd user manager's (or the PATH line of mcpgw's environment
// file, which the unit reads), on macOS launchd's. Each is asked for only when mcp.json has
// a local server; tests hand in their own.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "client/setup/hosts.h"

namespace mcpgw::setup {

struct CommandPaths {
  std::function<std::string()> login_path;    // "" when the login shell gave none
  std::function<std::string()> service_path;  // the PATH the service manager gives mcpgwd
};

// The systemd user manager's default PATH, and launchd's.
inline constexpr std::string_view kSystemdUserPath = "/usr/local/bin:/usr/bin:/bin";
inline constexpr std::string_view kLaunchdPath = "/usr/bin:/bin:/usr/sbin:/sbin";

// This machine's: the login shell's PATH (base::LoginShellPath, at most 5 s); on Linux the
// PATH line of $XDG_CONFIG_HOME/mcpgw/environment, else what `systemctl --user
// show-environment` says (when it answers within 2 s), else kSystemdUserPath; on macOS
// kLaunchdPath.
CommandPaths SystemCommandPaths(const SetupEnv& env);

// The value of PATH in `text`, lines of NAME=value (the environment file; the output of
// systemctl show-environment, whose values may be quoted as $'...'); "" when none.
std::string PathLine(std::string_view text);

}  // namespace mcpgw::setup
