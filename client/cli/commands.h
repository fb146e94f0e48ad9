// The `mcpgw` subcommands other than stdio: each runs against a DaemonApi, writes results to
// `out` and errors (prefixed "mcpgw: ") to `err`, and returns the process exit code of BEHAVIOR.md
// §7. Terminal facts and the clock come in through CommandIo so tests control them.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "base/status.h"
#include "client/api/daemon_api.h"
#include "client/cli/args.h"

namespace mcpgw::cli {

struct CommandIo {
  std::ostream& out;
  std::ostream& err;
  std::istream& in;
  bool stdout_is_tty = false;
  bool color = false;
  size_t width = 0;  // terminal columns when stdout is a TTY, else 0
  std::function<double()> now_unix;
};

// Time as `mcpgw wait` sees it; the defaults use the steady clock and really sleep.
struct WaitClock {
  std::function<double()> now_s;  // monotonic seconds
  std::function<void(double)> sleep_s;
  static WaitClock Real();
};

inline constexpr double kWaitPollIntervalS = 0.1;

int RunTools(DaemonApi& api, const Invocation& inv, CommandIo& io);
// `cancel` (may be null) ends the call at the daemon when triggered (SIGINT): exit 130.
int RunCall(DaemonApi& api, const Invocation& inv, CommandIo& io, CancelToken* cancel);
int RunStatus(DaemonApi& api, const Invocation& inv, CommandIo& io);
int RunWait(DaemonApi& api, const Invocation& inv, CommandIo& io, const WaitClock& clock);

// Checks ARGUMENTS_JSON: ok if it is a JSON object; kInvalidInput (a misuse) if it is not
// JSON; kInvalidRequest if JSON but not an object. The message explains a refusal.
base::Status CheckArgumentsJson(const std::string& text);

}  // namespace mcpgw::cli
