// `mcpgw top`'s figures and view state, without a terminal: one status answer parsed into a
// sample, two samples into a frame (calls/s and CPU % from their difference), the rows a
// frame shows (filtered by name, sorted by a column), and what each key does to the view.
// Pure: the screen (top_view.cc), `--once`, `--json` and the tests all go through these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::cli {

// Errors of one kind ("transport", "backend", ...) in the last minute.
struct TopErrorCount {
  std::string kind;
  uint64_t count = 0;
};

// One server as a status answer describes it. Texts are stripped of control characters.
struct TopServer {
  std::string ns = "-";
  std::string state = "-";        // ready, loading, error (replay: ready from a cassette)
  std::string transport = "-";    // http, h2 (HTTP/2) or stdio
  std::optional<uint64_t> calls;  // finished since the daemon started
  // The last minute (status "minute"): absent from a daemon that does not send it.
  bool has_minute = false;
  uint64_t minute_calls = 0;
  std::optional<double> p50_ms;
  std::optional<double> p99_ms;
  std::vector<TopErrorCount> minute_errors;  // kinds with a non-zero count
  std::optional<uint64_t> in_flight;
  std::optional<uint64_t> queued;
  // A local server's process (status "local").
  bool local = false;
  std::optional<uint64_t> pid;  // none while no process runs
  uint64_t restarts = 0;
  std::optional<uint64_t> rss_bytes;
  // What the detail view shows.
  std::string url;
  std::string reason;
  std::string last_error;
  std::optional<double> last_error_unix;
  std::vector<std::string> stderr_tail;  // oldest first
  uint64_t pins_changed = 0;
  uint64_t pins_new = 0;
  std::string pins_error;
  bool oauth = false;
  std::string oauth_state;
  std::string oauth_error;
  // Set by MakeTopFrame: from the difference with the previous sample, else the minute's.
  std::optional<double> calls_per_s;

  uint64_t MinuteErrors() const;
};

// One status answer.
struct TopSample {
  std::string version = "-";
  std::optional<uint64_t> pid;
  std::optional<double> uptime_s;
  std::optional<uint64_t> hosts;
  std::optional<uint64_t> rss_bytes;
  std::optional<double> cpu_s;    // CPU seconds used since start
  std::optional<uint64_t> calls;  // calls finished since start
  std::optional<uint64_t> in_flight;
  std::optional<uint64_t> queued;
  std::vector<TopServer> servers;
  double taken_s = 0;  // when it was answered, on the caller's monotonic clock
};

// nullopt when `json` is not a JSON object. Fields left out or of an odd type stay unset.
std::optional<TopSample> ParseTopSample(std::string_view json, double taken_s);

// What a refresh shows: the sample with its rates.
struct TopFrame {
  TopSample sample;
  std::optional<double> calls_per_s;  // the daemon's
  std::optional<double> cpu_percent;  // of one CPU; unset on the first frame
  uint64_t in_flight = 0;             // the daemon's figure, else the servers' sum
  uint64_t queued = 0;
};

// The frame of `current`; `previous` (may be null: the first frame) is the sample before it
// from the same daemon. The rates use the daemon's uptime between the two samples (else the
// caller's clock); a first frame, or one after the daemon restarted, takes calls/s from the
// last minute's count and leaves CPU % unset.
TopFrame MakeTopFrame(const TopSample* previous, TopSample current);

// Whether `current` comes from another daemon process than `previous` (it restarted).
bool DaemonRestarted(const TopSample& previous, const TopSample& current);

// ---- the view --------------------------------------------------------------------------------

enum class TopColumn {
  kName,
  kState,
  kTransport,
  kCallsPerS,
  kP50,
  kP99,
  kErrors,
  kInFlight,
  kQueued,
  kPid,
  kRestarts,
  kMem,
};
inline constexpr int kTopColumnCount = 12;

// "NAME", "CALLS/S", ... as the table's header shows it.
std::string_view TopColumnTitle(TopColumn column);

struct TopState {
  TopColumn sort = TopColumn::kName;
  bool descending = false;
  std::string filter;                 // applied: rows whose name contains it (any case)
  bool editing = false;               // `/` was pressed: typing into `edit`
  std::string edit;                   // the filter being typed
  std::string selected;               // the selected row's name ("" : the first row)
  std::optional<std::string> detail;  // the server whose detail is open
  size_t page_rows = 10;              // rows a page holds (PageUp/PageDown); set by the screen
  std::string notice;                 // a word on the connection: "daemon not reachable, ..."
  bool notice_bad = false;            // shown as a problem (red)
};

// The frame's servers that pass the filter, in the sort order (ties by name).
std::vector<const TopServer*> VisibleRows(const TopFrame& frame, const TopState& state);

// The index of the selected row in `rows` (0 when it is not there; rows may be empty).
size_t SelectedIndex(const std::vector<const TopServer*>& rows, const TopState& state);

// A key, as the screen reads it.
enum class TopKey {
  kChar,
  kUp,
  kDown,
  kHome,
  kEnd,
  kPageUp,
  kPageDown,
  kEnter,
  kEscape,
  kBackspace
};
struct TopInput {
  TopKey key = TopKey::kChar;
  char32_t ch = 0;  // for kChar
};

enum class TopAction { kNone, kRedraw, kQuit };

// What `input` does to the view, given the rows it shows. Unknown keys do nothing (kNone).
TopAction HandleTopKey(TopState& state, const TopInput& input,
                       const std::vector<const TopServer*>& rows);

}  // namespace mcpgw::cli
