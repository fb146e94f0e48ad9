// Opening an authorization URL in the user's browser (BEHAVIOR.md §9): the program
// named by MCPGW_BROWSER (one executable, the URL its only argument), else
// $BROWSER (the first of its colon-separated entries), else the desktop's
// opener (xdg-open when a graphical session is present, `open` on macOS).
// When none applies the daemon cannot ask for consent by itself and says
// `authorization required: run "mcpgw login NAME"`. BrowserLauncher is what
// the AuthManager needs (an interface, so tests substitute a fake browser);
// ProgramLauncher, the real one, spawns the program on a libuv loop and
// reports its exit; it never runs a shell.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <uv.h>

#include "base/status.h"

namespace mcpgw::auth {

struct BrowserChoice {
  std::string program;  // a path or a name looked up in PATH
  std::string source;   // "MCPGW_BROWSER", "BROWSER", "xdg-open" or "open"
};

// `get_env` reads the environment; `macos` selects the platform's opener.
std::optional<BrowserChoice> ChooseBrowser(
    const std::function<std::optional<std::string>(std::string_view)>& get_env, bool macos);

// The reason a server shows when no browser can ask for its consent.
std::string LoginRequiredReason(std::string_view server_name);

class BrowserLauncher {
 public:
  // Ok, or the program could not start or exited non-zero: the error says
  // which (never the URL, which carries the state).
  using Done = std::function<void(const base::Status& launched)>;

  virtual ~BrowserLauncher() = default;
  // Opens `url` with `browser`. `done` runs once, on the loop, unless the
  // launcher is destroyed first: before Launch returns when the program
  // cannot start, else when it exits.
  virtual void Launch(const BrowserChoice& browser, const std::string& url, Done done) = 0;
};

class ProgramLauncher : public BrowserLauncher {
 public:
  explicit ProgramLauncher(uv_loop_t* loop);
  ~ProgramLauncher() override;  // forgets running programs (they are not killed)
  ProgramLauncher(const ProgramLauncher&) = delete;
  ProgramLauncher& operator=(const ProgramLauncher&) = delete;

  void Launch(const BrowserChoice& browser, const std::string& url, Done done) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw::auth
