// DaemonOptions: what mcpgwd's runtime needs (the settings, what the gateway
// is made with, the compiled policy, the TLS trust, paths), made from the
// command line, the settings file and the environment by ONE function,
// LoadOptions. The Supervisor calls it at start-up and again at every reload,
// so what a reload applies is exactly what a start with the same files would
// have run with. MakeOptions is its pure part.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"
#include "daemon/command_line.h"
#include "daemon/gateway/gateway.h"
#include "daemon/mcp/types.h"
#include "daemon/net/tls_trust.h"

namespace mcpgw {

class Policy;

struct DaemonOptions {
  // The settings file as read (the defaults where it is silent), held once:
  // each part of the runtime is given its own section of it. `workers` is the
  // number in effect: --workers, else the file's, else one per core. A reload
  // compares what it read with the ones the daemon started with
  // (RestartOnlyChanges).
  Settings settings;
  // What the Gateway is made with: the files and the socket from the command
  // line (the default socket when --socket was not given), the session limits
  // from settings.limits, where pins live, record and replay (BEHAVIOR.md
  // §14), the grace time at shutdown.
  GatewayOptions gateway;
  std::shared_ptr<const Policy> policy;         // settings.policy, compiled
  std::shared_ptr<const http::TlsTrust> trust;  // null only when trust_error is set
  // From the environment.
  std::string token_dir;  // where OAuth tokens live (docs/AUTH.md)
  // Where cut results keep their whole text (BEHAVIOR.md §11):
  // $XDG_RUNTIME_DIR/mcpgw/results, else `results` beside the socket.
  std::string results_dir;
};

struct OptionsResult {
  // The settings file cannot be used (a syntax or range error, unreadable, or
  // missing when --settings named it): no option comes from it.
  base::Status settings_error;
  // The settings file does not exist: the defaults apply, unless --settings
  // named it (then settings_error says so).
  bool file_missing = false;
  // The file can be used but its tls keys cannot (a CA file that cannot be
  // read): every option but the trust comes from it.
  base::Status trust_error;
  DaemonOptions options;  // meaningful when settings_error is ok

  bool ok() const { return settings_error.ok() && trust_error.ok(); }
  // The one error to show when !ok().
  const base::Status& error() const { return settings_error.ok() ? trust_error : settings_error; }
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

// The keys of the top level that differ between the `running` options and
// those a reload `read` in a key only a restart applies (settings_table.h):
// "limits", "ipc", "workers" (the number in effect: --workers wins over the
// file), "call_log", "metrics", in table order. The policy, the tls keys,
// results and pinning apply at a reload.
std::vector<std::string_view> RestartOnlyChanges(const DaemonOptions& running,
                                                 const DaemonOptions& read);

}  // namespace mcpgw
