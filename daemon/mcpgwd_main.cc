// mcpgwd: the gateway daemon's command line. Everything else lives in the
// mcpgw_daemon library.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>
#ifdef MCPGW_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif
#include <spdlog/spdlog.h>

#include "config/check.h"
#include "config/config.h"
#include "daemon/daemon.h"
#include "daemon/logging.h"
#include "proto/socket_path.h"

namespace {

std::string DefaultConfigPath() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/mcpgw/mcp.json";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.config/mcpgw/mcp.json";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mcpgwd: a gateway daemon for the Model Context Protocol. It connects to every "
               "remote MCP server an mcp.json names and serves two tools, get_dynamic_tools and "
               "call_dynamic_tool, to local hosts over a Unix socket.",
               "mcpgwd"};
  std::string config_path = DefaultConfigPath();
  std::string socket_path;
  std::string log_level;
  bool check = false;
  unsigned workers = 0;
  app.add_option("--config", config_path, "mcp.json to serve")
      ->capture_default_str();
  app.add_option("--socket", socket_path,
                 "Unix socket path (default: $MCPGW_SOCKET, else $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock)");
  app.add_flag("--check", check, "parse the configuration, print one line per server, and exit");
  app.add_option("--log-level", log_level,
                 "trace, debug, info, warn, error or off (default: $MCPGW_LOG, else info)");
  app.add_option("--workers", workers, "session threads (default: number of cores)");
  app.set_version_flag("--version", std::string("mcpgwd ") + MCPGW_VERSION);
  CLI11_PARSE(app, argc, argv);

  mcpgw::config::ParseResult parsed =
      mcpgw::config::ParseFile(config_path, mcpgw::config::SystemParseEnv());
  if (check) {
    std::fputs(mcpgw::config::FormatCheckReport(parsed, config_path).c_str(), stdout);
    return mcpgw::config::CheckExitCode(parsed);
  }

  mcpgw::SetUpLogging(log_level);
  if (!parsed.ok) {
    spdlog::error("{}", parsed.error);
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);

  mcpgw::DaemonOptions options;
  options.config_path = config_path;
  options.socket_path = socket_path.empty() ? mcpgw::proto::DefaultSocketPath() : socket_path;
  options.workers = workers;
  options.reload_config = [config_path] {
    return mcpgw::config::ParseFile(config_path, mcpgw::config::SystemParseEnv());
  };
#ifdef MCPGW_HAVE_SYSTEMD
  // Socket activation: serve the socket systemd passed (LISTEN_FDS).
  int fds = sd_listen_fds(1);
  if (fds > 1) {
    spdlog::error("expected one socket from the service manager, got {}", fds);
    return 1;
  }
  if (fds == 1) options.listen_fd = SD_LISTEN_FDS_START;
#endif
  return mcpgw::RunDaemon(options, parsed.config);
}
