// How `mcpgw import`, `mcpgw hosts` and `mcpgw doctor` reach mcpgw-setup, the program that has
// them linked in (subcommands.h says why they live there).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mcpgw::cli {

// Where mcpgw-setup may be for the mcpgw at `self` (an absolute path), in the order tried:
// beside it (a build tree), then the libexec folder an install puts it in
// (MCPGW_SETUP_FROM_BINDIR, relative to the folder of mcpgw, or absolute).
std::vector<std::string> SetupHelperPaths(const std::string& self);

// Replaces this process with mcpgw-setup running the same command line, its argv[0] this
// mcpgw's absolute path (what `hosts add` registers). Returns only when that fails: says why
// on `err` and returns 1.
int ExecSetupHelper(int argc, char** argv, std::ostream& err);

}  // namespace mcpgw::cli
