// The subcommand table and each command's usage and handler (see subcommands.h).
#include "client/cli/subcommands.h"

#include <unistd.h>

#include <cerrno>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/api/async_api.h"
#include "client/cli/interrupt.h"
#include "client/cli/learned_view.h"
#include "client/cli/log_view.h"
#include "client/cli/login.h"
#include "client/cli/metrics_view.h"
#include "client/cli/pins_view.h"
#include "client/cli/raw_client.h"
#include "client/stdio/stdio_loop.h"
#include "proto/proto.h"

namespace mcpgw::cli {
namespace {

std::string CheckSeconds(const std::string& text) {
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(d) || d < 0) {
    return "needs a number of seconds, 0 or more (got '" + text + "')";
  }
  return {};
}

// ---- usage: each command's positionals and options --------------------------------------

std::string CheckLimit(const std::string& text) {
  char* end = nullptr;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 1 || n > proto::kMaxToolsLimit) {
    return "needs a number of tools from 1 to " + std::to_string(proto::kMaxToolsLimit) +
           " (got '" + text + "')";
  }
  return {};
}

void ToolsUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "NAMESPACE", &inv.ns, "A server's namespace (with --query: search only it)");
  Positional(app, "TOOL", &inv.tool, "A tool of that server");
  app.add_flag("--json", inv.json,
               "Print the daemon's JSON text even on a terminal (a pipe always gets it)");
  CLI::Option* query = app.add_option_function<std::string>(
      "--query", [&inv](const std::string& text) { inv.query = text; },
      "What you want to do, in words: list the tools of the ready servers that best match it, "
      "best first");
  query->type_name("TEXT");
  CLI::Option* limit = app.add_option_function<int>(
      "--limit", [&inv](int n) { inv.limit = n; },
      "With --query: how many tools to list at most (1 to " +
          std::to_string(proto::kMaxToolsLimit) + ", default " +
          std::to_string(proto::kDefaultToolsLimit) + ")");
  limit->type_name("N")->check(CheckLimit)->needs(query);
  // CLI11 runs this callback before it checks that --limit needs --query, so `--learned
  // --limit 5` gets this message too; the options' counts are set by then.
  app.add_flag_callback(
      "--learned",
      [&inv, query, limit] {
        if (query->count() > 0 || limit->count() > 0) {
          throw CLI::ValidationError(
              "--learned does not go with --query or --limit: it lists the queries tools "
              "learned, it does not search");
        }
        inv.learned = true;
      },
      "List the queries each tool learned: what hosts searched for before calling it (all "
      "tools, NAMESPACE's, or TOOL's); not with --query");
}

std::string CheckBytes(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || n < 0 ||
      static_cast<unsigned long long>(n) > proto::kMaxTextBytesBound) {
    return "needs a number of bytes, 0 (no bound) or more (got '" + text + "')";
  }
  return {};
}

void MaxBytesOption(CLI::App& app, Invocation& inv, const std::string& description) {
  app.add_option_function<long long>(
         "--max-bytes", [&inv](long long n) { inv.max_bytes = n; }, description)
      ->type_name("N")
      ->check(CheckBytes);
}

void CallUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "NAMESPACE", &inv.ns, "The server's namespace")->required();
  Positional(app, "TOOL", &inv.tool, "The tool's name")->required();
  Positional(app, "ARGUMENTS_JSON", &inv.arguments,
             "The arguments as a JSON object (default {}); '-' reads them from stdin");
  MaxBytesOption(app, inv,
                 "Cut a result longer than N bytes and keep the whole text in a file the "
                 "answer names (default: the daemon's results.max_text_bytes, none unless set; "
                 "0: no bound)");
}

void StdioUsage(CLI::App& app, Invocation& inv) {
  MaxBytesOption(app, inv,
                 "Cut results longer than N bytes, keeping the whole text in a file the answer "
                 "names (default: the daemon's results.stdio_max_text_bytes, 100000 unless set; "
                 "0: no bound)");
}

void StatusUsage(CLI::App& app, Invocation& inv) {
  app.add_flag("--json", inv.json, "Print the daemon's status object as JSON");
}

void WaitUsage(CLI::App& app, Invocation& inv) {
  inv.timeout_s = kDefaultWaitTimeoutS;
  app.add_option("--timeout", inv.timeout_s, "Seconds to wait (default 30)")
      ->type_name("SECONDS")
      ->check(CheckSeconds);
}

void LoginUsage(CLI::App& app, Invocation& inv) {
  inv.timeout_s = kDefaultLoginTimeoutS;
  Positional(app, "NAMESPACE", &inv.ns, "The server's namespace")->required();
  app.add_flag("--no-browser", inv.no_browser,
               "Print the URL instead of opening it (for SSH sessions)");
  app.add_option("--timeout", inv.timeout_s, "Seconds to wait for the authorization (default 330)")
      ->type_name("SECONDS")
      ->check(CheckSeconds);
}

void LogoutUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "NAMESPACE", &inv.ns, "The server's namespace")->required();
}

void PinsUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "NAMESPACE", &inv.ns, "One server: list each of its tools and its pin's state");
  app.add_flag("--json", inv.json, "Print the daemon's JSON answer");
}

void DiffUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "NAMESPACE", &inv.ns, "The server's namespace")->required();
  Positional(app, "TOOL", &inv.tool, "One withheld tool (default: every one of the server)");
  app.add_flag("--json", inv.json, "Print the daemon's JSON answer");
}

void ApproveUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "NAMESPACE", &inv.ns, "The server's namespace")->required();
  Positional(app, "TOOL", &inv.tool, "The withheld tool to approve");
  app.add_flag("--all", inv.all, "Approve every withheld tool of the server");
}

void ForgetUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "NAMESPACE", &inv.ns, "Only this server's tools (default: every tool)");
  Positional(app, "TOOL", &inv.tool, "Only this tool of that server");
}

void MetricsUsage(CLI::App&, Invocation&) {}

void LogUsage(CLI::App& app, Invocation& inv) {
  app.add_flag("-f,--follow", inv.follow, "Keep printing calls as they happen (Ctrl-C ends)");
  app.add_option_function<std::string>(
         "--server", [&inv](const std::string& ns) { inv.ns = ns; }, "Only this server's calls")
      ->type_name("NAMESPACE");
  app.add_option_function<std::string>(
         "--tool", [&inv](const std::string& tool) { inv.tool = tool; }, "Only this tool's calls")
      ->type_name("NAME");
  app.add_option_function<std::string>(
         "--since", [&inv](const std::string& since) { inv.since = since; },
         "Only calls of the last DURATION (30s, 10m, 2h, 1d)")
      ->type_name("DURATION");
  app.add_flag("--errors", inv.errors_only, "Only calls that did not end ok");
  app.add_flag("--json", inv.json, "Print the call log's lines as they are (JSON lines)");
}
// import, hosts, doctor and top: their usage and handler are the setup command's when this process
// has them (mcpgw-setup); else cli::Main hands the command line to mcpgw-setup first.
std::span<const SetupCommand> setup_here;

void SetupUsage(std::string_view name, CLI::App& app, Invocation& inv) {
  if (const SetupCommand* here = SetupCommandHere(name)) here->usage(app, inv);
}
void ImportUsage(CLI::App& app, Invocation& inv) { SetupUsage("import", app, inv); }
void HostsUsage(CLI::App& app, Invocation& inv) { SetupUsage("hosts", app, inv); }
void DoctorUsage(CLI::App& app, Invocation& inv) { SetupUsage("doctor", app, inv); }
void TopUsage(CLI::App& app, Invocation& inv) { SetupUsage("top", app, inv); }

// ---- handlers -----------------------------------------------------------------------------

int Tools(const Invocation& inv, Context& c) {
  if (inv.learned) {
    RawClient daemon(inv.socket);
    return RunLearned(daemon, inv, c.io);
  }
  return RunTools(c.api, inv, c.io);
}

// Ctrl-C cancels the call at the daemon: exit 130.
int Call(const Invocation& inv, Context& c) {
  CancelToken cancel;
  InterruptWatcher watcher(&cancel);
  const int code = RunCall(c.api, inv, c.io, &cancel);
  return watcher.interrupted() ? kExitInterrupted : code;
}

int Status(const Invocation& inv, Context& c) { return RunStatus(c.api, inv, c.io); }

int Wait(const Invocation& inv, Context& c) { return RunWait(c.api, inv, c.io, WaitClock::Real()); }

// The MCP server on stdin/stdout. Its calls have no deadline on this side: the daemon owns it.
int Stdio(const Invocation& inv, Context&) {
  LibAsyncDaemonApi api(inv.socket);
  StdioLoop loop(
      api, STDIN_FILENO, STDOUT_FILENO,
      [](const std::string& line) {
        std::fprintf(stderr, "%s\n", line.c_str());
        std::fflush(stderr);
      },
      inv.max_bytes.value_or(MCPGW_MAX_TEXT_STDIO));
  return loop.Run();
}

int Login(const Invocation& inv, Context& c) {
  RawClient auth(inv.socket);
  SystemUrlOpener opener;
  return RunLogin(auth, c.api, inv, c.io, opener, WaitClock::Real());
}

int Logout(const Invocation& inv, Context& c) {
  RawClient auth(inv.socket);
  return RunLogout(auth, inv, c.io);
}

int Pins(const Invocation& inv, Context& c) {
  RawClient daemon(inv.socket);
  return RunPins(daemon, inv, c.io);
}

int Diff(const Invocation& inv, Context& c) {
  RawClient daemon(inv.socket);
  return RunDiff(daemon, inv, c.io);
}

int Approve(const Invocation& inv, Context& c) {
  RawClient daemon(inv.socket);
  return RunApprove(daemon, inv, c.io);
}

int Forget(const Invocation& inv, Context& c) {
  RawClient daemon(inv.socket);
  return RunForget(daemon, inv, c.io);
}

int Metrics(const Invocation& inv, Context& c) {
  RawClient daemon(inv.socket);
  return RunMetrics(daemon, inv, c.io);
}

int Log(const Invocation& inv, Context& c) {
  RawClient daemon(inv.socket);
  return RunLog(daemon, inv, c.io);
}
// Reached only where the setup commands are linked in: elsewhere Main has run mcpgw-setup.
int RunSetup(const Invocation& inv, Context& c) {
  const SetupCommand* here = SetupCommandHere(inv.command->name);
  if (here == nullptr) {
    c.io.err << "mcpgw: " << inv.command->name << " runs in mcpgw-setup\n";
    return 1;
  }
  return here->run(inv, c.io);
}

constexpr Subcommand kSubcommands[] = {
    {"tools", ToolsUsage,
     "Print the get_dynamic_tools answer: all servers, one server's tools, one tool with its "
     "arguments, with --query the tools that best match a task, or with --learned the queries "
     "tools learned; tables on a terminal, the JSON text into a pipe",
     Tools},
    {"call", CallUsage, "Call a server's tool and print the result text", Call},
    {"status", StatusUsage, "Show the daemon and a row per server", Status},
    {"wait", WaitUsage,
     "Wait until the daemon answers and no server is loading (exit 0), else exit 4", Wait},
    {"stdio", StdioUsage,
     "Serve MCP on stdin/stdout with the two gateway tools, bridged to the daemon", Stdio},
    {"login", LoginUsage,
     "Authorize mcpgw for a server that needs a login (OAuth): opens the browser, waits, exit 0 "
     "when the server is ready",
     Login},
    {"logout", LogoutUsage, "Forget a server's OAuth tokens (and revoke them)", Logout},
    {"pins", PinsUsage,
     "Show each server's pinned tool definitions and the tools withheld because they changed",
     Pins},
    {"diff", DiffUsage,
     "Show a withheld tool's pinned and new definitions line by line (added lines marked +)", Diff},
    {"approve", ApproveUsage,
     "Pin a withheld tool's new definition: it is listed again at once, without a reconnect",
     Approve},
    {"forget", ForgetUsage,
     "Forget the search words tools learned from hosts' queries: all, a server's or one tool's",
     Forget},
    {"metrics", MetricsUsage,
     "Print the daemon's metrics in the Prometheus text format (what metrics.listen serves)",
     Metrics},
    {"log", LogUsage,
     "Show the call log as a person reads it: time, host, server/tool, outcome, duration, size; "
     "-f follows it",
     Log},
    {"top", TopUsage,
     "A live view of the daemon and its servers, refreshed every second (q quits); --once prints "
     "one frame, --json one object per refresh",
     RunSetup},
    {"import", ImportUsage,
     "Add the remote servers of the AI hosts' own configs to mcp.json (prints the plan; "
     "--dry-run changes nothing, --move takes them out of the hosts)",
     RunSetup},
    {"hosts", HostsUsage,
     "List the AI hosts found and whether each runs mcpgw; add or remove mcpgw stdio in one",
     RunSetup},
    {"doctor", DoctorUsage,
     "Check the daemon, its socket, the service, the config, every server, every host and the "
     "logins; exit 0 only when all hold",
     RunSetup},
};

}  // namespace

CLI::Option* Positional(CLI::App& app, const std::string& name, std::optional<std::string>* field,
                        const std::string& description) {
  return app.add_option_function<std::string>(
      name, [field](const std::string& value) { *field = value; }, description);
}

std::span<const Subcommand> Subcommands() { return kSubcommands; }

const Subcommand* FindSubcommand(std::string_view name) {
  for (const Subcommand& command : kSubcommands) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

void RunSetupCommandsHere(std::span<const SetupCommand> commands) { setup_here = commands; }

bool IsSetupCommand(std::string_view name) {
  const Subcommand* command = FindSubcommand(name);
  return command != nullptr && command->run == RunSetup;
}

const SetupCommand* SetupCommandHere(std::string_view name) {
  for (const SetupCommand& command : setup_here) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

}  // namespace mcpgw::cli
