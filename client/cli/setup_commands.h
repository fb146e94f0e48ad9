// `mcpgw import`, `mcpgw hosts` and `mcpgw doctor` (docs/SETUP.md): thin commands over
// client/setup/, which reads and edits the hosts' files; here the command line becomes
// options, and the daemon is reached through libmcpgw for the import's reload report and
// the doctor's checks.
#pragma once

#include "client/cli/args.h"
#include "client/cli/commands.h"

namespace mcpgw::cli {

int RunImportCommand(const Invocation& inv, CommandIo& io);
int RunHostsCommand(const Invocation& inv, CommandIo& io);
int RunDoctorCommand(const Invocation& inv, CommandIo& io);

}  // namespace mcpgw::cli
