#include "client/cli/args.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

#include <CLI/CLI.hpp>

#ifndef MCPGW_VERSION
#define MCPGW_VERSION "0.0.0"
#endif

namespace mcpgw::cli {
namespace {

struct Parsed {
  std::string socket;
  std::string ns, tool, arguments;
  bool json = false;
  bool no_browser = false;
  double timeout_s = kDefaultWaitTimeoutS;
  double login_timeout_s = kDefaultLoginTimeoutS;
};

constexpr const char* kCommands[] = {"tools", "call", "status", "wait", "stdio", "login", "logout"};
constexpr const char* kSocketFooter = "--socket PATH may also be given before the command.";

// The first word that is not an option (or --socket's value): the command as typed.
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

bool IsCommand(const std::string& word) {
  for (const char* command : kCommands) {
    if (word == command) return true;
  }
  return false;
}

// Misuse of a command points at that command's help (`mcpgw call --help`).
std::function<std::string(const CLI::App*, const CLI::Error&)> FailureMessage(
    const std::optional<std::string>& command) {
  std::string help = command && IsCommand(*command) ? "mcpgw " + *command + " --help"
                                                    : std::string("mcpgw --help");
  return [help](const CLI::App*, const CLI::Error& e) {
    return "mcpgw: " + std::string(e.what()) + "\nRun '" + help + "' for usage.\n";
  };
}

std::string CheckSeconds(const std::string& text) {
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(d) || d < 0) {
    return "needs a number of seconds, 0 or more (got '" + text + "')";
  }
  return {};
}

}  // namespace

ParseResult ParseArgs(const std::vector<std::string>& args) {
  Parsed p;
  CLI::App app{"Command-line client of the mcpgw daemon, and an MCP server on stdio.", "mcpgw"};
  app.set_version_flag("--version", MCPGW_VERSION);
  app.require_subcommand(1);
  const std::optional<std::string> command = FirstWord(args);
  app.failure_message(FailureMessage(command));
  app.add_option("--socket", p.socket,
                 "Daemon socket (default: $MCPGW_SOCKET, else "
                 "$XDG_RUNTIME_DIR/mcpgw/mcpgw.sock, else /run/user/UID/mcpgw/mcpgw.sock when "
                 "that directory is yours, else /tmp/mcpgw-UID/mcpgw.sock)")
      ->type_name("PATH");

  CLI::App* tools = app.add_subcommand(
      "tools",
      "Print the get_dynamic_tools answer: all servers, one server's tools, or one tool with "
      "its arguments; tables on a terminal, the JSON text into a pipe");
  tools->add_option("NAMESPACE", p.ns, "A server's namespace");
  tools->add_option("TOOL", p.tool, "A tool of that server");
  tools->add_flag("--json", p.json,
                  "Print the daemon's JSON text even on a terminal (a pipe always gets it)");

  CLI::App* call = app.add_subcommand("call", "Call a server's tool and print the result text");
  call->add_option("NAMESPACE", p.ns, "The server's namespace")->required();
  call->add_option("TOOL", p.tool, "The tool's name")->required();
  call->add_option("ARGUMENTS_JSON", p.arguments,
                   "The arguments as a JSON object (default {}); '-' reads them from stdin");

  CLI::App* status = app.add_subcommand("status", "Show the daemon and a row per server");
  status->add_flag("--json", p.json, "Print the daemon's status object as JSON");

  CLI::App* wait = app.add_subcommand(
      "wait", "Wait until the daemon answers and no server is loading (exit 0), else exit 4");
  wait->add_option("--timeout", p.timeout_s, "Seconds to wait (default 30)")
      ->type_name("SECONDS")
      ->check(CheckSeconds);

  CLI::App* stdio = app.add_subcommand(
      "stdio", "Serve MCP on stdin/stdout with the two gateway tools, bridged to the daemon");

  CLI::App* login = app.add_subcommand(
      "login",
      "Authorize mcpgw for a server that needs a login (OAuth): opens the browser, waits, exit 0 "
      "when the server is ready");
  login->add_option("NAMESPACE", p.ns, "The server's namespace")->required();
  login->add_flag("--no-browser", p.no_browser,
                  "Print the URL instead of opening it (for SSH sessions)");
  login
      ->add_option("--timeout", p.login_timeout_s,
                   "Seconds to wait for the authorization (default 330)")
      ->type_name("SECONDS")
      ->check(CheckSeconds);

  CLI::App* logout =
      app.add_subcommand("logout", "Forget a server's OAuth tokens (and revoke them)");
  logout->add_option("NAMESPACE", p.ns, "The server's namespace")->required();

  for (CLI::App* sub : {tools, call, status, wait, stdio, login, logout}) {
    sub->fallthrough();
    sub->footer(kSocketFooter);
  }

  ParseResult result;
  if (command && !IsCommand(*command)) {
    result.exit_code = kExitMisuse;
    result.err = "mcpgw: unknown command '" + *command +
                 "' (commands: tools, call, status, wait, stdio, login, logout)\nRun 'mcpgw "
                 "--help' for usage.\n";
    return result;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    result.out = out.str();
    result.err = err.str();
    result.exit_code = code == 0 ? 0 : kExitMisuse;
    return result;
  }

  Invocation inv;
  inv.socket = p.socket;
  if (tools->parsed()) {
    inv.command = Command::kTools;
  } else if (call->parsed()) {
    inv.command = Command::kCall;
  } else if (status->parsed()) {
    inv.command = Command::kStatus;
  } else if (wait->parsed()) {
    inv.command = Command::kWait;
  } else if (login->parsed()) {
    inv.command = Command::kLogin;
  } else if (logout->parsed()) {
    inv.command = Command::kLogout;
  } else {
    inv.command = Command::kStdio;
  }
  if (tools->count("NAMESPACE") > 0 || call->count("NAMESPACE") > 0 ||
      login->count("NAMESPACE") > 0 || logout->count("NAMESPACE") > 0) {
    inv.ns = p.ns;
  }
  if (tools->count("TOOL") > 0 || call->count("TOOL") > 0) inv.tool = p.tool;
  if (call->count("ARGUMENTS_JSON") > 0) inv.arguments = p.arguments;
  inv.json = p.json;
  inv.no_browser = p.no_browser;
  inv.timeout_s = login->parsed() ? p.login_timeout_s : p.timeout_s;
  if (inv.socket.empty() && app.count("--socket") > 0) {
    result.exit_code = kExitMisuse;
    result.err = "mcpgw: --socket needs a non-empty PATH\n";
    return result;
  }
  result.invocation = inv;
  return result;
}

}  // namespace mcpgw::cli
