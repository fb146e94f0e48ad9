// RunDaemon: mcpgwd's life from a parsed configuration to exit. Starts the
// main loop (ipc server, gateway, signals) and the session workers, serves
// until SIGTERM or SIGINT, shuts every session down (DELETE), and returns the
// process exit code. Blocks the calling thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "config/config.h"
#include "daemon/ipc/ipc_server.h"
#include "daemon/mcp/session.h"
#include "daemon/net/tls_trust.h"

namespace mcpgw {

class CallLog;
class Policy;

struct DaemonOptions {
  std::string config_path;
  std::string socket_path;
  int listen_fd = -1;    // an inherited listening socket (socket activation)
  unsigned workers = 0;  // session threads; 0 = number of cores
  mcp::SessionLimits limits;
  IpcServerOptions ipc;
  uint64_t shutdown_grace_ms = 3000;
  // Where OAuth tokens and client registrations are kept (BEHAVIOR.md §9); empty:
  // no OAuth, and servers that ask for it show why.
  std::string token_dir;
  CallLog* call_log = nullptr;
  std::shared_ptr<const Policy> policy;
  // Re-reads the configuration for a reload (SIGHUP, or the file changed on
  // disk). Unset: no reloads.
  std::function<config::ParseResult()> reload_config;
  bool watch_config = true;  // reload when the config file changes (debounced)
  // The settings file, watched like the config file: saving it reloads too;
  // status names it when it exists. Empty: not watched.
  std::string settings_path;
  // Re-reads the policy from the settings file on reload. Unset: policy fixed.
  std::function<std::shared_ptr<const Policy>(std::string* error)> reload_policy;
  // The CAs every worker's transfers trust; null: libcurl's defaults.
  std::shared_ptr<const http::TlsTrust> trust;
  // Re-reads the settings' tls keys on reload (new connections use the
  // result). Unset: trust fixed.
  std::function<std::shared_ptr<const http::TlsTrust>(std::string* error)> reload_trust;
};

int RunDaemon(const DaemonOptions& options, const config::Config& config);

}  // namespace mcpgw
