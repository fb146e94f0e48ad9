// mcpgwd: the gateway daemon's command line. Everything else lives in the
// mcpgw_daemon library.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <CLI/CLI.hpp>
#ifdef MCPGW_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif
#include <spdlog/spdlog.h>

#include "config/check.h"
#include "config/config.h"
#include "config/display.h"
#include "daemon/auth/store.h"
#include "daemon/daemon.h"
#include "daemon/guard/call_log.h"
#include "daemon/runtime/hardening.h"
#ifdef __APPLE__
#include "daemon/ipc/launchd.h"
#endif
#include "daemon/guard/policy.h"
#include "daemon/runtime/logging.h"
#include "config/settings.h"
#include "proto/socket_path.h"

namespace {

// The most session threads --workers accepts (the settings' `workers` too).
constexpr unsigned kMaxWorkers = 1024;

constexpr const char* kHelpFooter = R"(Environment:
  MCPGW_SOCKET      socket path when --socket is not given
  MCPGW_LOG         log level when --log-level is not given
  XDG_CONFIG_HOME   where mcp.json and settings.json live (default ~/.config)
  XDG_RUNTIME_DIR   where the socket lives: $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock;
                    unset: /run/user/UID/mcpgw/mcpgw.sock when /run/user/UID
                    is the user's (mode 0700), else /tmp/mcpgw-UID/mcpgw.sock
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
socket are unusable; 2 on a command-line error (an unknown option or value, a
--workers outside 1..1024, a --settings FILE that does not exist). With
--check: 0 when mcp.json and the settings are usable (refused entries
included), 1 when not.

See mcpgwd(1), mcpgw(1) and docs/SERVICE.md.)";

std::string DefaultConfigPath() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/mcpgw/mcp.json";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.config/mcpgw/mcp.json";
}

// The path as status and logs show it: absolute, so it means the same thing
// whatever the reader's working directory.
std::string Absolute(const std::string& path) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

// A message that stops mcpgwd before it runs, on stderr. Under systemd it
// carries the error priority, as the log lines do.
void Fatal(const std::string& message) {
  const char* journal = std::getenv("JOURNAL_STREAM");
  std::string line = std::string(journal && *journal ? "<3>" : "") + "mcpgwd: " + message + "\n";
  std::fputs(line.c_str(), stderr);
}

std::string CliFailure(const CLI::App*, const CLI::Error& e) {
  return "mcpgwd: " + std::string(e.what()) + "\nRun 'mcpgwd --help' for usage.\n";
}

// The --check line about the settings file.
std::string SettingsReport(const std::string& path, const mcpgw::SettingsResult& settings) {
  if (!settings.ok) return path + ": unusable settings\n" + settings.error + "\n";
  if (settings.missing) return path + ": no settings file; the defaults apply\n";
  return path + ": settings usable\n";
}

// Start-up log lines for what --check would note: another host's variable
// form is a warning (almost always a mistake), the rest is information.
void LogNotes(const mcpgw::config::Config& config) {
  auto log = [](const mcpgw::config::Note& note, const std::string& prefix) {
    if (note.likely_mistake) {
      spdlog::warn("{}{}", prefix, note.text);
    } else {
      spdlog::info("{}{}", prefix, note.text);
    }
  };
  for (const auto& note : config.notes) log(note, "");
  for (const auto& entry : config.entries) {
    for (const auto& note : entry.notes) {
      log(note, "server " + mcpgw::config::JsonQuote(entry.name) + ": ");
    }
  }
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
  app.failure_message(CliFailure);
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
                 "$XDG_CONFIG_HOME/mcpgw/settings.json, which may be absent); a FILE named "
                 "here must exist")
      ->type_name("FILE");
  app.add_flag("--check", check,
               "parse the configuration and the settings, print one line per server, and exit");
  app.add_option("--log-level", log_level,
                 "trace, debug, info, warn, error or off (default: $MCPGW_LOG, else info)")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_option("--workers", workers, "session threads, 1 to 1024 (default: number of cores)")
      ->type_name("N")
      ->check(CLI::Range(1u, kMaxWorkers));
  app.set_version_flag("--version", std::string("mcpgwd ") + MCPGW_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help and --version exit 0; misuse 2
  }
  for (auto [option, value] :
       {std::pair{"--config", &config_path}, std::pair{"--socket", &socket_path},
        std::pair{"--settings", &settings_path}}) {
    if (app.count(option) > 0 && value->empty()) {
      Fatal(std::string(option) + " needs a non-empty value\nRun 'mcpgwd --help' for usage.");
      return 2;
    }
  }
  auto get_env = [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  config_path = Absolute(config_path);
  const bool settings_named = !settings_path.empty();
  if (!settings_named) {
    const char* home = std::getenv("HOME");
    settings_path = mcpgw::DefaultSettingsPath(get_env, home ? home : "");
  }
  settings_path = Absolute(settings_path);
  mcpgw::SettingsResult settings = mcpgw::LoadSettingsFile(settings_path);
  if (settings_named && settings.missing) {
    Fatal("--settings " + settings_path +
          ": no such file (without --settings, a missing default file means defaults)");
    return 2;
  }
  // The TLS trust the settings name (CA files) must load too.
  mcpgw::http::TlsTrust::Result trust;
  if (settings.ok) {
    trust = mcpgw::http::TlsTrust::Load(settings.settings.tls, get_env);
    if (!trust.trust) {
      settings.ok = false;
      settings.error = settings_path + ": " + trust.error;
    }
  }

  mcpgw::config::ParseResult parsed =
      mcpgw::config::ParseFile(config_path, mcpgw::config::SystemParseEnv());
  if (check) {
    std::string report = mcpgw::config::FormatCheckReport(parsed, config_path);
    report += SettingsReport(settings_path, settings);
    std::fputs(report.c_str(), stdout);
    return settings.ok ? mcpgw::config::CheckExitCode(parsed) : 1;
  }

  if (!parsed.ok) {
    Fatal(parsed.error);
    return 1;
  }
  if (!settings.ok) {
    Fatal(settings.error);
    return 1;
  }
  // Tokens and secrets live in this process's memory: no core dumps, no
  // ptrace by other processes of the user (BEHAVIOR.md §8).
  const std::string no_dumps = mcpgw::ForbidCoreDumps();
  mcpgw::SetUpLogging(log_level);
  if (!no_dumps.empty()) spdlog::warn("{}", no_dumps);
  LogNotes(parsed.config);
  std::signal(SIGPIPE, SIG_IGN);
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
  options.trust = trust.trust;
  // A reload keeps the previous trust and policy when the file is broken, and
  // when a file named by --settings has gone: a deny policy never silently
  // vanishes.
  options.reload_trust = [settings_path, settings_named, get_env](
                             std::string* error) -> std::shared_ptr<const mcpgw::http::TlsTrust> {
    mcpgw::SettingsResult r = mcpgw::LoadSettingsFile(settings_path);
    if (r.ok && r.missing && settings_named) {
      *error = settings_path + ": no such file (named by --settings)";
      return nullptr;
    }
    if (!r.ok) {
      *error = r.error;
      return nullptr;
    }
    mcpgw::http::TlsTrust::Result t = mcpgw::http::TlsTrust::Load(r.settings.tls, get_env);
    if (!t.trust) *error = settings_path + ": " + t.error;
    return t.trust;
  };
  options.reload_policy =
      [settings_path, settings_named](std::string* error) -> std::shared_ptr<const mcpgw::Policy> {
    mcpgw::SettingsResult r = mcpgw::LoadSettingsFile(settings_path);
    if (r.ok && r.missing && settings_named) {
      *error = settings_path + ": no such file (named by --settings)";
      return nullptr;
    }
    if (!r.ok) {
      *error = r.error;
      return nullptr;
    }
    return std::make_shared<const mcpgw::Policy>(r.settings.policy);
  };
  mcpgw::CallLog call_log;
  if (!s.call_log.path.empty()) {
    if (auto err = call_log.Open(s.call_log.path, s.call_log.max_bytes, s.call_log.keep)) {
      Fatal("call log: " + *err);
      return 1;
    }
    options.call_log = &call_log;
  }
  options.settings_path = settings_path;
  {
    const char* home = std::getenv("HOME");
    options.token_dir = mcpgw::auth::DefaultTokenDir(get_env, home ? home : "");
  }
  options.reload_config = [config_path] {
    return mcpgw::config::ParseFile(config_path, mcpgw::config::SystemParseEnv());
  };
#ifdef MCPGW_HAVE_SYSTEMD
  // Socket activation: serve the socket systemd passed (LISTEN_FDS).
  int fds = sd_listen_fds(1);
  if (fds > 1) {
    Fatal("expected one socket from the service manager, got " + std::to_string(fds));
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
