// mcpgwd's command line (mcpgwd(1)): parsing it is a pure function of the
// arguments and the environment, which returns what to run or the text to
// print and the exit code (help, version, misuse). main() picks the mode from
// it; LoadOptions (options.h) turns it and the settings file into what the
// runtime needs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mcpgw {

using GetEnv = std::function<std::optional<std::string>(std::string_view name)>;

// The most session threads --workers accepts (the settings' `workers` too).
inline constexpr unsigned kMaxWorkers = 1024;

// Exit codes of mcpgwd (mcpgwd(1) "EXIT STATUS").
inline constexpr int kExitUnusable = 1;  // the configuration, settings or socket are unusable
inline constexpr int kExitMisuse = 2;    // a command-line error

struct CommandLine {
  std::string config_path;      // absolute
  std::string settings_path;    // absolute: the one named, else the default (may be absent)
  bool settings_named = false;  // --settings given: the file must exist, then and at reloads
  std::string socket_path;      // empty: the default (proto/socket_path.h)
  std::string log_level;        // empty: $MCPGW_LOG, else info
  unsigned workers = 0;         // --workers; 0: the settings' `workers`
  bool check = false;           // --check: report on the files and exit
  // Record and replay (BEHAVIOR.md §14), absolute; empty when not given.
  std::string record_path;      // --record FILE: append each call and listing
  std::string replay_path;      // --replay FILE: serve the cassette's servers from it
  bool replay_forward = false;  // --replay-miss forward: misses go to the live server
};

// What the command line asks for: a CommandLine to run, or text to print on
// stdout before exiting 0.
struct CommandLineResult {
  std::optional<CommandLine> command_line;  // set: run it; unset: print `out` and exit 0
  std::string out;                          // help or version text for stdout
};

// `args` without argv[0]. `get_env` gives XDG_CONFIG_HOME, HOME and
// JOURNAL_STREAM (tests pass a fake). A misuse is an error (invalid_input)
// whose message is what goes to stderr, newline included; mcpgwd then exits
// kExitMisuse.
base::Result<CommandLineResult> ParseCommandLine(const std::vector<std::string>& args,
                                                 const GetEnv& get_env);

// The process environment, for ParseCommandLine and LoadOptions.
GetEnv ProcessEnv();

// "mcpgwd: <message>\n" for stderr; under systemd (JOURNAL_STREAM set) it
// carries the error priority, as the log lines do.
std::string FatalLine(std::string_view message, const GetEnv& get_env);

}  // namespace mcpgw
