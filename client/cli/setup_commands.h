// `mcpgw import`, `mcpgw hosts` and `mcpgw doctor` (docs/SETUP.md): thin commands over
// client/setup/, which reads and edits the hosts' files; here the command line becomes
// options, and the daemon is reached through libmcpgw for the import's reload report and
// the doctor's checks. They are linked into mcpgw-setup (and the tests), not into mcpgw:
// subcommands.h says why.
#pragma once

#include <string>

#include "client/cli/args.h"
#include "client/cli/commands.h"

namespace mcpgw::cli {

// Makes this process run import, hosts, doctor and top itself; `mcpgw_program` is the mcpgw that
// `hosts add` registers in a host's file ("": this program).
void UseSetupCommandsHere(std::string mcpgw_program);

int RunImportCommand(const Invocation& inv, CommandIo& io);
int RunHostsCommand(const Invocation& inv, CommandIo& io);
int RunDoctorCommand(const Invocation& inv, CommandIo& io);

}  // namespace mcpgw::cli
