// `mcpgw doctor` (docs/SETUP.md, docs/CLI.md): one line per check, ✓ when it holds, ✗ with
// the command that fixes it — the daemon reachable; the socket a host with a stripped
// environment uses (no XDG_RUNTIME_DIR, no MCPGW_SOCKET) reaching the same daemon; the
// service unit installed and enabled; mcp.json and the settings usable; each server's
// state and reason; each installed host's registration; OAuth logins pending. The daemon's
// answers come through a DaemonProbe, the rest from files. Returns 0 only when every check
// holds, else 1.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "client/setup/daemon_probe.h"
#include "client/setup/hosts.h"

namespace mcpgw::setup {

struct Check {
  bool ok = false;
  std::string what;  // "daemon: mcpgwd 0.1.0 (pid 42) answers on ..."
  std::string fix;   // when !ok: the command to type, or what to do
};

std::vector<Check> RunChecks(const SetupEnv& env, const DaemonProbe& daemon);

// Prints the checks (✓/✗, then "fix: ..." under a failed one); returns the exit code.
int PrintChecks(const std::vector<Check>& checks, std::ostream& out);

// The service: Linux's systemd user units (installed in a unit folder, mcpgwd.socket or
// mcpgwd.service enabled), macOS's launchd agent. `unit_dirs` are the folders searched
// besides the user's own (~/.config/systemd/user); tests pass their own.
Check ServiceCheck(const SetupEnv& env, const std::vector<std::string>& unit_dirs);

// The folders systemd reads user units from, after the user's own.
std::vector<std::string> SystemUnitDirs();

}  // namespace mcpgw::setup
