// `mcpgw doctor` (docs/SETUP.md, docs/CLI.md): one line per check, ✓ when it holds, ✗ with
// the command that fixes it — the daemon reachable; the socket a host with a stripped
// environment uses (no XDG_RUNTIME_DIR, no MCPGW_SOCKET) reaching the same daemon; the
// service unit installed and enabled; mcp.json and the settings usable; each server's
// state and reason; each local server's command found where the daemon will look for it
// (command_paths.h); each installed host's registration; OAuth logins pending. The daemon's
// answers come through a DaemonProbe, the PATHs through CommandPaths, the rest from files.
// No env or header value is ever printed. Returns 0 only when every check holds, else 1.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "client/setup/command_paths.h"
#include "client/setup/daemon_probe.h"
#include "client/setup/hosts.h"

namespace mcpgw::setup {

struct Check {
  bool ok = false;
  std::string what;  // "daemon: mcpgwd 0.1.0 (pid 42) answers on ..."
  std::string fix;   // when !ok: the command to type, or what to do
};

std::vector<Check> RunChecks(const SetupEnv& env, const DaemonProbe& daemon,
                             const CommandPaths& paths);

// A check per local server (command) of the mcp.json at `config_path` that is not switched
// off: its command is an executable file, found as the daemon finds it (a path as it is,
// relative to the entry's cwd; a bare name in the login shell's PATH, then the service's),
// and its cwd, when it names one, is a folder. None when the file has no local server or
// cannot be read (the config check says why).
std::vector<Check> LocalServerChecks(const std::string& config_path, const SetupEnv& env,
                                     const CommandPaths& paths);

// Prints the checks (✓/✗, then "fix: ..." under a failed one); returns the exit code.
int PrintChecks(const std::vector<Check>& checks, std::ostream& out);

// The service: Linux's systemd user units (installed in a unit folder, mcpgwd.socket or
// mcpgwd.service enabled), macOS's launchd agent. `unit_dirs` are the folders searched
// besides the user's own (~/.config/systemd/user); tests pass their own.
Check ServiceCheck(const SetupEnv& env, const std::vector<std::string>& unit_dirs);

// The folders systemd reads user units from, after the user's own.
std::vector<std::string> SystemUnitDirs();

}  // namespace mcpgw::setup
