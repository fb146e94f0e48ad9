// The `mcpgw` subcommands, each listed once in kSubcommands: its name, its usage (the
// arguments and options it declares), its one-line help and its handler. The parser
// (args.cc) builds the help text, the dispatch and the unknown-command error from the table;
// Main (cli.cc) runs the handler of the command parsed. Like ninja's kTools.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "client/api/daemon_api.h"
#include "client/cli/args.h"
#include "client/cli/commands.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace mcpgw::cli {

// What a handler runs with: the daemon through libmcpgw, and the process's terminal.
struct Context {
  DaemonApi& api;
  CommandIo& io;
};

struct Subcommand {
  std::string_view name;
  // Declares the command's positionals and options on `app`, bound into `inv` (whose
  // defaults it sets): what `mcpgw NAME --help` shows as its usage.
  void (*usage)(CLI::App& app, Invocation& inv);
  std::string_view help;  // one line, as `mcpgw --help` lists it
  // Runs the command; returns the process exit code (BEHAVIOR.md §7).
  int (*run)(const Invocation& inv, Context& context);
};

// A positional argument stored in an optional field: set only when given.
CLI::Option* Positional(CLI::App& app, const std::string& name, std::optional<std::string>* field,
                        const std::string& description);

// Every subcommand, in the order `mcpgw --help` lists them.
std::span<const Subcommand> Subcommands();

// The entry named `name`, or nullptr.
const Subcommand* FindSubcommand(std::string_view name);

// import, hosts and doctor read mcp.json and the hosts' files, which takes libcurl (the URLs),
// OpenSSL and toml++, and top draws with ncurses: `mcpgw` runs them in its helper program
// mcpgw-setup (setup_exec.h), so that `mcpgw stdio`, the process every host keeps running,
// loads none of those libraries.
// A program with the commands linked in (mcpgw-setup, the tests) runs them itself.
struct SetupCommand {
  std::string_view name;
  void (*usage)(CLI::App& app, Invocation& inv);
  int (*run)(const Invocation& inv, CommandIo& io);
};

// Makes this process run the setup commands itself (setup_commands.h).
void RunSetupCommandsHere(std::span<const SetupCommand> commands);
// True for import, hosts, doctor and top (the table's entries that RunSetup handles).
bool IsSetupCommand(std::string_view name);
// The setup command `name` when this process runs it itself, else nullptr.
const SetupCommand* SetupCommandHere(std::string_view name);

}  // namespace mcpgw::cli
