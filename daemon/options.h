// DaemonOptions: what mcpgwd's runtime needs (session limits, ipc limits,
// worker count, call log, policy, TLS trust, paths), made from the command
// line, the settings file and the environment by ONE function, LoadOptions.
// The Supervisor calls it at start-up and again at every reload, so what a
// reload applies is exactly what a start with the same files would have run
// with. MakeOptions is its pure part.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"
#include "daemon/command_line.h"
#include "daemon/ipc/ipc_server.h"
#include "daemon/mcp/types.h"
#include "daemon/net/tls_trust.h"

namespace mcpgw {

class Policy;

struct DaemonOptions {
  // From the command line.
  std::string config_path;
  std::string settings_path;  // watched; status names it when it exists
  std::string socket_path;    // the default one when --socket was not given
  // From the settings, with the command line's --workers first.
  unsigned workers = 1;  // session threads, the main loop included
  mcp::SessionLimits limits;
  // Requests in progress at once per origin on each worker (HttpClientOptions).
  size_t max_connections_per_server = 64;
  IpcServerOptions ipc;
  CallLogSettings call_log;  // path empty: no call log
  std::shared_ptr<const Policy> policy;
  std::shared_ptr<const http::TlsTrust> trust;  // null only when trust_error is set
  ResultsSettings results;                      // bounds on result texts and the folder's budget
  PinningSettings pinning;                      // pinned tool definitions (BEHAVIOR.md §13)
  MetricsSettings metrics;                      // the metrics endpoint (BEHAVIOR.md §15)
  // From the command line: record and replay (BEHAVIOR.md §14).
  std::string record_path;
  std::string replay_path;
  bool replay_forward = false;
  // From the environment.
  std::string token_dir;  // where OAuth tokens live (docs/AUTH.md)
  // Where tool definitions are pinned (BEHAVIOR.md §13):
  // $XDG_STATE_HOME/mcpgw/pins, else ~/.local/state/mcpgw/pins.
  std::string pins_dir;
  // Where cut results keep their whole text (BEHAVIOR.md §11):
  // $XDG_RUNTIME_DIR/mcpgw/results, else `results` beside the socket.
  std::string results_dir;
  // Calls in flight at shutdown get this long before sessions are closed.
  uint64_t shutdown_grace_ms = 3000;
  // What the options were made from: a reload compares what it read with
  // these (RestartOnlyChanges).
  Settings settings;
};

struct OptionsResult {
  // The settings file cannot be used (a syntax or range error, unreadable, or
  // missing when --settings named it): no option comes from it.
  std::string settings_error;
  // The settings file does not exist: the defaults apply, unless --settings
  // named it (then settings_error says so).
  bool file_missing = false;
  // The file can be used but its tls keys cannot (a CA file that cannot be
  // read): every option but the trust comes from it.
  std::string trust_error;
  DaemonOptions options;  // meaningful when settings_error is empty

  bool ok() const { return settings_error.empty() && trust_error.empty(); }
  // The one message to show when !ok().
  const std::string& error() const { return settings_error.empty() ? trust_error : settings_error; }
};

// The options from the command line and parsed settings. `cores` is the
// number of cores (workers when neither --workers nor `workers` is set).
DaemonOptions MakeOptions(const CommandLine& command_line, const Settings& settings,
                          unsigned cores);

// The folder of whole results: $XDG_RUNTIME_DIR/mcpgw/results (an absolute
// XDG_RUNTIME_DIR), else `results` in the socket's folder.
std::string ResultsDir(const GetEnv& get_env, const std::string& socket_path);

// Reads the settings file the command line names, loads the TLS trust its tls
// keys name, and makes the options; the token directory comes from
// XDG_STATE_HOME or HOME. Every error names the file.
OptionsResult LoadOptions(const CommandLine& command_line, const GetEnv& get_env);

// The settings sections that differ between the `running` options and those
// a reload `read`, and that only a restart applies: "limits", "ipc",
// "workers" (the number in effect: --workers wins over the file), "call_log",
// "metrics".
// The policy, the tls keys, results and pinning apply at a reload.
std::vector<std::string_view> RestartOnlyChanges(const DaemonOptions& running,
                                                 const DaemonOptions& read);

}  // namespace mcpgw
