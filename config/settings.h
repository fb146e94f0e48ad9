// Settings: the gateway's own settings file (limits, local socket, workers,
// call log, policy, TLS trust), distinct from mcp.json. Parsing is a pure function of the
// text and the path that labels its messages; the daemon loads the file once
// at start-up and on reload. The structs below hold the defaults; the keys,
// their types, ranges and when they apply are listed once in
// settings_table.h, and documented in docs/SETTINGS.md.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proto/proto.h"

namespace mcpgw {

// Bounds on what upstream servers may send and how long they may take.
struct LimitsSettings {
  size_t max_response_bytes = 16u << 20;  // per HTTP response body
  int max_json_depth = 128;               // nesting of any JSON message
  // One tools/call, end to end: the daemon's deadline, which clients do not cut short.
  int call_timeout_s = static_cast<int>(proto::kDefaultCallTimeout.count());
  int listing_timeout_s = 120;             // connect, handshake and every tools/list page
  size_t max_tools_per_server = 10000;     // tools kept per server
  int max_list_pages = 1000;               // tools/list pages per listing
  size_t max_sse_event_bytes = 16u << 20;  // one SSE event's data
  // Requests in progress at once to one origin (scheme, host, port) on each
  // worker, and so its HTTP/1.1 connections; more wait their turn in a queue.
  size_t max_connections_per_server = 64;
  bool operator==(const LimitsSettings&) const = default;
};

// The local socket (BEHAVIOR.md §7).
struct IpcSettings {
  std::vector<uid_t> allowed_uids;  // empty: only the daemon's own uid
  size_t max_connections_per_uid = 1024;
  size_t max_in_flight_per_connection = 1024;
  size_t max_frame_bytes = proto::kMaxFrameBytes;
  bool operator==(const IpcSettings&) const = default;
};

// The JSON-lines audit log (BEHAVIOR.md §8); off unless a path is set.
struct CallLogSettings {
  std::string path;                // empty: no call log
  uint64_t max_bytes = 64u << 20;  // rotate before the file would grow past this
  int keep = 3;                    // rotated files kept: path.1 .. path.<keep>
  bool operator==(const CallLogSettings&) const = default;
};

// Large results (BEHAVIOR.md §11): the bound on a call's result text when
// its client names none, and the budget of the folder that keeps whole texts.
struct ResultsSettings {
  uint64_t max_text_bytes = 0;  // libmcpgw and the CLI; 0: no bound
  uint64_t stdio_max_text_bytes = proto::kDefaultStdioMaxTextBytes;  // mcpgw stdio; 0: none
  uint64_t spill_max_mb = 256;
  bool operator==(const ResultsSettings&) const = default;
};

// Policy patterns (enforced by daemon/guard/policy.h; docs/SETTINGS.md):
// "namespace" or "namespace/tool", with `*` and `?` globs.
struct PolicySettings {
  std::vector<std::string> allow;      // non-empty: only matching tools are offered
  std::vector<std::string> deny;       // always wins
  std::vector<std::string> read_only;  // namespace patterns: only readOnlyHint tools
};

// The "tls" object (docs/SETTINGS.md). Parsing checks only the form;
// daemon/net/tls_trust.h reads the files.
struct TlsSettings {
  std::string ca_file;  // absolute path of a PEM (or DER) bundle; empty: none
  std::string ca_dir;   // absolute path of a hashed directory (openssl rehash); empty: none
};

// Pinned tool definitions (BEHAVIOR.md §13): settings.json's `pinning`.
enum class PinningMode {
  kBlock,   // changed tools wait for approval; new tools of a known server are pinned
  kStrict,  // new tools of a known server wait for approval too
  kOff,     // nothing is pinned or withheld
};
std::string_view PinningModeName(PinningMode mode);
std::optional<PinningMode> ParsePinningMode(std::string_view name);

struct PinningSettings {
  PinningMode mode = PinningMode::kBlock;
  std::vector<std::string> exempt;  // namespace globs (`*`, `?`) never pinned
  bool operator==(const PinningSettings&) const = default;
};

// Metrics (BEHAVIOR.md §15): settings.json's `metrics`.
struct MetricsSettings {
  // "127.0.0.1:PORT" (any 127.x.y.z) or "[::1]:PORT": where GET /metrics is
  // served; empty: nowhere (`mcpgw metrics` still works).
  std::string listen;
  bool operator==(const MetricsSettings&) const = default;
};

// Tool search (BEHAVIOR.md §10): settings.json's `search`.
struct SearchSettings {
  bool learn = true;  // learn from the queries that led to successful calls
  bool operator==(const SearchSettings&) const = default;
};

// A JSON object kept as its text (compact), for a key whose value another
// part reads in full: `local_servers_confine` (config/confine.h).
struct JsonObject {
  std::string text;  // "" when the key is absent or null
  bool operator==(const JsonObject&) const = default;
};

// A loopback address to listen on, as ParseLoopbackListen reads it.
struct LoopbackAddress {
  std::string host;  // "127.0.0.1" or "::1": an address, never a name
  int port = 0;      // 0: any free port
  bool ipv6 = false;
};

// Reads "127.0.0.1:PORT" ("127.x.y.z") or "[::1]:PORT"; nullopt, with why
// in `error`, for anything else — a name, another address, a missing or
// out-of-range port.
base::Result<LoopbackAddress> ParseLoopbackListen(std::string_view text);

struct Settings {
  LimitsSettings limits;
  IpcSettings ipc;
  int workers = 0;  // worker threads; 0: the number of cores
  CallLogSettings call_log;
  PolicySettings policy;
  TlsSettings tls;
  ResultsSettings results;
  PinningSettings pinning;
  MetricsSettings metrics;
  SearchSettings search;
  // Local (command) servers (BEHAVIOR.md §17): "run" runs them; "refuse"
  // refuses every local entry with kLocalRefusal and starts no process.
  std::string local_servers = "run";
  // The `confine` of every local entry that says nothing of it (BEHAVIOR.md
  // §18); its form is checked here, its paths when it is applied.
  JsonObject local_servers_confine;
};

// A settings file read: its settings, or the defaults when it is missing.
struct LoadedSettings {
  Settings settings;
  bool missing = false;  // the file does not exist (the defaults apply)
};

// Ok, or why a policy pattern cannot be used (empty, an empty namespace or
// tool part, a control character).
base::Status CheckPolicyPattern(std::string_view pattern);

// Parses `text` (the contents of `path`; the path only labels messages).
// Unknown keys are errors: a misspelt policy key must not pass silently.
// `//` and `/* */` comments are allowed.
// An error's message: "<path>:<line>:<column>: <key path>: <what is wrong>".
base::Result<Settings> ParseSettings(std::string_view text, std::string_view path);

// Reads and parses `path`. A missing file gives the defaults (and `missing`;
// mcpgwd refuses a missing file named by --settings); an unreadable one is an
// error naming it.
base::Result<LoadedSettings> LoadSettingsFile(const std::string& path);

// $XDG_CONFIG_HOME/mcpgw/settings.json, else <home>/.config/mcpgw/settings.json.
// `get_env` looks up an environment variable (tests pass a fake).
std::string DefaultSettingsPath(
    const std::function<std::optional<std::string>(std::string_view)>& get_env,
    std::string_view home);

}  // namespace mcpgw
