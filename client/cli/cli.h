// Entry point of the `mcpgw` program: parses the command line, opens libmcpgw and runs one
// command with the process's real terminal, clock and signals. mcpgw_main.cc only calls Main.
#pragma once

namespace mcpgw::cli {

int Main(int argc, char** argv);

}  // namespace mcpgw::cli
