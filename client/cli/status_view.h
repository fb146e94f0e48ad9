// `mcpgw status`: the daemon's status object (mcpgw_status_json) parsed leniently into
// display strings, and the human-readable table rendered from it. Pure: the caller passes the
// clock and the terminal's properties, so tests pin every byte of the output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::cli {

// One server row. Every field is already a display string: "-" when the daemon left it out
// or sent something odd; texts are raw (unstripped) until rendering.
struct ServerRow {
  std::string ns = "-";
  std::string status = "-";
  std::string reason;
  std::string tools = "-";
  std::string in_flight = "-";
  uint64_t queued = 0;  // of those in flight, the requests waiting for a connection
  std::string calls = "-";
  std::string errors = "-";
  std::string p50_ms = "-";
  std::optional<double> since_unix;
  std::string url;               // redacted by the daemon; empty: not sent
  std::string protocol_version;  // empty: not sent
  std::string http_version;      // "HTTP/2", "HTTP/1.1" ...; empty: not sent
  std::string proxy;             // the proxy its requests go through; empty: direct
  std::string last_error;        // empty: none
  std::optional<double> last_error_unix;
  // OAuth (BEHAVIOR.md §9): set when the server uses it.
  bool oauth = false;
  std::string oauth_state;
  std::string oauth_subject;
  std::string oauth_scopes;
  std::optional<double> oauth_expires_unix;
  std::string oauth_error;
  // Pinned tool definitions (BEHAVIOR.md §13): tools withheld until approved.
  uint64_t pins_changed = 0;
  uint64_t pins_new = 0;
  std::string pins_error;  // the pin file could not be trusted or written; empty: none
  // A local server's process (BEHAVIOR.md §17): set when the server is local.
  bool local = false;
  std::string command;  // the command and its arguments as the daemon shows them
  std::optional<double> pid;
  std::optional<double> uptime_s;
  uint64_t restarts = 0;
  uint64_t rss_bytes = 0;  // of its process tree
  uint64_t stdout_skipped = 0;
  std::vector<std::string> stderr_tail;   // the last lines, oldest first
  std::string confined;                   // what its confinement allows, in words; "" none
  std::string limits;                     // its resource limits, in words; "" none
  std::vector<std::string> not_enforced;  // of what the entry asked, what the kernel does not
};

struct StatusView {
  std::string version = "-";
  std::string pid = "-";
  std::optional<double> uptime_s;
  std::string config = "-";
  std::string settings;  // empty: not sent
  std::string socket = "-";
  std::optional<double> last_reload_unix;
  std::string reload_error;    // empty: none
  std::string settings_error;  // the last settings reload failed; empty: none
  std::string record;          // the cassette --record appends to; empty: none
  std::string replay;          // the cassette --replay serves; empty: none
  std::string metrics;         // the metrics endpoint's address; empty: none
  std::vector<ServerRow> servers;
};

// Parses the status JSON; nullopt only when the text is not a JSON object.
std::optional<StatusView> ParseStatus(std::string_view json);

// The status object re-serialized with every non-ASCII character escaped (\uXXXX), so the
// `--json` output cannot carry raw control characters to a terminal; nullopt if not JSON.
std::optional<std::string> SafeStatusJson(std::string_view json);

// Names of the servers whose status is "loading", from a parsed view.
std::vector<std::string> LoadingServers(const StatusView& view);

struct RenderOptions {
  bool color = false;
  // Terminal width in columns; 0 means "not a terminal": long texts are not wrapped.
  size_t width = 0;
  double now_unix = 0;
};

// A header block (daemon, config, settings, socket, reload), then a table with a row per
// server, each row followed by its details on their own lines (reason, url and protocol,
// last error with its age), wrapped to the terminal's width so nothing is cut off.
std::string RenderStatus(const StatusView& view, const RenderOptions& options);

// "45s", "12m 5s", "3h 12m", "2d 4h".
std::string HumanDuration(double seconds);
// "just now", "5s ago", "5m ago", "3h ago", "2d ago".
std::string RelativeTime(double then_unix, double now_unix);

// Whether to colour: stdout is a TTY, NO_COLOR is unset or empty, TERM is not "dumb".
bool UseColor(bool stdout_is_tty, const char* no_color_env, const char* term_env);

}  // namespace mcpgw::cli
