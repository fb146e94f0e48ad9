// `mcpgw log`: the call log (BEHAVIOR.md §8) as a person reads it — time,
// client pid, server/tool, outcome, duration, result size — filtered by
// server, tool, age and outcome, and with -f followed as calls happen, across
// the log's rotation. The daemon's status names the file (`daemon.call_log`);
// one request of the local protocol over a RawClient (tests pass a fake
// AuthApi). No argument value is ever shown: the call log has none, and no
// reason either (a line says how a call ended, never why).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/cli/args.h"
#include "client/cli/commands.h"
#include "client/cli/raw_client.h"

namespace mcpgw::cli {

// A line longer than this is not a call record: it is skipped (and counted)
// without being held in memory.
inline constexpr size_t kMaxLogLineBytes = 1 << 20;
// How often `mcpgw log -f` looks at the file again.
inline constexpr double kLogPollIntervalS = 0.2;

// One line of the call log, read back. Only time, namespace, tool and outcome
// are required; a field missing or of another type reads as absent ("-").
struct LogRecord {
  double time_unix = 0;  // from "time" (UTC, ISO 8601)
  std::optional<int64_t> pid;
  std::string ns;
  std::string tool;
  std::string outcome;
  std::optional<uint64_t> duration_ms;
  std::optional<uint64_t> result_bytes;  // null or absent: no result
};

// The record `line` holds, or nullopt when it is not one (not JSON, not an
// object, a required field missing, a time that does not parse).
std::optional<LogRecord> ParseLogRecord(std::string_view line);

// "2025-03-04T05:06:07.089Z" (the fraction optional) as Unix seconds.
std::optional<double> ParseIsoTime(std::string_view text);

// --since: one or more groups of a whole number and a unit (s, m, h, d):
// "30s", "10m", "2h", "1d", "1h30m". Seconds; an InvalidInput names the text.
base::Result<double> ParseSince(std::string_view text);

// "12 ms", "1.3 s", "2m 5s", "1h 2m".
std::string FormatDuration(uint64_t ms);
// "512 B", "4.2 KB", "17 MB" (powers of 1024); "-" for nullopt.
std::string FormatSize(std::optional<uint64_t> bytes);
// "2026-12-07 14:03:22" in the local time zone.
std::string FormatLocalTime(double unix_seconds);

// What --server, --tool, --since and --errors keep.
struct LogFilter {
  std::optional<std::string> ns;
  std::optional<std::string> tool;
  std::optional<double> since_unix;  // records at or after this time
  bool errors_only = false;          // outcome other than "ok"

  bool Matches(const LogRecord& record) const;
};

// The files that hold the log, oldest first: path.N … path.1, then path
// (those that exist; path is always last, whether it exists or not).
std::vector<std::string> LogFilesOldestFirst(const std::string& path);

// How `-f` waits between looks at the file: `wait(seconds)` returns false
// when following should end (Ctrl-C). Tests drive it; RunLog's own waits on
// a CancelToken that SIGINT triggers.
struct LogFollow {
  std::function<bool(double seconds)> wait;
};

// Exit codes: 0; 1 when the call log is off or cannot be read; 2 for a bad
// --since; the daemon's errors as `mcpgw status` has them. `-f` ends on
// Ctrl-C with 0.
int RunLog(AuthApi& api, const Invocation& inv, CommandIo& io);
int RunLog(AuthApi& api, const Invocation& inv, CommandIo& io, const LogFollow& follow);

}  // namespace mcpgw::cli
