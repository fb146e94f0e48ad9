// `mcpgw login NAME [--no-browser]` and `mcpgw logout NAME` (BEHAVIOR.md §7, §9).
// Login asks the daemon to (re)start NAME's authorization, opens the URL it
// answers in the user's own browser (or prints it), waits for the daemon to
// report the outcome, then for the server to leave `loading`; exit 0 when it
// is ready. The daemon does the OAuth work; this side only shows the way.
#pragma once

#include <string>

#include "base/status.h"
#include "client/cli/commands.h"
#include "client/cli/raw_client.h"

namespace mcpgw::cli {

// Opens a URL for the user; tests substitute a fake.
class UrlOpener {
 public:
  virtual ~UrlOpener() = default;
  // Ok when a browser took the URL; else the error says what was tried.
  virtual base::Status Open(const std::string& url) = 0;
};

// MCPGW_BROWSER (one program, the URL its argument), else $BROWSER (its
// first colon-separated entry), else xdg-open in a graphical session, or
// `open` on macOS. Never a shell.
class SystemUrlOpener : public UrlOpener {
 public:
  base::Status Open(const std::string& url) override;
};

// How long it then waits for the server to leave `loading`.
inline constexpr double kReadyTimeoutS = 30;

int RunLogin(AuthApi& auth, DaemonApi& daemon, const Invocation& inv, CommandIo& io,
             UrlOpener& opener, const WaitClock& clock);
int RunLogout(AuthApi& auth, const Invocation& inv, CommandIo& io);

}  // namespace mcpgw::cli
