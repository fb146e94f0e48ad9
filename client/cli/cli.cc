#include "client/cli/cli.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "client/cli/args.h"
#include "client/cli/async_api.h"
#include "client/cli/commands.h"
#include "client/cli/daemon_api.h"
#include "client/cli/interrupt.h"
#include "client/cli/login.h"
#include "client/cli/status_view.h"
#include "client/stdio/stdio_loop.h"

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

int RunStdio(const std::string& socket) {
  LibAsyncDaemonApi api(socket);
  StdioLoop loop(api, STDIN_FILENO, STDOUT_FILENO, [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  });
  return loop.Run();
}

}  // namespace

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const ParseResult parsed = ParseArgs(args);
  if (!parsed.invocation) {
    std::cout << parsed.out;
    std::cerr << parsed.err;
    return parsed.exit_code;
  }
  const Invocation& inv = *parsed.invocation;
  // A closed stdout shows as a failed write, not as a silent death.
  signal(SIGPIPE, SIG_IGN);

  LibDaemonApi api(inv.socket);
  const bool tty = isatty(STDOUT_FILENO) == 1;
  CommandIo io{std::cout, std::cerr, std::cin, tty, false, 0, WallClock};
  io.stdout_is_tty = tty;
  io.color = UseColor(tty, std::getenv("NO_COLOR"), std::getenv("TERM"));
  io.width = tty ? TerminalColumns() : 0;
  io.now_unix = WallClock;

  switch (inv.command) {
    case Command::kTools:
      return RunTools(api, inv, io);
    case Command::kCall: {
      CancelToken cancel;
      InterruptWatcher watcher(&cancel);
      const int code = RunCall(api, inv, io, &cancel);
      return watcher.interrupted() ? kExitInterrupted : code;
    }
    case Command::kStatus:
      return RunStatus(api, inv, io);
    case Command::kWait:
      return RunWait(api, inv, io, WaitClock::Real());
    case Command::kStdio:
      return RunStdio(inv.socket);
    case Command::kLogin: {
      RawClient auth(inv.socket);
      SystemUrlOpener opener;
      return RunLogin(auth, api, inv, io, opener, WaitClock::Real());
    }
    case Command::kLogout: {
      RawClient auth(inv.socket);
      return RunLogout(auth, inv, io);
    }
  }
  return kExitMisuse;
}

}  // namespace mcpgw::cli
