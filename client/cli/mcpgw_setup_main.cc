// mcpgw-setup: runs `mcpgw import`, `mcpgw hosts` and `mcpgw doctor` for mcpgw, which starts it
// with its own absolute path as argv[0] (client/cli/setup_exec.h; docs/CLI.md).
#include "client/cli/cli.h"
#include "client/cli/setup_commands.h"

int main(int argc, char** argv) {
  mcpgw::cli::UseSetupCommandsHere(argc > 0 && argv[0][0] == '/' ? argv[0] : "");
  return mcpgw::cli::Main(argc, argv);
}
