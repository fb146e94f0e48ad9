// `mcpgw top`: a live, full-screen view of the daemon and its servers for a
// terminal (ncurses), refreshed from one status request per interval;
// `--once` prints one frame as plain text, `--json` one JSON object per
// interval. Runs in mcpgw-setup, so that `mcpgw stdio`, which every host keeps
// running, never loads the terminal library. The frames themselves are built by
// top_model.h and top_render.h, without a terminal.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "client/api/daemon_api.h"
#include "client/cli/args.h"
#include "client/cli/commands.h"

namespace mcpgw::cli {

// Its options (--interval, --once, --json).
void TopOptions(CLI::App& app, Invocation& inv);
int RunTopCommand(const Invocation& inv, CommandIo& io);

// Time as `--json` sees it; tests pass their own.
struct TopClock {
  std::function<double()> now_s;     // monotonic seconds
  std::function<double()> now_unix;  // wall clock, Unix seconds
  // Waits `seconds`; false when a signal asks to stop (then `stop_code` is the exit code).
  std::function<bool(double seconds, int* stop_code)> sleep_s;
};

// `--once` (without --json): one frame as plain text, exit 0; the daemon's refusal as
// `mcpgw status` reports it.
int RunTopOnce(DaemonApi& api, const Invocation& inv, CommandIo& io, const TopClock& clock);
// `--json`: a line per interval until a signal or a closed stdout (exit 0); one line with
// `--once`. A daemon that does not answer the first request: as `mcpgw status` reports it.
int RunTopJson(DaemonApi& api, const Invocation& inv, CommandIo& io, const TopClock& clock);

}  // namespace mcpgw::cli
