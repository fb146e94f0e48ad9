// Command-line parsing for `mcpgw` (BEHAVIOR.md §7): CLI11 over the subcommand table
// (subcommands.h), which names every command once. Parsing is pure: it returns what to run,
// or the exit code and the text to print (help, version, misuse).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace mcpgw::cli {

struct Subcommand;

// Exit code for command-line misuse (BEHAVIOR.md §7).
inline constexpr int kExitMisuse = 2;
// Exit code after SIGINT (128 + SIGINT), as shells report it.
inline constexpr int kExitInterrupted = 130;
inline constexpr double kDefaultWaitTimeoutS = 30;
// `mcpgw login` waits this long for the authorization: the daemon's own
// consent timeout (5 min) and a margin.
inline constexpr double kDefaultLoginTimeoutS = 330;

// One command line, parsed. Each subcommand fills the fields it declares.
struct Invocation {
  const Subcommand* command = nullptr;  // never null in a ParseResult's invocation
  std::string socket;                   // empty: libmcpgw's default
  std::optional<std::string> ns;
  std::optional<std::string> tool;
  std::optional<std::string> arguments;     // call: the ARGUMENTS_JSON text, or "-"
  std::optional<std::string> query;         // tools --query
  std::optional<int> limit;                 // tools --limit (only with --query)
  bool learned = false;                     // tools --learned (not with --query)
  std::optional<long long> max_bytes;       // call --max-bytes, stdio --max-bytes
  bool json = false;                        // status --json, tools --json
  bool no_browser = false;                  // login --no-browser
  bool all = false;                         // approve --all
  double timeout_s = kDefaultWaitTimeoutS;  // wait --timeout; login --timeout (default 330)
  // import, hosts (docs/SETUP.md)
  std::vector<std::string> from;      // import --from HOST ...
  bool dry_run = false;               // import --dry-run
  bool move = false;                  // import --move
  std::optional<std::string> config;  // import --config FILE
  std::optional<std::string> action;  // hosts: list, add or remove
  std::optional<std::string> host;    // hosts add|remove HOST
  // top (docs/CLI.md)
  double interval_s = 1.0;  // top --interval
  bool once = false;        // top --once
  // log (docs/CLI.md): --server and --tool fill ns and tool
  bool follow = false;               // log -f
  std::optional<std::string> since;  // log --since 10m
  bool errors_only = false;          // log --errors
};

// What the command line asks for: an Invocation to run, or text to print on stdout before
// exiting 0.
struct ParseResult {
  std::optional<Invocation> invocation;  // set: run it; unset: print `out` and exit 0
  std::string out;                       // help or version text for stdout
};

// `args` without argv[0]. A misuse is an error (invalid_input) whose message is what goes
// to stderr; mcpgw then exits kExitMisuse.
base::Result<ParseResult> ParseArgs(const std::vector<std::string>& args);

// The first of `args` that is not an option (or --socket's value): the command as typed.
std::optional<std::string> FirstWord(const std::vector<std::string>& args);

}  // namespace mcpgw::cli
