#include "client/cli/args.h"

#include <functional>
#include <sstream>

#include <CLI/CLI.hpp>

#include "client/cli/subcommands.h"

#ifndef MCPGW_VERSION
#define MCPGW_VERSION "0.0.0"
#endif

namespace mcpgw::cli {
namespace {

constexpr const char* kSocketFooter = "--socket PATH may also be given before the command.";

// Misuse of a command points at that command's help (`mcpgw call --help`).
std::function<std::string(const CLI::App*, const CLI::Error&)> FailureMessage(
    const std::optional<std::string>& command) {
  std::string help = command && FindSubcommand(*command) ? "mcpgw " + *command + " --help"
                                                         : std::string("mcpgw --help");
  return [help](const CLI::App*, const CLI::Error& e) {
    return "mcpgw: " + std::string(e.what()) + "\nRun '" + help + "' for usage.\n";
  };
}

std::string UnknownCommand(const std::string& word) {
  std::string names;
  for (const Subcommand& command : Subcommands()) {
    if (!names.empty()) names += ", ";
    names += command.name;
  }
  return "mcpgw: unknown command '" + word + "' (commands: " + names +
         ")\nRun 'mcpgw --help' for usage.\n";
}

}  // namespace

std::optional<std::string> FirstWord(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--socket") {
      ++i;
      continue;
    }
    if (a == "--") return std::nullopt;
    if (!a.empty() && a[0] == '-') continue;
    return a;
  }
  return std::nullopt;
}

base::Result<ParseResult> ParseArgs(const std::vector<std::string>& args) {
  ParseResult result;
  const std::optional<std::string> command = FirstWord(args);
  if (command && !FindSubcommand(*command)) return base::InvalidInput(UnknownCommand(*command));

  CLI::App app{"Command-line client of the mcpgw daemon, and an MCP server on stdio.", "mcpgw"};
  app.set_version_flag("--version", MCPGW_VERSION);
  app.require_subcommand(1);
  app.failure_message(FailureMessage(command));
  std::string socket;
  app.add_option("--socket", socket,
                 "Daemon socket (default: $MCPGW_SOCKET, else "
                 "$XDG_RUNTIME_DIR/mcpgw/mcpgw.sock, else /run/user/UID/mcpgw/mcpgw.sock when "
                 "that directory is yours, else /tmp/mcpgw-UID/mcpgw.sock; on macOS "
                 "~/Library/Application Support/mcpgw/mcpgw.sock)")
      ->type_name("PATH");
  // One Invocation per command, so each binds its own options and defaults.
  const auto commands = Subcommands();
  std::vector<Invocation> invocations(commands.size());
  std::vector<CLI::App*> apps;
  for (size_t i = 0; i < commands.size(); ++i) {
    CLI::App* sub =
        app.add_subcommand(std::string(commands[i].name), std::string(commands[i].help));
    commands[i].usage(*sub, invocations[i]);
    invocations[i].command = &commands[i];
    sub->fallthrough();
    sub->footer(kSocketFooter);
    apps.push_back(sub);
  }

  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    if (app.exit(e, out, err) != 0) return base::InvalidInput(err.str());
    result.out = out.str();  // --help, --version
    return result;
  }
  if (socket.empty() && app.count("--socket") > 0) {
    return base::InvalidInput("mcpgw: --socket needs a non-empty PATH\n");
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    if (!apps[i]->parsed()) continue;
    result.invocation = std::move(invocations[i]);
    result.invocation->socket = socket;
  }
  return result;
}

}  // namespace mcpgw::cli
