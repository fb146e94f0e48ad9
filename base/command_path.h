// Finding a local server's command the way the daemon runs it (BEHAVIOR.md
// §17): a daemon started by systemd or launchd has a short PATH, so `npx`
// from a user-installed Node (nvm, Homebrew, Volta) is not on it. The
// directories searched are, in order, the PATH of the user's login shell
// (read once, bounded in time) and then the daemon's own PATH.
// The C library only (posix_spawn, poll): libmcpgw links base.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mcpgw::base {

// The PATH the user's login shell sets up: `shell -l -i -c` (interactive too:
// nvm and most version managers are set up in ~/.bashrc or ~/.zshrc, which a
// login shell alone does not read), with stdin from /dev/null, in a process
// group of its own that is killed when `timeout` passes. Empty when the shell
// cannot be run, fails, prints no PATH or takes too long: the caller falls
// back on its own PATH. `shell` must be an absolute path; `home` becomes the
// shell's HOME.
std::string LoginShellPath(const std::string& shell, const std::string& home,
                           std::chrono::milliseconds timeout);

// Runs `argv` (argv[0] found on the caller's PATH when it has no slash) with
// stdin and stderr on /dev/null, `env` as its whole environment (the
// caller's when null), in a process group of its own that is killed when
// `timeout` passes. Its stdout (at most 1 MiB of it), or nullopt when it
// could not be run, took too long, or did not exit 0.
std::optional<std::string> RunBounded(const std::vector<std::string>& argv,
                                      const std::vector<std::string>* env,
                                      std::chrono::milliseconds timeout);

// The user's login shell: $SHELL when it is an absolute path, else the
// password database's entry, else /bin/sh.
std::string UserShell();

// The directories of `login_path` then of `own_path` (colon-separated),
// without empty or relative entries and without repeats, in order.
std::vector<std::string> SearchDirs(std::string_view login_path, std::string_view own_path);

// The executable file `command` names: a command with a slash is taken as
// it is (relative to `cwd` when it is relative); a bare name is looked up in
// `dirs`. Not found (or not executable): kNotFound, naming the command and
// the directories searched.
Result<std::string> FindCommand(const std::string& command, const std::vector<std::string>& dirs,
                                const std::string& cwd);

// "/a, /b and /c" for a message.
std::string DescribeDirs(const std::vector<std::string>& dirs);

}  // namespace mcpgw::base
