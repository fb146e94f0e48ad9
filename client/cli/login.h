// `mcpgw login NAME [--no-browser]` and `mcpgw logout NAME` (BEHAVIOR.md §7, §9).
// Login asks the daemon to (re)start NAME's authorization, opens the URL it
// answers in the user's own browser (or prints it), waits for the daemon to
// report the outcome, then for the server to leave `loading`; exit 0 when it
// is ready. The daemon does the OAuth work; this side only shows the way.
#pragma once

#include <string>

#include "client/cli/commands.h"
#include "client/cli/raw_client.h"

namespace mcpgw::cli {

// Opens a URL for the user; tests substitute a fake.
class UrlOpener {
 public:
  virtual ~UrlOpener() = default;
  // True when a browser took the URL; else `why` says what was tried.
  virtual bool Open(const std::string& url, std::string* why) = 0;
};

// MCPGW_BROWSER (one program, the URL its argument), else $BROWSER (its
// first colon-separated entry), else xdg-open in a graphical session, or
// `open` on macOS. Never a shell.
class SystemUrlOpener : public UrlOpener {
 public:
  bool Open(const std::string& url, std::string* why) override;
};

// How long it then waits for the server to leave `loading`.
inline constexpr double kReadyTimeoutS = 30;

int RunLogin(AuthApi& auth, DaemonApi& daemon, const Invocation& inv, CommandIo& io,
             UrlOpener& opener, const WaitClock& clock);
int RunLogout(AuthApi& auth, const Invocation& inv, CommandIo& io);

}  // namespace mcpgw::cli
