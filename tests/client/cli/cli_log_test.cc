// `mcpgw log`: reading call-log lines (as the daemon's CallLog writes them), the row a person
// reads (outcomes, durations, sizes, colour, stripping), the filters and --since, --json,
// malformed and overlong lines, rotated files read oldest first, and -f across rotations
// driven step by step.
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "client/cli/commands.h"
#include "client/cli/log_view.h"
#include "client/cli/utc_zone.h"
#include "daemon/guard/call_log.h"

namespace mcpgw::cli {
namespace {

// 2025-03-04T05:06:07.089Z
constexpr int64_t kT0Ms = 1741064767089;
constexpr double kT0 = kT0Ms / 1000.0;

class TempDir {
 public:
  TempDir() {
    char t[] = "/tmp/mcpgw-cli-log-XXXXXX";
    REQUIRE(mkdtemp(t) != nullptr);
    path_ = t;
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

using testing::UtcZone;

class FakeDaemon : public AuthApi {
 public:
  ApiResult Request(std::string_view method, const std::string&, double) override {
    methods.emplace_back(method);
    return status;
  }
  ApiResult status{MCPGW_OK, "{}"};
  std::vector<std::string> methods;
};

FakeDaemon DaemonWithLog(const std::string& path) {
  FakeDaemon d;
  d.status.text =
      R"({"daemon":{"version":"0.1.0","pid":1,"call_log":")" + path + R"("},"servers":[]})";
  return d;
}

CallRecord Record(const std::string& ns, const std::string& tool, const std::string& outcome,
                  int64_t offset_ms = 0) {
  CallRecord r;
  r.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(kT0Ms + offset_ms));
  r.pid = 4242;
  r.uid = 1000;
  r.ns = ns;
  r.tool = tool;
  r.request_digest = std::string(64, 'a');
  r.outcome = outcome;
  r.duration_ms = 12;
  r.bytes_in = 100;
  r.bytes_out = 10;
  r.result_bytes = 4300;
  return r;
}

void WriteLines(const std::string& path, const std::vector<std::string>& lines,
                bool append = false) {
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  for (const std::string& line : lines) out << line << "\n";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Run {
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, [] { return kT0 + 3600; }};
  Invocation inv;
  int code = -1;

  int Go(AuthApi& api) { return code = RunLog(api, inv, io, LogFollow{}); }
  int Follow(AuthApi& api, std::function<bool(double)> wait) {
    inv.follow = true;
    return code = RunLog(api, inv, io, LogFollow{std::move(wait)});
  }
};

// ---- formatting --------------------------------------------------------------------------

TEST_CASE("durations read as ms, seconds, minutes and hours", "[cli][log]") {
  CHECK(FormatDuration(0) == "0 ms");
  CHECK(FormatDuration(12) == "12 ms");
  CHECK(FormatDuration(999) == "999 ms");
  CHECK(FormatDuration(1000) == "1.0 s");
  CHECK(FormatDuration(1299) == "1.3 s");
  CHECK(FormatDuration(59949) == "59.9 s");
  CHECK(FormatDuration(59950) == "1m 0s");
  CHECK(FormatDuration(125000) == "2m 5s");
  CHECK(FormatDuration(3600000) == "1h 0m");
  CHECK(FormatDuration(3720000) == "1h 2m");
}

TEST_CASE("sizes read in B, KB, MB (powers of 1024), and - without a result", "[cli][log]") {
  CHECK(FormatSize(std::nullopt) == "-");
  CHECK(FormatSize(0) == "0 B");
  CHECK(FormatSize(1023) == "1023 B");
  CHECK(FormatSize(1024) == "1.0 KB");
  CHECK(FormatSize(4300) == "4.2 KB");
  CHECK(FormatSize(42 * 1024) == "42 KB");
  CHECK(FormatSize(1024 * 1024 - 1) == "1.0 MB");
  CHECK(FormatSize(17ull * 1024 * 1024) == "17 MB");
  CHECK(FormatSize(3ull << 30) == "3.0 GB");
}

TEST_CASE("call-log times parse as UTC and print in local time", "[cli][log]") {
  UtcZone utc;
  const auto t = ParseIsoTime("2025-03-04T05:06:07.089Z");
  REQUIRE(t);
  CHECK(*t == Approx(kT0));
  CHECK(ParseIsoTime("2025-03-04T05:06:07Z") == Approx(1741064767.0));
  CHECK(FormatLocalTime(*t) == "2025-03-04 05:06:07");
  CHECK_FALSE(ParseIsoTime("2025-03-04 05:06:07Z"));
  CHECK_FALSE(ParseIsoTime("2025-13-04T05:06:07Z"));
  CHECK_FALSE(ParseIsoTime("2025-03-04T05:06:07.Z"));
  CHECK_FALSE(ParseIsoTime("2025-03-04T05:06:07.0x9Z"));
  CHECK_FALSE(ParseIsoTime("2025-03-04T05:06:07.089"));
  CHECK_FALSE(ParseIsoTime(""));
}

TEST_CASE("log: --since takes whole numbers with s, m, h or d", "[cli][log]") {
  CHECK(*ParseSince("30s") == 30);
  CHECK(*ParseSince("10m") == 600);
  CHECK(*ParseSince("2h") == 7200);
  CHECK(*ParseSince("1d") == 86400);
  CHECK(*ParseSince("1h30m") == 5400);
  CHECK(*ParseSince("0s") == 0);
  for (const char* bad : {"", "10", "m", "1.5h", "-1h", "10x", "1h 30m", "1H", "9999999999s"}) {
    INFO(bad);
    const auto since = ParseSince(bad);
    REQUIRE_FALSE(since.ok());
    CHECK_THAT(since.message(), Catch::Contains("is not a duration"));
  }
}

TEST_CASE("a line the daemon writes reads back as a record", "[cli][log]") {
  CallRecord written = Record("github", "create_issue", "backend");
  written.result_bytes.reset();
  const auto r = ParseLogRecord(FormatCallRecord(written));
  REQUIRE(r);
  CHECK(r->time_unix == Approx(kT0));
  CHECK(r->pid == 4242);
  CHECK(r->ns == "github");
  CHECK(r->tool == "create_issue");
  CHECK(r->outcome == "backend");
  CHECK(r->duration_ms == 12u);
  CHECK_FALSE(r->result_bytes);
  written.result_bytes = 7;
  CHECK(ParseLogRecord(FormatCallRecord(written))->result_bytes == 7u);
}

TEST_CASE("a line without a call record's fields is not a record", "[cli][log]") {
  CHECK_FALSE(ParseLogRecord(""));
  CHECK_FALSE(ParseLogRecord("not json"));
  CHECK_FALSE(ParseLogRecord("[1,2]"));
  CHECK_FALSE(ParseLogRecord(R"({"time":"2025-03-04T05:06:07Z","namespace":"a","tool":"b"})"));
  CHECK_FALSE(ParseLogRecord(R"({"time":"yesterday","namespace":"a","tool":"b","outcome":"ok"})"));
  CHECK_FALSE(
      ParseLogRecord(R"({"time":"2025-03-04T05:06:07Z","namespace":1,"tool":"b","outcome":"ok"})"));
  CHECK_FALSE(ParseLogRecord(R"({"time":"2025-03-04T05:06:07Z","namespace":"a","tool":"b",)"
                             R"("outcome":"ok"} trailing)"));
  CHECK_FALSE(ParseLogRecord(std::string("{\"time\":") + std::string(1, '\0') + "\x01\xff}"));
  // Only the four are required; the others read as absent.
  const auto minimal = ParseLogRecord(
      R"({"time":"2025-03-04T05:06:07Z","namespace":"a","tool":"b","outcome":"ok"})");
  REQUIRE(minimal);
  CHECK_FALSE(minimal->pid);
  CHECK_FALSE(minimal->duration_ms);
}

// ---- the command -------------------------------------------------------------------------

TEST_CASE("mcpgw log prints one aligned row per call, oldest first, every outcome", "[cli][log]") {
  UtcZone utc;
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  std::vector<std::string> lines;
  int i = 0;
  for (const char* outcome :
       {"ok", "backend", "transport", "denied", "not_ready", "invalid_request", "cancelled"}) {
    CallRecord r = Record("alpha", "echo", outcome, 1000 * i++);
    if (std::string(outcome) == "denied") {
      r.ns = "a-much-longer-namespace";
      r.duration_ms = 0;
      r.result_bytes.reset();
    }
    if (std::string(outcome) == "transport") r.duration_ms = 1300;
    lines.push_back(FormatCallRecord(r));
  }
  WriteLines(path, lines);
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  CHECK(run.Go(daemon) == 0);
  INFO(run.out.str() << run.err.str());
  CHECK(daemon.methods == std::vector<std::string>{"status"});
  const std::vector<std::string> out = Lines(run.out.str());
  REQUIRE(out.size() == 7);
  // Widths: the widest server/tool (28), outcome (15), duration (5) and size (6).
  CHECK(out[0] ==
        "2025-03-04 05:06:07  pid 4242  alpha/echo                    "
        "ok               12 ms  4.2 KB");
  CHECK(out[1] ==
        "2025-03-04 05:06:08  pid 4242  alpha/echo                    "
        "backend          12 ms  4.2 KB");
  CHECK(out[2] ==
        "2025-03-04 05:06:09  pid 4242  alpha/echo                    "
        "transport        1.3 s  4.2 KB");
  CHECK(out[3] ==
        "2025-03-04 05:06:10  pid 4242  a-much-longer-namespace/echo  "
        "denied            0 ms       -");
  CHECK(out[4].find("not_ready") != std::string::npos);
  CHECK(out[5].find("invalid_request") != std::string::npos);
  CHECK(out[6].find("cancelled") != std::string::npos);
  CHECK(run.out.str().find('\x1b') == std::string::npos);
  CHECK(run.err.str().empty());
}

TEST_CASE("on a colour terminal ok is green and every other outcome red", "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  WriteLines(path, {FormatCallRecord(Record("a", "t", "ok")),
                    FormatCallRecord(Record("a", "t", "denied"))});
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  run.io.stdout_is_tty = true;
  run.io.color = true;
  CHECK(run.Go(daemon) == 0);
  const std::vector<std::string> out = Lines(run.out.str());
  REQUIRE(out.size() == 2);
  CHECK_THAT(out[0], Catch::Contains("\x1b[32mok\x1b[0m    "));
  CHECK_THAT(out[1], Catch::Contains("\x1b[31mdenied\x1b[0m"));
}

TEST_CASE("names lose their control characters and argument values never show", "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  WriteLines(path, {FormatCallRecord(Record("evil\x1b[2J\x07ns",
                                            "t\xc2\x9b"
                                            "31mool\n",
                                            "ok"))});
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  run.io.stdout_is_tty = true;
  CHECK(run.Go(daemon) == 0);
  CHECK_THAT(run.out.str(), Catch::Contains("evilns/tool "));
  CHECK(run.out.str().find('\x1b') == std::string::npos);
  CHECK(run.out.str().find('\x07') == std::string::npos);
  CHECK(run.out.str().find("aaaa") == std::string::npos);  // not even the digest
}

TEST_CASE("log: --server, --tool, --errors and --since keep only what they name", "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  WriteLines(path, {FormatCallRecord(Record("alpha", "echo", "ok", 0)),
                    FormatCallRecord(Record("alpha", "add", "backend", 1500)),
                    FormatCallRecord(Record("beta", "echo", "denied", 2500)),
                    FormatCallRecord(Record("alphabet", "echo", "ok", 3500))});
  FakeDaemon daemon = DaemonWithLog(path);
  const auto calls = [&](const std::function<void(Invocation&)>& set) {
    Run run;
    set(run.inv);
    REQUIRE(run.Go(daemon) == 0);
    std::vector<std::string> found;
    for (const std::string& line : Lines(run.out.str())) {
      std::istringstream words(line);
      std::string date, time, pid_word, pid, call, outcome;
      words >> date >> time >> pid_word >> pid >> call >> outcome;
      found.push_back(call + " " + outcome);
    }
    return found;
  };
  using V = std::vector<std::string>;
  CHECK(calls([](Invocation&) {}).size() == 4);
  CHECK(calls([](Invocation& i) { i.ns = "alpha"; }) == V{"alpha/echo ok", "alpha/add backend"});
  CHECK(calls([](Invocation& i) { i.tool = "echo"; }) ==
        V{"alpha/echo ok", "beta/echo denied", "alphabet/echo ok"});
  CHECK(calls([](Invocation& i) {
          i.ns = "alpha";
          i.tool = "echo";
        }) == V{"alpha/echo ok"});
  CHECK(calls([](Invocation& i) { i.errors_only = true; }) ==
        V{"alpha/add backend", "beta/echo denied"});
  // The clock reads kT0 + 3600: 3599 s back keeps what came 1 s or more after kT0.
  CHECK(calls([](Invocation& i) { i.since = "3599s"; }) ==
        V{"alpha/add backend", "beta/echo denied", "alphabet/echo ok"});
  CHECK(calls([](Invocation& i) { i.since = "59m"; }) == V{});
  CHECK(calls([](Invocation& i) { i.since = "2h"; }).size() == 4);
  CHECK(calls([](Invocation& i) {
          i.since = "1d";
          i.errors_only = true;
          i.tool = "echo";
        }) == V{"beta/echo denied"});
}

TEST_CASE("a bad --since is misuse, before the daemon is asked", "[cli][log]") {
  FakeDaemon daemon = DaemonWithLog("/nonexistent/calls.jsonl");
  Run run;
  run.inv.since = "yesterday";
  CHECK(run.Go(daemon) == kExitMisuse);
  CHECK(run.err.str() ==
        "mcpgw: --since \"yesterday\" is not a duration: write a whole number and a unit, s, m, "
        "h or d (30s, 10m, 2h, 1d, 1h30m)\nRun 'mcpgw log --help' for usage.\n");
  CHECK(daemon.methods.empty());
  CHECK(run.out.str().empty());
}

TEST_CASE("log: --json prints the matching lines as they are in the file", "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  const std::string ok = FormatCallRecord(Record("alpha", "echo", "ok"));
  const std::string failed = FormatCallRecord(Record("alpha", "echo", "backend", 5));
  WriteLines(path, {ok, "garbage", failed});
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  run.inv.json = true;
  CHECK(run.Go(daemon) == 0);
  CHECK(run.out.str() == ok + "\n" + failed + "\n");
  Run errors;
  errors.inv.json = true;
  errors.inv.errors_only = true;
  CHECK(errors.Go(daemon) == 0);
  CHECK(errors.out.str() == failed + "\n");
}

TEST_CASE("malformed, binary and overlong lines are skipped and counted", "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  {
    std::ofstream out(path, std::ios::binary);
    out << FormatCallRecord(Record("a", "one", "ok")) << "\n";
    out << "{\"time\":\"2025\"}\n";
    out << std::string("\x00\x01\x02\xff\xfe", 5) << " binary\n";
    out << "\n";  // a blank line is not counted
    out << "{\"x\":\"" << std::string(kMaxLogLineBytes + 10, 'y') << "\"}\n";
    out << std::string(3 * kMaxLogLineBytes, '[') << "\n";
    out << FormatCallRecord(Record("a", "two", "ok")) << "\r\n";
    out << FormatCallRecord(Record("a", "three", "ok")).substr(0, 40);  // cut short: no newline
  }
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  CHECK(run.Go(daemon) == 0);
  const std::vector<std::string> out = Lines(run.out.str());
  REQUIRE(out.size() == 2);
  CHECK_THAT(out[0], Catch::Contains("a/one"));
  CHECK_THAT(out[1], Catch::Contains("a/two"));
  CHECK(run.err.str() == "mcpgw: skipped 5 lines of " + path +
                             " (or its rotated files) that are not call records\n");
}

TEST_CASE("rotated files are read oldest first: path.N ... path.1, then path", "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  WriteLines(path + ".3", {FormatCallRecord(Record("a", "first", "ok", 0))});
  WriteLines(path + ".2", {FormatCallRecord(Record("a", "second", "ok", 1))});
  WriteLines(path + ".1", {FormatCallRecord(Record("a", "third", "ok", 2))});
  WriteLines(path, {FormatCallRecord(Record("a", "fourth", "ok", 3))});
  WriteLines(path + ".5", {FormatCallRecord(Record("a", "orphan", "ok", 4))});  // .4 missing
  CHECK(LogFilesOldestFirst(path) ==
        std::vector<std::string>{path + ".3", path + ".2", path + ".1", path});
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  CHECK(run.Go(daemon) == 0);
  const std::vector<std::string> out = Lines(run.out.str());
  REQUIRE(out.size() == 4);
  CHECK_THAT(out[0], Catch::Contains("a/first"));
  CHECK_THAT(out[1], Catch::Contains("a/second"));
  CHECK_THAT(out[2], Catch::Contains("a/third"));
  CHECK_THAT(out[3], Catch::Contains("a/fourth"));
}

TEST_CASE("log: no file yet is an empty log, and an unreadable one is an error", "[cli][log]") {
  TempDir dir;
  FakeDaemon missing = DaemonWithLog(dir / "calls.jsonl");
  Run run;
  CHECK(run.Go(missing) == 0);
  CHECK(run.out.str().empty());
  CHECK(run.err.str().empty());

  FakeDaemon directory = DaemonWithLog(dir / "");
  Run dir_run;
  CHECK(dir_run.Go(directory) == 1);
  CHECK_THAT(dir_run.err.str(), Catch::StartsWith("mcpgw: cannot read the call log"));
}

TEST_CASE("the daemon not running reads as it does for mcpgw status", "[cli][log]") {
  const ApiResult down{MCPGW_UNAVAILABLE,
                       "cannot connect to mcpgwd at /run/user/1000/mcpgw/mcpgw.sock: No such file "
                       "or directory (is mcpgwd running?)"};
  FakeDaemon daemon;
  daemon.status = down;
  Run run;
  const int code = run.Go(daemon);

  class DownDaemon : public DaemonApi {
   public:
    explicit DownDaemon(ApiResult r) : r_(std::move(r)) {}
    ApiResult GetDynamicTools(const ToolsRequest&, CancelToken*) override { return r_; }
    ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&, long long,
                              CancelToken*) override {
      return r_;
    }
    ApiResult Status(CancelToken*) override { return r_; }

   private:
    ApiResult r_;
  } status_daemon(down);
  Run status;
  const int status_code = RunStatus(status_daemon, status.inv, status.io);
  CHECK(code == status_code);
  CHECK(code == 7);
  CHECK(run.err.str() == status.err.str());
  CHECK(run.out.str().empty());
}

TEST_CASE("a call log that is off says how to turn it on", "[cli][log]") {
  FakeDaemon daemon;
  daemon.status.text =
      R"({"daemon":{"call_log":null,"settings":"/home/u/.config/mcpgw/settings.json"}})";
  Run run;
  CHECK(run.Go(daemon) == 1);
  CHECK(run.err.str() ==
        "mcpgw: the call log is off: set \"call_log\": {\"path\": \"/absolute/path.jsonl\"} in "
        "/home/u/.config/mcpgw/settings.json (docs/SETTINGS.md) and restart mcpgwd\n");
  daemon.status.text = R"({"daemon":{"call_log":null,"settings":null}})";
  Run no_settings;
  CHECK(no_settings.Go(daemon) == 1);
  CHECK_THAT(no_settings.err.str(), Catch::Contains("call_log") &&
                                        Catch::Contains("~/.config/mcpgw/settings.json") &&
                                        Catch::Contains("docs/SETTINGS.md"));
}

TEST_CASE("a daemon that does not name its call log, or a status not JSON", "[cli][log]") {
  FakeDaemon daemon;
  daemon.status.text = R"({"daemon":{"version":"0.0.9"},"servers":[]})";
  Run old;
  CHECK(old.Go(daemon) == 1);
  CHECK_THAT(old.err.str(), Catch::Contains("does not say where its call log is"));
  daemon.status.text = "not json";
  Run garbled;
  CHECK(garbled.Go(daemon) == 5);
  CHECK(garbled.err.str() == "mcpgw: transport: the daemon sent a status that is not JSON\n");
}

// ---- -f ----------------------------------------------------------------------------------

// Runs `steps` one per wait of -f (each sees what the ones before wrote), then ends it.
std::function<bool(double)> Steps(std::vector<std::function<void()>> steps, int* waits) {
  return [steps = std::move(steps), waits](double seconds) {
    CHECK(seconds == kLogPollIntervalS);
    const size_t at = static_cast<size_t>((*waits)++);
    if (at >= steps.size()) return false;
    steps[at]();
    return true;
  };
}

TEST_CASE("log: -f prints what is appended, across the daemon's rotation", "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  const size_t line_bytes = FormatCallRecord(Record("a", "t00", "ok")).size() + 1;
  CallLog log;
  // Room for three lines a file: the fourth rotates.
  REQUIRE(log.Open(path, 3 * line_bytes, 3).ok());
  int n = 0;
  const auto append = [&](int count) {
    for (int i = 0; i < count; ++i, ++n) {
      char tool[8];
      std::snprintf(tool, sizeof tool, "t%02d", n);
      REQUIRE(log.Append(Record("a", tool, "ok", n)).ok());
    }
  };
  append(2);
  int waits = 0;
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  const int code = run.Follow(daemon, Steps({
                                                [&] { append(1); },  // t02: fills the file
                                                [&] {},              // nothing new
                                                [&] { append(2); },  // t03 rotates, t04
                                                [&] { append(3); },  // t05, rotates: t06, t07
                                                [&] { append(7); },  // two rotations in a step
                                            },
                                            &waits));
  CHECK(code == 0);
  CHECK(waits == 6);
  const std::vector<std::string> out = Lines(run.out.str());
  INFO(run.out.str() << run.err.str());
  REQUIRE(out.size() == 15);
  for (int i = 0; i < 15; ++i) {
    char tool[8];
    std::snprintf(tool, sizeof tool, "a/t%02d", i);
    CHECK_THAT(out[static_cast<size_t>(i)], Catch::Contains(tool));
  }
  CHECK(run.err.str().empty());
}

TEST_CASE("log: -f waits for a log not made yet, reads a partial line once whole, and filters",
          "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  const std::string first = FormatCallRecord(Record("a", "first", "ok"));
  const std::string second = FormatCallRecord(Record("a", "second", "denied"));
  const std::string third = FormatCallRecord(Record("a", "third", "backend"));
  int waits = 0;
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  run.inv.json = true;
  run.inv.errors_only = true;
  const auto append = [&](const std::string& text) {
    std::ofstream out(path, std::ios::app | std::ios::binary);
    out << text;
  };
  const int code = run.Follow(
      daemon, Steps({
                        [&] {},                                                // no file yet
                        [&] { append(first + "\n" + second.substr(0, 30)); },  // half a line
                        [&] { CHECK(run.out.str().empty()); },
                        [&] { append(second.substr(30) + "\n"); },
                        [&] {
                          // Cut short in place (not the daemon's way): read again from the start.
                          std::ofstream(path, std::ios::trunc) << third << "\n";
                        },
                    },
                    &waits));
  CHECK(code == 0);
  CHECK(run.out.str() == second + "\n" + third + "\n");
  CHECK(run.err.str().empty());
}

TEST_CASE("log: -f after keep 0 (the file removed and made anew) goes on in the new file",
          "[cli][log]") {
  TempDir dir;
  const std::string path = dir / "calls.jsonl";
  const size_t line_bytes = FormatCallRecord(Record("a", "t0", "ok")).size() + 1;
  CallLog log;
  REQUIRE(log.Open(path, 2 * line_bytes, 0).ok());
  REQUIRE(log.Append(Record("a", "t0", "ok")).ok());
  int waits = 0;
  FakeDaemon daemon = DaemonWithLog(path);
  Run run;
  const int code =
      run.Follow(daemon, Steps({[&] { REQUIRE(log.Append(Record("a", "t1", "ok")).ok()); },
                                [&] { REQUIRE(log.Append(Record("a", "t2", "ok")).ok()); },
                                [&] { REQUIRE(log.Append(Record("a", "t3", "ok")).ok()); }},
                               &waits));
  CHECK(code == 0);
  const std::vector<std::string> out = Lines(run.out.str());
  REQUIRE(out.size() == 4);
  for (int i = 0; i < 4; ++i) {
    CHECK_THAT(out[static_cast<size_t>(i)], Catch::Contains("a/t" + std::to_string(i) + " "));
  }
}

}  // namespace
}  // namespace mcpgw::cli
