// mcpgwd's two modes, which main() picks from the command line. Check reads
// mcp.json and the settings, prints one line per server and one about the
// settings, and exits. Serve runs the gateway: it reads the same files through
// the same functions, readies the process (logging, hardening, the call log)
// and hands over to a Supervisor until the daemon is stopped. Each returns the
// process exit code (mcpgwd(1) "EXIT STATUS").
#pragma once

#include "daemon/command_line.h"

namespace mcpgw {

int Check(const CommandLine& command_line, const GetEnv& get_env);

// `listen_fd`: a listening socket the service manager passed, or -1.
int Serve(const CommandLine& command_line, const GetEnv& get_env, int listen_fd);

}  // namespace mcpgw
