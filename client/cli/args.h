// Command-line parsing for `mcpgw` (SPEC §7), a CLI11 command table. Parsing is pure: it
// returns what to run, or the exit code and the text to print (help, version, misuse).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mcpgw::cli {

// Exit code for command-line misuse (SPEC §7).
inline constexpr int kExitMisuse = 2;
// Exit code after SIGINT (128 + SIGINT), as shells report it.
inline constexpr int kExitInterrupted = 130;
inline constexpr double kDefaultWaitTimeoutS = 30;

enum class Command { kTools, kCall, kStatus, kWait, kStdio };

struct Invocation {
  Command command = Command::kStatus;
  std::string socket;  // empty: libmcpgw's default
  std::optional<std::string> ns;
  std::optional<std::string> tool;
  std::optional<std::string> arguments;  // call: the ARGUMENTS_JSON text, or "-"
  bool json = false;                     // status --json, tools --json
  double timeout_s = kDefaultWaitTimeoutS;
};

struct ParseResult {
  std::optional<Invocation> invocation;  // set: run it; unset: exit with exit_code
  int exit_code = 0;
  std::string out;  // help or version text for stdout
  std::string err;  // misuse message for stderr
};

ParseResult ParseArgs(const std::vector<std::string>& args);  // args without argv[0]

}  // namespace mcpgw::cli
