// mcpgwd's command line: the options and the help text (see command_line.h).
#include "daemon/command_line.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <utility>

#include <CLI/CLI.hpp>

#include "config/settings.h"

#ifndef MCPGW_VERSION
#define MCPGW_VERSION "0.0.0"
#endif

namespace mcpgw {
namespace {

constexpr const char* kHelpFooter = R"(Environment:
  MCPGW_SOCKET      socket path when --socket is not given
  MCPGW_LOG         log level when --log-level is not given
  XDG_CONFIG_HOME   where mcp.json and settings.json live (default ~/.config)
  XDG_RUNTIME_DIR   where the socket lives: $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock;
                    unset: /run/user/UID/mcpgw/mcpgw.sock when /run/user/UID
                    is the user's (mode 0700), else /tmp/mcpgw-UID/mcpgw.sock;
                    on macOS: ~/Library/Application Support/mcpgw/mcpgw.sock
  LISTEN_FDS, LISTEN_PID  a listening socket from systemd (socket activation);
                    on macOS, launchd's "Listeners" socket
  NOTIFY_SOCKET     systemd readiness: READY=1, RELOADING=1, STOPPING=1
  XDG_STATE_HOME    where OAuth tokens and pinned tool definitions live:
                    $XDG_STATE_HOME/mcpgw/oauth and .../mcpgw/pins (default
                    ~/.local/state/mcpgw; docs/AUTH.md, docs/BEHAVIOR.md §13)
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
                    settings.json reloads as well. Other settings (limits,
                    ipc, workers, call_log, metrics) apply at the next start; a
                    reload that sees them changed says so in the log.
  SIGTERM, SIGINT   stop: calls in flight fail with "gateway shutting down",
                    sessions are closed (DELETE, 3 s grace), exit 0. A second
                    signal exits at once.

Files:
  $XDG_CONFIG_HOME/mcpgw/mcp.json       servers (the format of Cursor and Claude Desktop)
  $XDG_CONFIG_HOME/mcpgw/settings.json  limits, policy, call log (optional)
  $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock     the socket (directory 0700, socket 0600)

Record and replay (docs/BEHAVIOR.md §14): `mcpgwd --record session.jsonl`
records a session of calls; `mcpgwd --replay session.jsonl` answers the same
calls (the same namespace, tool and arguments, however written) with the
recorded answers, in order, with the servers gone and no connection made. A
cassette holds tool results: keep it as private as the data it shows.

Exit status: 0 after a clean stop; 1 when the configuration, settings or
socket are unusable; 2 on a command-line error (an unknown option or value, a
--workers outside 1..1024, a --settings FILE that does not exist). With
--check: 0 when mcp.json and the settings are usable (refused entries
included), 1 when not.

See mcpgwd(1), mcpgw(1) and docs/SERVICE.md.)";

constexpr const char* kDescription =
    "mcpgwd: a gateway daemon for the Model Context Protocol. It connects to every remote MCP "
    "server an mcp.json names, runs each local one (a command) once for every host, and serves "
    "two tools, get_dynamic_tools and call_dynamic_tool, to local hosts over a Unix socket.";

constexpr const char* kUsageHint = "Run 'mcpgwd --help' for usage.";

std::string Env(const GetEnv& get_env, std::string_view name) { return get_env(name).value_or(""); }

std::string DefaultConfigPath(const GetEnv& get_env) {
  if (std::string xdg = Env(get_env, "XDG_CONFIG_HOME"); !xdg.empty()) {
    return xdg + "/mcpgw/mcp.json";
  }
  return Env(get_env, "HOME") + "/.config/mcpgw/mcp.json";
}

// The path as status and logs show it: absolute, so it means the same thing
// whatever the reader's working directory.
std::string Absolute(const std::string& path) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

std::string CliFailure(const CLI::App*, const CLI::Error& e) {
  return "mcpgwd: " + std::string(e.what()) + "\n" + kUsageHint + "\n";
}

}  // namespace

GetEnv ProcessEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
}

std::string FatalLine(std::string_view message, const GetEnv& get_env) {
  std::string line = Env(get_env, "JOURNAL_STREAM").empty() ? "" : "<3>";
  line += "mcpgwd: ";
  line += message;
  line += "\n";
  return line;
}

base::Result<CommandLineResult> ParseCommandLine(const std::vector<std::string>& args,
                                                 const GetEnv& get_env) {
  CLI::App app{kDescription, "mcpgwd"};
  CommandLine cl;
  cl.config_path = DefaultConfigPath(get_env);
  app.footer(kHelpFooter);
  app.failure_message(CliFailure);
  app.add_option("--config", cl.config_path,
                 "mcp.json to serve (default: $XDG_CONFIG_HOME/mcpgw/mcp.json, else "
                 "~/.config/mcpgw/mcp.json)")
      ->type_name("FILE");
  app.add_option(
         "--socket", cl.socket_path,
         "Unix socket path (default: $MCPGW_SOCKET, else $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock, on "
         "macOS ~/Library/Application Support/mcpgw/mcpgw.sock); "
         "ignored when a service manager passes the socket")
      ->type_name("PATH");
  app.add_option("--settings", cl.settings_path,
                 "the gateway's own settings (limits, policy, call log; default: "
                 "$XDG_CONFIG_HOME/mcpgw/settings.json, which may be absent); a FILE named "
                 "here must exist")
      ->type_name("FILE");
  app.add_flag("--check", cl.check,
               "parse the configuration and the settings, print one line per server, and exit");
  app.add_option("--log-level", cl.log_level,
                 "trace, debug, info, warn, error or off (default: $MCPGW_LOG, else info)")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_option("--workers", cl.workers, "session threads, 1 to 1024 (default: number of cores)")
      ->type_name("N")
      ->check(CLI::Range(1u, kMaxWorkers));
  app.add_option("--record", cl.record_path,
                 "append every finished call (its result text or error) and every listing of a "
                 "server's tools to FILE, a cassette (0600) that --replay serves")
      ->type_name("FILE");
  CLI::Option* replay =
      app.add_option("--replay", cl.replay_path,
                     "serve the servers FILE recorded from their recorded listings and calls, "
                     "without connecting to them; a call it has no recording of fails as "
                     "transport")
          ->type_name("FILE");
  std::string miss = "fail";
  app.add_option("--replay-miss", miss,
                 "with --replay: what a call it has no recording of does: fail (the default) "
                 "or forward (send it to the live server; with --record, recorded too)")
      ->type_name("fail|forward")
      ->check(CLI::IsMember({"fail", "forward"}))
      ->needs(replay);
  app.set_version_flag("--version", std::string("mcpgwd ") + MCPGW_VERSION);

  CommandLineResult result;
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    if (app.exit(e, out, err) != 0) return base::InvalidInput(err.str());
    result.out = out.str();  // --help, --version
    return result;
  }
  for (auto [option, value] :
       {std::pair{"--config", &cl.config_path}, std::pair{"--socket", &cl.socket_path},
        std::pair{"--settings", &cl.settings_path}, std::pair{"--record", &cl.record_path},
        std::pair{"--replay", &cl.replay_path}}) {
    if (app.count(option) > 0 && value->empty()) {
      return base::InvalidInput(
          FatalLine(std::string(option) + " needs a non-empty value\n" + kUsageHint, get_env));
    }
  }
  cl.config_path = Absolute(cl.config_path);
  if (!cl.record_path.empty()) cl.record_path = Absolute(cl.record_path);
  if (!cl.replay_path.empty()) cl.replay_path = Absolute(cl.replay_path);
  cl.replay_forward = miss == "forward";
  cl.settings_named = !cl.settings_path.empty();
  if (!cl.settings_named) cl.settings_path = DefaultSettingsPath(get_env, Env(get_env, "HOME"));
  cl.settings_path = Absolute(cl.settings_path);
  result.command_line = std::move(cl);
  return result;
}

}  // namespace mcpgw
