#include "client/cli/cli.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "client/api/daemon_api.h"
#include "client/cli/args.h"
#include "client/cli/commands.h"
#include "client/cli/setup_exec.h"
#include "client/cli/status_view.h"
#include "client/cli/subcommands.h"

namespace mcpgw::cli {
namespace {

constexpr size_t kDefaultColumns = 80;

size_t TerminalColumns() {
  struct winsize ws = {};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    const long n = std::strtol(columns, nullptr, 10);
    if (n > 0) return static_cast<size_t>(n);
  }
  return kDefaultColumns;
}

double WallClock() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (const std::optional<std::string> word = FirstWord(args);
      word && IsSetupCommand(*word) && SetupCommandHere(*word) == nullptr) {
    return ExecSetupHelper(argc, argv, std::cerr);
  }
  const base::Result<ParseResult> parsed = ParseArgs(args);
  if (!parsed.ok()) {
    std::cerr << parsed.message();
    return kExitMisuse;
  }
  if (!parsed->invocation) {
    std::cout << parsed->out;
    return 0;
  }
  const Invocation& inv = *parsed->invocation;
  // A closed stdout shows as a failed write, not as a silent death.
  signal(SIGPIPE, SIG_IGN);

  LibDaemonApi api(inv.socket);
  const bool tty = isatty(STDOUT_FILENO) == 1;
  CommandIo io{std::cout, std::cerr, std::cin, tty, false, 0, WallClock};
  io.stdout_is_tty = tty;
  io.color = UseColor(tty, std::getenv("NO_COLOR"), std::getenv("TERM"));
  io.width = tty ? TerminalColumns() : 0;
  io.now_unix = WallClock;

  Context context{api, io};
  return inv.command->run(inv, context);
}

}  // namespace mcpgw::cli
