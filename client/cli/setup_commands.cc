#include "client/cli/setup_commands.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/platform.h"
#include "client/api/daemon_api.h"
#include "client/cli/hints.h"
#include "client/cli/subcommands.h"
#include "client/cli/top_view.h"
#include "client/setup/doctor.h"
#include "client/setup/hosts.h"
#include "client/setup/hosts_run.h"
#include "client/setup/import_run.h"
#include "proto/socket_path.h"

namespace mcpgw::cli {
namespace {

constexpr long kStatusTimeoutMs = 5000;

base::Result<std::string> StatusAt(const std::string& socket) {
  LibDaemonApi api(socket);
  api.SetTimeoutMs(kStatusTimeoutMs);
  ApiResult result = api.Status(nullptr);
  if (result.status != MCPGW_OK) {
    return base::Status(base::ErrorKind::kUnavailable,
                        result.text.empty() ? "no answer" : result.text);
  }
  return result.text;
}

setup::DaemonProbe Probe(const Invocation& inv) {
  setup::DaemonProbe probe;
  const std::string own = proto::ResolveSocketPath(inv.socket);
  probe.status = [own] { return StatusAt(own); };
  // A host starts `mcpgw stdio` with neither XDG_RUNTIME_DIR nor, unless its entry says so,
  // MCPGW_SOCKET: the socket it finds is the default without them.
  probe.stripped_status = [](std::string* socket) {
    *socket = proto::DefaultSocketPath(
        [](const char* name) -> const char* {
          const std::string_view n(name);
          if (n == "XDG_RUNTIME_DIR" || n == "MCPGW_SOCKET") return nullptr;
          return std::getenv(name);
        },
        geteuid(), proto::IsUserRuntimeDir);
    return StatusAt(*socket);
  };
  probe.sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  probe.reload = [](long pid) { return kill(static_cast<pid_t>(pid), SIGHUP) == 0; };
  return probe;
}

// The mcpgw program `hosts add` registers ("": this one).
std::string& McpgwProgram() {
  static std::string program;
  return program;
}

// The hosts a command may name (docs/SETUP.md).
std::vector<std::string> HostChoices() {
  std::vector<std::string> names;
  for (setup::Host host : setup::AllHosts()) names.emplace_back(setup::HostName(host));
  return names;
}

void ImportUsage(CLI::App& app, Invocation& inv) {
  app.add_option("--from", inv.from,
                 "Read only these hosts (one or more of " + setup::HostNames() + "; default: all)")
      ->type_name("HOST")
      ->check(CLI::IsMember(HostChoices()));
  app.add_flag("--dry-run", inv.dry_run, "Print the plan and change no file");
  app.add_flag("--move", inv.move,
               "Also take the imported entries out of each host's file (a backup first), so the "
               "model sees them only through the gateway");
  app.add_option_function<std::string>(
         "--config", [&inv](const std::string& path) { inv.config = path; },
         "The mcp.json to add to (default: $XDG_CONFIG_HOME/mcpgw/mcp.json, else "
         "~/.config/mcpgw/mcp.json, which mcpgwd serves)")
      ->type_name("FILE");
}

void HostsUsage(CLI::App& app, Invocation& inv) {
  Positional(app, "ACTION", &inv.action,
             "list (the default): each host found and whether it runs mcpgw; add: register "
             "mcpgw stdio in HOST's file; remove: take it out")
      ->check(CLI::IsMember({"list", "add", "remove"}));
  Positional(app, "HOST", &inv.host, "One of " + setup::HostNames())
      ->check(CLI::IsMember(HostChoices()));
}

void NoOptions(CLI::App&, Invocation&) {}

int Misuse(CommandIo& io, const std::string& command, const std::string& message) {
  io.err << "mcpgw: " << message << "\nRun 'mcpgw " << command << " --help' for usage.\n";
  return kExitMisuse;
}

}  // namespace

int RunImportCommand(const Invocation& inv, CommandIo& io) {
  setup::ImportOptions options;
  for (const std::string& name : inv.from) options.from.push_back(*setup::ParseHost(name));
  options.dry_run = inv.dry_run;
  options.move = inv.move;
  options.config_path = inv.config.value_or("");
  if (options.dry_run && options.move) {
    return Misuse(io, "import", "--dry-run and --move together: --dry-run changes no file");
  }
  const int code = setup::RunImport(options, setup::SystemSetupEnv(), Probe(inv), io.out);
  io.out.flush();
  return code;
}

int RunHostsCommand(const Invocation& inv, CommandIo& io) {
  const std::string action = inv.action.value_or("list");
  const setup::SetupEnv env = setup::SystemSetupEnv();
  if (action == "list") {
    if (inv.host) return Misuse(io, "hosts", "hosts list takes no HOST");
    return setup::RunHostsList(env, io.out);
  }
  if (!inv.host)
    return Misuse(io, "hosts", "hosts " + action + " needs a HOST (" + setup::HostNames() + ")");
  const setup::Host host = *setup::ParseHost(*inv.host);
  if (action == "add") {
    const std::string self = McpgwProgram().empty() ? base::ExecutablePath() : McpgwProgram();
    if (self.empty()) {
      io.err << "mcpgw: cannot tell where this mcpgw program is\n";
      return 1;
    }
    return setup::RunHostsAdd(host, self, env, io.out);
  }
  return setup::RunHostsRemove(host, env, io.out);
}

int RunDoctorCommand(const Invocation& inv, CommandIo& io) {
  const setup::SetupEnv env = setup::SystemSetupEnv();
  const std::vector<setup::Check> checks =
      setup::RunChecks(env, Probe(inv), setup::SystemCommandPaths(env));
  const int code = setup::PrintChecks(checks, io.out);
  io.out.flush();
  return code;
}

void UseSetupCommandsHere(std::string mcpgw_program) {
  static constexpr SetupCommand kCommands[] = {
      {"import", ImportUsage, RunImportCommand},
      {"hosts", HostsUsage, RunHostsCommand},
      {"doctor", NoOptions, RunDoctorCommand},
      {"top", TopOptions, RunTopCommand},
  };
  McpgwProgram() = std::move(mcpgw_program);
  RunSetupCommandsHere(kCommands);
}

}  // namespace mcpgw::cli
