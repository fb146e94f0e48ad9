// mcpgwd: the gateway daemon's command line. Everything else lives in the
// mcpgw_daemon library.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#ifdef MCPGW_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif
#include <spdlog/spdlog.h>

#include "config/check.h"
#include "config/config.h"
#include "daemon/auth/store.h"
#include "daemon/daemon.h"
#include "daemon/guard/call_log.h"
#include "daemon/hardening.h"
#ifdef __APPLE__
#include "daemon/ipc/launchd.h"
#endif
#include "daemon/guard/policy.h"
#include "daemon/logging.h"
#include "daemon/settings.h"
#include "proto/socket_path.h"

namespace {

constexpr const char* kHelpFooter = R"(Environment:
  MCPGW_SOCKET      socket path when --socket is not given
  MCPGW_LOG         log level when --log-level is not given
  XDG_CONFIG_HOME   where mcp.json and settings.json live (default ~/.config)
  XDG_RUNTIME_DIR   where the socket lives: $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock
                    (unset: /tmp/mcpgw-UID/mcpgw.sock)
  LISTEN_FDS, LISTEN_PID  a listening socket from systemd (socket activation);
                    on macOS, launchd's "Listeners" socket
  NOTIFY_SOCKET     systemd readiness: READY=1, RELOADING=1, STOPPING=1
  XDG_STATE_HOME    where OAuth tokens live: $XDG_STATE_HOME/mcpgw/oauth
                    (default ~/.local/state/mcpgw/oauth; docs/AUTH.md)
  MCPGW_BROWSER     the program that opens authorization URLs (the URL is its
                    only argument); else $BROWSER, else xdg-open/open when a
                    desktop session is present, else `mcpgw login NAME`
  JOURNAL_STREAM    set by systemd: log lines carry journald priorities
  SSL_CERT_FILE, SSL_CERT_DIR  CA certificates trusted instead of the system
                    bundle and directory, as for OpenSSL tools (tls.ca_file in
                    the settings adds CAs to the system store instead)
  https_proxy, http_proxy, all_proxy, no_proxy (or upper-case)  HTTP proxies,
                    as curl reads them; `mcpgw status --json` shows each
                    server's ("proxy")

Signals:
  SIGHUP            reload mcp.json and the settings' policy and tls keys;
                    unchanged servers keep their sessions, removed ones are
                    closed (DELETE); a broken file keeps the previous
                    configuration (see `mcpgw status`). Saving mcp.json or
                    settings.json reloads as well.
  SIGTERM, SIGINT   stop: calls in flight fail with "gateway shutting down",
                    sessions are closed (DELETE, 3 s grace), exit 0. A second
                    signal exits at once.

Files:
  $XDG_CONFIG_HOME/mcpgw/mcp.json       servers (the format of Cursor and Claude Desktop)
  $XDG_CONFIG_HOME/mcpgw/settings.json  limits, policy, call log (optional)
  $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock     the socket (directory 0700, socket 0600)

Exit status: 0 after a clean stop; 1 when the configuration, settings or
socket are unusable; 2 on a command-line error. With --check: 0 when the file
is usable (refused entries included), 1 when not.

See mcpgwd(1), mcpgw(1) and docs/SERVICE.md.)";

std::string DefaultConfigPath() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/mcpgw/mcp.json";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.config/mcpgw/mcp.json";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "mcpgwd: a gateway daemon for the Model Context Protocol. It connects to every "
      "remote MCP server an mcp.json names and serves two tools, get_dynamic_tools and "
      "call_dynamic_tool, to local hosts over a Unix socket.",
      "mcpgwd"};
  std::string config_path = DefaultConfigPath();
  std::string settings_path;
  std::string socket_path;
  std::string log_level;
  bool check = false;
  unsigned workers = 0;
  app.footer(kHelpFooter);
  app.add_option("--config", config_path,
                 "mcp.json to serve (default: $XDG_CONFIG_HOME/mcpgw/mcp.json, else "
                 "~/.config/mcpgw/mcp.json)")
      ->type_name("FILE");
  app.add_option(
         "--socket", socket_path,
         "Unix socket path (default: $MCPGW_SOCKET, else $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock); "
         "ignored when a service manager passes the socket")
      ->type_name("PATH");
  app.add_option("--settings", settings_path,
                 "the gateway's own settings (limits, policy, call log; default: "
                 "$XDG_CONFIG_HOME/mcpgw/settings.json)")
      ->type_name("FILE");
  app.add_flag("--check", check, "parse the configuration, print one line per server, and exit");
  app.add_option("--log-level", log_level,
                 "trace, debug, info, warn, error or off (default: $MCPGW_LOG, else info)")
      ->type_name("LEVEL");
  app.add_option("--workers", workers, "session threads (default: number of cores)")
      ->type_name("N");
  app.set_version_flag("--version", std::string("mcpgwd ") + MCPGW_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help and --version exit 0; misuse 2
  }

  mcpgw::config::ParseResult parsed =
      mcpgw::config::ParseFile(config_path, mcpgw::config::SystemParseEnv());
  if (check) {
    std::fputs(mcpgw::config::FormatCheckReport(parsed, config_path).c_str(), stdout);
    return mcpgw::config::CheckExitCode(parsed);
  }

  // Tokens and secrets live in this process's memory: no core dumps, no
  // ptrace by other processes of the user (SPEC §8).
  const std::string no_dumps = mcpgw::ForbidCoreDumps();
  mcpgw::SetUpLogging(log_level);
  if (!no_dumps.empty()) spdlog::warn("{}", no_dumps);
  if (!parsed.ok) {
    spdlog::error("{}", parsed.error);
    return 1;
  }
  std::signal(SIGPIPE, SIG_IGN);

  if (settings_path.empty()) {
    const char* home = std::getenv("HOME");
    settings_path = mcpgw::DefaultSettingsPath(
        [](std::string_view name) -> std::optional<std::string> {
          const char* v = std::getenv(std::string(name).c_str());
          return v ? std::optional<std::string>(v) : std::nullopt;
        },
        home ? home : "");
  }
  mcpgw::SettingsResult settings = mcpgw::LoadSettingsFile(settings_path);
  if (!settings.ok) {
    spdlog::error("{}", settings.error);
    return 1;
  }
  const mcpgw::Settings& s = settings.settings;

  mcpgw::DaemonOptions options;
  options.config_path = config_path;
  options.socket_path = socket_path.empty() ? mcpgw::proto::DefaultSocketPath() : socket_path;
  options.workers = workers ? workers : static_cast<unsigned>(std::max(0, s.workers));
  options.limits.max_response_bytes = s.limits.max_response_bytes;
  options.limits.max_json_depth = s.limits.max_json_depth;
  options.limits.max_sse_event_bytes = s.limits.max_sse_event_bytes;
  options.limits.max_tools = s.limits.max_tools_per_server;
  options.limits.max_list_pages = s.limits.max_list_pages;
  options.limits.call_deadline = std::chrono::seconds(s.limits.call_timeout_s);
  options.limits.first_attempt_deadline = std::chrono::seconds(s.limits.listing_timeout_s);
  options.limits.request_deadline = std::chrono::seconds(s.limits.listing_timeout_s);
  options.ipc.allowed_uids = s.ipc.allowed_uids;
  options.ipc.max_connections_per_uid = s.ipc.max_connections_per_uid;
  options.ipc.max_in_flight_per_connection = s.ipc.max_in_flight_per_connection;
  options.ipc.max_frame_bytes = s.ipc.max_frame_bytes;
  options.policy = std::make_shared<const mcpgw::Policy>(s.policy);
  auto get_env = [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  mcpgw::http::TlsTrust::Result trust = mcpgw::http::TlsTrust::Load(s.tls, get_env);
  if (!trust.trust) {
    spdlog::error("{}: {}", settings_path, trust.error);
    return 1;
  }
  options.trust = trust.trust;
  options.reload_trust =
      [settings_path, get_env](std::string* error) -> std::shared_ptr<const mcpgw::http::TlsTrust> {
    mcpgw::SettingsResult r = mcpgw::LoadSettingsFile(settings_path);
    if (!r.ok) {
      *error = r.error;
      return nullptr;
    }
    mcpgw::http::TlsTrust::Result t = mcpgw::http::TlsTrust::Load(r.settings.tls, get_env);
    if (!t.trust) *error = settings_path + ": " + t.error;
    return t.trust;
  };
  options.reload_policy =
      [settings_path](std::string* error) -> std::shared_ptr<const mcpgw::Policy> {
    mcpgw::SettingsResult r = mcpgw::LoadSettingsFile(settings_path);
    if (!r.ok) {
      *error = r.error;
      return nullptr;
    }
    return std::make_shared<const mcpgw::Policy>(r.settings.policy);
  };
  mcpgw::CallLog call_log;
  if (!s.call_log.path.empty()) {
    if (auto err = call_log.Open(s.call_log.path, s.call_log.max_bytes, s.call_log.keep)) {
      spdlog::error("call log: {}", *err);
      return 1;
    }
    options.call_log = &call_log;
  }
  options.settings_path = settings_path;
  {
    const char* home = std::getenv("HOME");
    options.token_dir = mcpgw::auth::DefaultTokenDir(
        [](std::string_view name) -> std::optional<std::string> {
          const char* v = std::getenv(std::string(name).c_str());
          return v ? std::optional<std::string>(v) : std::nullopt;
        },
        home ? home : "");
  }
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
#ifdef __APPLE__
  // launchd: the agent's "Listeners" socket (packaging/launchd/).
  if (options.listen_fd < 0) options.listen_fd = mcpgw::LaunchdListenFd();
#endif
  return mcpgw::RunDaemon(options, parsed.config);
}
