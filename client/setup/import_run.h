// `mcpgw import [--from HOST ...] [--dry-run] [--move]` (docs/SETUP.md, docs/CLI.md): reads
// the hosts' files, prints the plan (import_plan.h), and unless --dry-run adds the servers
// to mcp.json (a minimal edit, a backup, an atomic write; the file is made 0600, as it holds
// the hosts' literal keys), says whether the running daemon picked the change up, and with
// --move takes the imported entries, remote and local, out of each host's file (a backup
// first), so that each server runs once, in the daemon. Writes to `out`; returns the exit code: 0
// when everything planned was done, 1 when a file could not be read, used or written (it is named,
// and left alone).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "client/setup/daemon_probe.h"
#include "client/setup/hosts.h"
#include "client/setup/import_plan.h"

namespace mcpgw::setup {

struct ImportOptions {
  std::vector<Host> from;  // empty: every host
  bool dry_run = false;
  bool move = false;
  std::string config_path;  // empty: DefaultConfigPath
};

int RunImport(const ImportOptions& options, const SetupEnv& env, const DaemonProbe& daemon,
              std::ostream& out);

// The plan as `mcpgw import` prints it: what was read, what is added (with where it came
// from and why a name changed), what is there already, what is skipped and why, and what
// is left to do. Header and env values never appear (a local server shows its command, the
// number of its arguments and the names of its variables).
void PrintPlan(const ImportPlan& plan, const std::string& config_path, const SetupEnv& env,
               std::ostream& out);

}  // namespace mcpgw::setup
