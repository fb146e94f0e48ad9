#include "client/cli/setup_commands.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ostream>
#include <thread>

#include "client/cli/daemon_api.h"
#include "client/cli/hints.h"
#include "client/setup/doctor.h"
#include "client/setup/hosts_run.h"
#include "client/setup/import_run.h"
#include "proto/socket_path.h"

namespace mcpgw::cli {
namespace {

constexpr long kStatusTimeoutMs = 5000;

std::optional<std::string> StatusAt(const std::string& socket, std::string* error) {
  LibDaemonApi api(socket);
  api.SetTimeoutMs(kStatusTimeoutMs);
  ApiResult result = api.Status(nullptr);
  if (result.status != MCPGW_OK) {
    *error = result.text.empty() ? "no answer" : result.text;
    return std::nullopt;
  }
  return result.text;
}

setup::DaemonProbe Probe(const Invocation& inv) {
  setup::DaemonProbe probe;
  const std::string own = proto::ResolveSocketPath(inv.socket);
  probe.status = [own](std::string* error) { return StatusAt(own, error); };
  // A host starts `mcpgw stdio` with neither XDG_RUNTIME_DIR nor, unless its entry says so,
  // MCPGW_SOCKET: the socket it finds is the default without them.
  probe.stripped_status = [](std::string* socket, std::string* error) {
    *socket = proto::DefaultSocketPath(
        [](const char* name) -> const char* {
          const std::string_view n(name);
          if (n == "XDG_RUNTIME_DIR" || n == "MCPGW_SOCKET") return nullptr;
          return std::getenv(name);
        },
        geteuid(), proto::IsUserRuntimeDir);
    return StatusAt(*socket, error);
  };
  probe.sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  probe.reload = [](long pid) { return kill(static_cast<pid_t>(pid), SIGHUP) == 0; };
  return probe;
}

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
    const std::string self = setup::SelfPath();
    if (self.empty()) {
      io.err << "mcpgw: cannot tell where this mcpgw program is\n";
      return 1;
    }
    return setup::RunHostsAdd(host, self, env, io.out);
  }
  return setup::RunHostsRemove(host, env, io.out);
}

int RunDoctorCommand(const Invocation& inv, CommandIo& io) {
  const std::vector<setup::Check> checks = setup::RunChecks(setup::SystemSetupEnv(), Probe(inv));
  const int code = setup::PrintChecks(checks, io.out);
  io.out.flush();
  return code;
}

}  // namespace mcpgw::cli
