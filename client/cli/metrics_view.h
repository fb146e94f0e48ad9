// `mcpgw metrics`: prints the daemon's metrics in the Prometheus text format
// (BEHAVIOR.md §15) as the daemon renders them, byte for byte, for a person,
// a script or `promtool check metrics`. One request of the local protocol
// (`metrics`) over a RawClient; tests pass a fake AuthApi.
#pragma once

#include "client/cli/args.h"
#include "client/cli/commands.h"
#include "client/cli/raw_client.h"

namespace mcpgw::cli {

int RunMetrics(AuthApi& api, const Invocation& inv, CommandIo& io);

}  // namespace mcpgw::cli
