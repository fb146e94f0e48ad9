// mcpgw: the command-line client of mcpgwd and its MCP stdio bridge (see docs/CLI.md).
#include "client/cli/cli.h"

int main(int argc, char** argv) { return mcpgw::cli::Main(argc, argv); }
