// `mcpgw top`: frames from status answers (rows, h2/stdio, local columns), rates from two
// refreshes (calls/s, CPU %), sorting, the filter, selection and detail keys, widths and a
// terminal too small, `--once` and `--json` against a scripted daemon, and its options.
#include <algorithm>
#include <deque>
#include <memory>
#include <sstream>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "client/cli/commands.h"
#include "client/cli/sanitize.h"
#include "client/cli/top_model.h"
#include "client/cli/top_render.h"
#include "client/cli/top_view.h"

namespace mcpgw::cli {
namespace {

constexpr double kNow = 1764470000.0;

// A status answer as the daemon gives it, with the last minute's figures.
const char* kStatus = R"({"daemon":{"version":"0.1.0","pid":4242,"uptime_s":11520.5,
  "host_connections":2,"rss_bytes":45100000,"cpu_s":12.5,"calls":1200,"in_flight":1,"queued":2,
  "call_log":null},
 "servers":[
  {"namespace":"alpha","status":"ready","transport":"http","http_version":"HTTP/2",
   "url":"https://alpha.example.com/mcp","calls":1000,"errors":3,"in_flight":1,"queued":0,
   "reason":"","last_error":"transport: HTTP 502 Bad Gateway","last_error_unix":1764469800.0,
   "minute":{"calls":120,"p50_ms":1.25,"p99_ms":40.5,"errors":{"transport":2,"backend":1}},
   "local":null,"oauth":null,"pins":null},
  {"namespace":"beta","status":"loading","transport":"http","http_version":null,
   "url":"http://127.0.0.1:9000/mcp","calls":0,"errors":0,"in_flight":0,"queued":0,"reason":"",
   "minute":{"calls":0,"p50_ms":null,"p99_ms":null,"errors":{}},"local":null},
  {"namespace":"gamma","status":"error","transport":"http","http_version":"HTTP/1.1",
   "url":"http://127.0.0.1:9/mcp","calls":5,"errors":5,"in_flight":0,"queued":0,
   "reason":"connect: connection refused","last_error":"connect: connection refused",
   "last_error_unix":1764469990.0,"minute":{"calls":0,"p50_ms":null,"p99_ms":null,"errors":{}},
   "oauth":{"state":"login required","error":"the refresh token was revoked"}},
  {"namespace":"files","status":"ready","transport":"stdio","url":null,"calls":195,"errors":0,
   "in_flight":0,"queued":2,"reason":"",
   "minute":{"calls":60,"p50_ms":300,"p99_ms":1500,"errors":{}},
   "local":{"command":"node server.mjs","pid":5151,"uptime_s":600,"restarts":2,
            "rss_bytes":12300000,"stderr_tail":["starting","listening on stdio","slow disk"]},
   "pins":{"changed":1,"new":0}}]})";

// The same daemon two seconds later: alpha finished 10 calls, files 1; 0.1 s of CPU.
const char* kLater = R"({"daemon":{"version":"0.1.0","pid":4242,"uptime_s":11522.5,
  "host_connections":2,"rss_bytes":45100000,"cpu_s":12.6,"calls":1211,"in_flight":0,"queued":0},
 "servers":[
  {"namespace":"alpha","status":"ready","transport":"http","http_version":"HTTP/2","calls":1010,
   "in_flight":0,"queued":0,
   "minute":{"calls":121,"p50_ms":1.25,"p99_ms":40.5,"errors":{"transport":2,"backend":1}}},
  {"namespace":"files","status":"ready","transport":"stdio","calls":196,"in_flight":0,
   "queued":0,"minute":{"calls":61,"p50_ms":300,"p99_ms":1500,"errors":{}},
   "local":{"pid":5151,"restarts":2,"rss_bytes":12300000}}]})";

TopSample Sample(const char* json, double taken_s = 0) {
  std::optional<TopSample> sample = ParseTopSample(json, taken_s);
  REQUIRE(sample);
  return *sample;
}

TopFrame Frame(const char* json) { return MakeTopFrame(nullptr, Sample(json)); }

const TopServer& Server(const TopFrame& frame, std::string_view ns) {
  for (const TopServer& s : frame.sample.servers) {
    if (s.ns == ns) return s;
  }
  FAIL("no server " << ns);
  throw;
}

std::vector<std::string> Texts(const std::vector<TopLine>& lines) {
  std::vector<std::string> out;
  for (const TopLine& line : lines) out.push_back(line.Text());
  return out;
}

std::vector<std::string> Screen(const TopFrame& frame, const TopState& state, size_t width = 120,
                                size_t height = 40) {
  return Texts(RenderTopScreen(frame, state, width, height, kNow));
}

std::vector<std::string> Names(const TopFrame& frame, const TopState& state) {
  std::vector<std::string> names;
  for (const TopServer* s : VisibleRows(frame, state)) names.push_back(s->ns);
  return names;
}

TopAction Key(TopState& state, const TopFrame& frame, TopKey key, char32_t ch = 0) {
  return HandleTopKey(state, TopInput{key, ch}, VisibleRows(frame, state));
}
TopAction Char(TopState& state, const TopFrame& frame, char32_t ch) {
  return Key(state, frame, TopKey::kChar, ch);
}

TEST_CASE("top reads each server's row from a status answer", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  const TopServer& alpha = Server(frame, "alpha");
  CHECK(alpha.transport == "h2");  // HTTP/2 shows as h2
  CHECK(alpha.has_minute);
  CHECK(alpha.minute_calls == 120);
  CHECK(alpha.p50_ms == 1.25);
  CHECK(alpha.p99_ms == 40.5);
  REQUIRE(alpha.minute_errors.size() == 2);
  CHECK(alpha.minute_errors[0].kind == "transport");
  CHECK(alpha.MinuteErrors() == 3);
  CHECK(ErrorsCompact(alpha) == "2t 1b");
  CHECK_FALSE(alpha.local);
  CHECK(Server(frame, "gamma").transport == "http");
  CHECK(Server(frame, "beta").p50_ms == std::nullopt);
  const TopServer& files = Server(frame, "files");
  CHECK(files.transport == "stdio");
  CHECK(files.local);
  CHECK(files.pid == 5151u);
  CHECK(files.restarts == 2);
  CHECK(files.rss_bytes == 12300000u);
  CHECK(files.stderr_tail.size() == 3);
  CHECK(files.pins_changed == 1);
  CHECK(frame.sample.hosts == 2u);
  CHECK(frame.in_flight == 1);  // the daemon's own figures when it sends them
  CHECK(frame.queued == 2);

  CHECK_FALSE(ParseTopSample("<html>", 0));
  // A daemon without the newer fields: the rows still read, their figures unset.
  const TopFrame old = Frame(R"({"daemon":{"version":"0.0.9"},"servers":[
    {"namespace":"x\u001b[31m","status":"ready","url":"http://a","in_flight":3,"queued":1},
    {"namespace":"y","status":"ready","local":{"pid":null,"restarts":0}}]})");
  CHECK(old.sample.servers[0].ns == "x");  // escape sequences stripped
  CHECK(old.sample.servers[0].transport == "http");
  CHECK(old.sample.servers[1].transport == "stdio");
  CHECK_FALSE(old.sample.servers[0].has_minute);
  CHECK(ErrorsCompact(old.sample.servers[0]) == "-");
  CHECK(old.sample.servers[0].calls_per_s == std::nullopt);
  CHECK(old.calls_per_s == std::nullopt);
  CHECK(old.in_flight == 3);  // the servers' sum
  CHECK(old.queued == 1);
}

TEST_CASE("top's first frame takes calls/s from the last minute and has no CPU %", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  CHECK(Server(frame, "alpha").calls_per_s == Approx(2.0));  // 120 calls / 60 s
  CHECK(Server(frame, "files").calls_per_s == Approx(1.0));
  CHECK(Server(frame, "beta").calls_per_s == Approx(0.0));
  REQUIRE(frame.calls_per_s);
  CHECK(*frame.calls_per_s == Approx(3.0));
  CHECK(frame.cpu_percent == std::nullopt);
  CHECK(Screen(frame, {})[0] == "mcpgwd 0.1.0  pid 4242  up 3h 12m  hosts 2  mem 45.1M  cpu -");
}

TEST_CASE("top's rates come from the difference between two refreshes", "[cli][top]") {
  const TopSample first = Sample(kStatus, 100);
  const TopFrame frame = MakeTopFrame(&first, Sample(kLater, 105));
  // The daemon's uptime says 2 s passed (the caller's clock 5 s: the daemon's wins).
  CHECK(Server(frame, "alpha").calls_per_s == Approx(5.0));
  CHECK(Server(frame, "files").calls_per_s == Approx(0.5));
  REQUIRE(frame.calls_per_s);
  CHECK(*frame.calls_per_s == Approx(5.5));  // daemon.calls: 11 in 2 s
  REQUIRE(frame.cpu_percent);
  CHECK(*frame.cpu_percent == Approx(5.0));  // 0.1 CPU s in 2 s
  CHECK(Screen(frame, {})[0] == "mcpgwd 0.1.0  pid 4242  up 3h 12m  hosts 2  mem 45.1M  cpu 5.0%");
  CHECK(Screen(frame, {})[1].starts_with("calls/s 5.50  in flight 0  queued 0  sort NAME (asc)"));

  SECTION("without the daemon's uptime, the caller's clock") {
    TopSample a = Sample(kStatus, 100);
    TopSample b = Sample(kLater, 104);
    a.uptime_s.reset();
    b.uptime_s.reset();
    const TopFrame f = MakeTopFrame(&a, b);
    CHECK(Server(f, "alpha").calls_per_s == Approx(2.5));
    CHECK(*f.cpu_percent == Approx(2.5));
  }
  SECTION("a restarted daemon (another pid) starts over as a first frame") {
    TopSample b = Sample(kLater, 105);
    b.pid = 9999;
    CHECK(DaemonRestarted(first, b));
    const TopFrame f = MakeTopFrame(&first, b);
    CHECK(Server(f, "alpha").calls_per_s == Approx(121.0 / 60));
    CHECK(f.cpu_percent == std::nullopt);
  }
  SECTION("a server new since the last refresh takes its minute's rate") {
    const TopSample empty = Sample(R"({"daemon":{"pid":4242,"uptime_s":11521.5},"servers":[]})");
    const TopFrame f = MakeTopFrame(&empty, Sample(kLater));
    CHECK(Server(f, "alpha").calls_per_s == Approx(121.0 / 60));
  }
}

TEST_CASE("top shows a header and a row per server", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  const std::vector<TopLine> lines = RenderTopScreen(frame, {}, 120, 40, kNow);
  const std::vector<std::string> text = Texts(lines);
  REQUIRE(text.size() == 8);
  CHECK(text[0] == "mcpgwd 0.1.0  pid 4242  up 3h 12m  hosts 2  mem 45.1M  cpu -");
  CHECK(text[1] == "calls/s 3.00  in flight 1  queued 2  sort NAME (asc)  4 servers, 1 in error");
  CHECK(text[2] == "q quit  s/</> sort  r reverse  / filter  Enter detail");
  CHECK(text[3] ==
        "NAME   STATE    TRANSPORT  CALLS/S    P50    P99  ERR/MIN  IN FLIGHT  QUEUED   PID  "
        "RESTARTS    MEM");
  CHECK(text[4] ==
        "alpha  ready    h2            2.00  1.2ms   40ms    2t 1b          1       0     -  "
        "       -      -");
  CHECK(text[5] ==
        "beta   loading  http             0      -      -        0          0       0     -  "
        "       -      -");
  CHECK(text[6] ==
        "files  ready    stdio         1.00  300ms  1.50s        0          0       2  5151  "
        "       2  12.3M");
  CHECK(text[7] ==
        "gamma  error    http             0      -      -        0          0       0     -  "
        "       -      -");
  CHECK(lines[4].selected);  // the first row until another is chosen
  CHECK_FALSE(lines[5].selected);
  // Styles the screen colours: states, errors, queued requests.
  CHECK(lines[4].spans[2].style == TopStyle::kGood);
  CHECK(lines[5].spans[2].style == TopStyle::kWarn);
  CHECK(lines[7].spans[2].style == TopStyle::kBad);
  CHECK(lines[4].spans[12].style == TopStyle::kBad);   // 2t 1b
  CHECK(lines[6].spans[16].style == TopStyle::kWarn);  // 2 queued
  CHECK(lines[3].spans[0].style == TopStyle::kBold);
}

TEST_CASE("top formats its cells", "[cli][top]") {
  CHECK(FormatRate(std::nullopt) == "-");
  CHECK(FormatRate(0) == "0");
  CHECK(FormatRate(1.0 / 60) == "0.02");
  CHECK(FormatRate(12.34) == "12.3");
  CHECK(FormatRate(1500) == "1500");
  CHECK(FormatMillis(0.4) == "0.4ms");
  CHECK(FormatMillis(250) == "250ms");
  CHECK(FormatMillis(1500) == "1.50s");
  CHECK(FormatMillis(65000) == "65.0s");
  CHECK(FormatBytes(512) == "512B");
  CHECK(FormatBytes(812000) == "812K");
  CHECK(FormatBytes(12300000) == "12.3M");
  CHECK(FormatBytes(1200000000) == "1.20G");
  TopServer s;
  s.has_minute = true;
  s.minute_errors = {{"transport", 12}, {"backend", 3}, {"denied", 1}, {"not_ready", 4}};
  CHECK(ErrorsCompact(s) == "20");  // the kinds do not fit: the total
  s.minute_errors = {{"not_ready", 1}, {"invalid_request", 2}};
  CHECK(ErrorsCompact(s) == "1n 2i");
}

TEST_CASE("top sorts by a column chosen with s, < and >, r reverses", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  TopState state;
  CHECK(Names(frame, state) == std::vector<std::string>{"alpha", "beta", "files", "gamma"});
  CHECK(Char(state, frame, 's') == TopAction::kRedraw);
  CHECK(state.sort == TopColumn::kState);
  CHECK(Names(frame, state) == std::vector<std::string>{"gamma", "beta", "alpha", "files"});
  Char(state, frame, '>');
  Char(state, frame, '>');
  CHECK(state.sort == TopColumn::kCallsPerS);
  CHECK(state.descending);  // numbers: the biggest first
  CHECK(Names(frame, state) == std::vector<std::string>{"alpha", "files", "beta", "gamma"});
  CHECK(Screen(frame, state)[1].find("sort CALLS/S (desc)") != std::string::npos);
  Char(state, frame, 'r');
  CHECK(Names(frame, state) == std::vector<std::string>{"beta", "gamma", "files", "alpha"});
  CHECK(Screen(frame, state)[1].find("sort CALLS/S (asc)") != std::string::npos);
  Char(state, frame, '>');  // P50: the servers without one last, either way
  CHECK(Names(frame, state) == std::vector<std::string>{"files", "alpha", "beta", "gamma"});
  Char(state, frame, 'r');
  CHECK(Names(frame, state) == std::vector<std::string>{"alpha", "files", "beta", "gamma"});
  Char(state, frame, '<');
  Char(state, frame, '<');
  Char(state, frame, '<');
  Char(state, frame, '<');
  CHECK(state.sort == TopColumn::kName);
  Char(state, frame, '<');  // wraps around to the last column
  CHECK(state.sort == TopColumn::kMem);
  CHECK(Names(frame, state) == std::vector<std::string>{"files", "alpha", "beta", "gamma"});
}

TEST_CASE("top filters rows by name with /", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  TopState state;
  CHECK(Char(state, frame, '/') == TopAction::kRedraw);
  CHECK(state.editing);
  Char(state, frame, 'P');
  Char(state, frame, 'h');
  Char(state, frame, 'x');
  CHECK(Key(state, frame, TopKey::kBackspace) == TopAction::kRedraw);
  CHECK(Char(state, frame, U'\x07') == TopAction::kNone);  // control characters are not typed
  CHECK(Char(state, frame, U'\x9b') == TopAction::kNone);
  CHECK(Screen(frame, state)[2].starts_with("filter: Ph_"));
  CHECK(Names(frame, state).size() == 4);  // applied on Enter only
  CHECK(Key(state, frame, TopKey::kEnter) == TopAction::kRedraw);
  CHECK_FALSE(state.editing);
  CHECK(Names(frame, state) == std::vector<std::string>{"alpha"});  // any case
  const std::vector<std::string> screen = Screen(frame, state);
  CHECK(screen[1].find("filter \"Ph\": 1 of 4") != std::string::npos);
  CHECK(screen.size() == 5);
  CHECK(screen[4].starts_with("alpha"));

  SECTION("Esc while typing clears it") {
    Char(state, frame, '/');
    CHECK(Char(state, frame, 'q') == TopAction::kRedraw);  // typed, not a quit
    CHECK(state.edit == "Phq");
    CHECK(Key(state, frame, TopKey::kEscape) == TopAction::kRedraw);
    CHECK(state.filter.empty());
    CHECK(Names(frame, state).size() == 4);
  }
  SECTION("Esc in the table clears it") {
    CHECK(Key(state, frame, TopKey::kEscape) == TopAction::kRedraw);
    CHECK(state.filter.empty());
    CHECK(Key(state, frame, TopKey::kEscape) == TopAction::kNone);
  }
  SECTION("a filter nothing matches") {
    Char(state, frame, '/');
    Key(state, frame, TopKey::kBackspace);
    Key(state, frame, TopKey::kBackspace);
    Char(state, frame, 'z');
    Key(state, frame, TopKey::kEnter);
    const std::vector<std::string> none = Screen(frame, state);
    CHECK(none.back() == "no server's name contains \"z\"");
    CHECK(Key(state, frame, TopKey::kEnter) == TopAction::kNone);  // no row to open
  }
}

TEST_CASE("top moves the selection, opens and closes a detail, quits with q", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  TopState state;
  CHECK(Key(state, frame, TopKey::kDown) == TopAction::kRedraw);
  CHECK(state.selected == "beta");
  Char(state, frame, 'j');
  CHECK(state.selected == "files");
  Char(state, frame, 'k');
  Key(state, frame, TopKey::kDown);
  Key(state, frame, TopKey::kDown);
  Key(state, frame, TopKey::kDown);  // stays on the last row
  CHECK(state.selected == "gamma");
  CHECK(RenderTopScreen(frame, state, 120, 40, kNow)[7].selected);
  Key(state, frame, TopKey::kHome);
  CHECK(state.selected == "alpha");
  Key(state, frame, TopKey::kEnd);
  CHECK(state.selected == "gamma");

  // Unknown keys change nothing.
  const TopState before = state;
  for (char32_t ch : {U'x', U'Z', U'1', U'?', U' ', U'\x01', U'\u00e9'}) {
    CHECK(Char(state, frame, ch) == TopAction::kNone);
  }
  CHECK(Key(state, frame, TopKey::kBackspace) == TopAction::kNone);
  CHECK(state.selected == before.selected);
  CHECK(state.sort == before.sort);

  CHECK(Key(state, frame, TopKey::kEnter) == TopAction::kRedraw);
  REQUIRE(state.detail);
  CHECK(*state.detail == "gamma");
  CHECK(Char(state, frame, 's') == TopAction::kNone);    // the table's keys wait
  CHECK(Char(state, frame, 'q') == TopAction::kRedraw);  // q closes the detail ...
  CHECK_FALSE(state.detail);
  Key(state, frame, TopKey::kEnter);
  CHECK(Key(state, frame, TopKey::kEscape) == TopAction::kRedraw);  // ... as Esc does
  CHECK_FALSE(state.detail);
  CHECK(Char(state, frame, 'q') == TopAction::kQuit);  // ... and quits from the table
}

TEST_CASE("top's detail shows reasons, errors, stderr, pins and OAuth", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  TopState state;
  state.detail = "gamma";
  std::vector<std::string> text = Screen(frame, state, 80, 40);
  CHECK(text[2] == "Esc or q: back to the table");
  CHECK(text[3] == "gamma  error  http");
  CHECK(text[4] == "url:         http://127.0.0.1:9/mcp");
  CHECK(text[5] == "reason:      connect: connection refused");
  CHECK(text[6] == "last error:  connect: connection refused (10s ago)");
  CHECK(text[7] == "errors:      none in the last minute");
  CHECK(text[8] == "oauth:       login required: the refresh token was revoked");
  CHECK(text[9] == "latency:     no calls in the last minute");

  state.detail = "alpha";
  text = Screen(frame, state, 80, 40);
  CHECK(text[5] == "last error:  transport: HTTP 502 Bad Gateway (3m ago)");
  CHECK(text[6] == "errors:      2 transport, 1 backend in the last minute");
  CHECK(text[7] == "latency:     p50 1.2ms, p99 40ms over 120 calls in the last minute");

  state.detail = "files";
  text = Screen(frame, state, 80, 40);
  CHECK(text[3] == "files  ready  stdio");
  CHECK(text[5] == "pins:        1 changed withheld until approved (mcpgw pins files)");
  CHECK(text[6] == "process:     pid 5151, 2 restarts, 12.3M resident with its children");
  CHECK(text[10] == "stderr, last lines:");
  CHECK(text[11] == "             starting");
  CHECK(text[13] == "             slow disk");
  // A short screen keeps the last stderr lines and cuts facts.
  text = Screen(frame, state, 80, 10);
  CHECK(text.size() == 10);
  CHECK(text.back() == "             slow disk");

  state.detail = "gone";
  CHECK(Screen(frame, state)[3] == "gone: no longer in the daemon's status");
}

TEST_CASE("top fits its lines to the terminal, or says it is too small", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  for (size_t width : {60, 72, 80, 100, 200}) {
    for (const std::string& line : Screen(frame, {}, width, 10)) {
      INFO(width << ": " << line);
      CHECK(DisplayWidth(line) <= width);
    }
  }
  // 60 columns: the columns a narrow terminal can do without go first.
  const std::vector<std::string> narrow = Screen(frame, {}, 60, 10);
  CHECK(narrow[3] == "NAME   STATE    CALLS/S    P50    P99  ERR/MIN  IN FLIGHT");
  CHECK(narrow[6] == "files  ready       1.00  300ms  1.50s        0          0");
  CHECK(Screen(frame, {}, 80, 10)[3] ==
        "NAME   STATE    CALLS/S    P50    P99  ERR/MIN  IN FLIGHT   PID    MEM");

  for (auto [width, height] : {std::pair{59, 10}, std::pair{60, 9}, std::pair{20, 3}}) {
    const std::vector<std::string> small = Screen(frame, {}, width, height);
    REQUIRE(small.size() == 1);
    CHECK(DisplayWidth(small[0]) <= static_cast<size_t>(width));
    CHECK(small[0].starts_with("terminal too small"));
  }
  CHECK(Screen(frame, {}, 59, 10)[0] == "terminal too small: 59x10, mcpgw top needs 60x10");

  // A long name gives way first.
  const TopFrame longer = Frame(R"({"servers":[{"namespace":
    "a-server-with-a-very-long-name-indeed-longer-than-thirty-two","status":"ready"}]})");
  const std::vector<std::string> text = Screen(longer, {}, 60, 10);
  CHECK(text[4].starts_with("a-server-with-"));
  CHECK(text[4].find("…") != std::string::npos);
  CHECK(DisplayWidth(text[4]) <= 60);
}

TEST_CASE("top scrolls so the selected row shows", "[cli][top]") {
  std::string json = R"({"servers":[)";
  for (int i = 0; i < 30; ++i) {
    json += (i > 0 ? "," : "") + std::string(R"({"namespace":"s)") + (i < 10 ? "0" : "") +
            std::to_string(i) + R"(","status":"ready"})";
  }
  json += "]}";
  const TopFrame frame = Frame(json.c_str());
  TopState state;
  state.page_rows = 6;
  std::vector<std::string> text = Screen(frame, state, 80, 10);
  CHECK(text.size() == 10);
  CHECK(text[4].starts_with("s00"));
  Key(state, frame, TopKey::kPageDown);
  Key(state, frame, TopKey::kPageDown);
  CHECK(state.selected == "s12");
  const std::vector<TopLine> lines = RenderTopScreen(frame, state, 80, 10, kNow);
  CHECK(lines.back().Text().starts_with("s12"));
  CHECK(lines.back().selected);
  Key(state, frame, TopKey::kPageUp);
  CHECK(state.selected == "s06");
}

TEST_CASE("top's header says when the daemon is not reachable or came back", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  TopState state;
  state.notice = "daemon not reachable, retrying: unavailable: no daemon";
  state.notice_bad = true;
  const std::vector<TopLine> lines = RenderTopScreen(frame, state, 120, 40, kNow);
  CHECK(lines[2].Text() == "daemon not reachable, retrying: unavailable: no daemon");
  CHECK(lines[2].spans[0].style == TopStyle::kBad);
  CHECK(lines[4].Text().starts_with("alpha"));  // the last rows stay
}

TEST_CASE("top --once prints the frame as plain text", "[cli][top]") {
  const TopFrame frame = Frame(kStatus);
  const std::string once = RenderTopOnce(frame, {}, 0);
  CHECK(once ==
        "mcpgwd 0.1.0  pid 4242  up 3h 12m  hosts 2  mem 45.1M  cpu -\n"
        "calls/s 3.00  in flight 1  queued 2  sort NAME (asc)  4 servers, 1 in error\n"
        "\n"
        "NAME   STATE    TRANSPORT  CALLS/S    P50    P99  ERR/MIN  IN FLIGHT  QUEUED   PID  "
        "RESTARTS    MEM\n"
        "alpha  ready    h2            2.00  1.2ms   40ms    2t 1b          1       0     -  "
        "       -      -\n"
        "beta   loading  http             0      -      -        0          0       0     -  "
        "       -      -\n"
        "files  ready    stdio         1.00  300ms  1.50s        0          0       2  5151  "
        "       2  12.3M\n"
        "gamma  error    http             0      -      -        0          0       0     -  "
        "       -      -\n");
  for (size_t at = 0; (at = once.find('\n', at)) != std::string::npos; ++at) {
    CHECK((at == 0 || once[at - 1] != ' '));  // no trailing blanks
  }
  // On a terminal, cut to its width.
  const std::string cut = RenderTopOnce(frame, {}, 60);
  std::istringstream in(cut);
  for (std::string line; std::getline(in, line);) CHECK(DisplayWidth(line) <= 60);
}

TEST_CASE("top --json holds the frame's figures", "[cli][top]") {
  const TopSample first = Sample(kStatus);
  const std::string line = TopJsonLine(MakeTopFrame(&first, Sample(kLater)), kNow);
  CHECK(line.find('\n') == std::string::npos);
  rapidjson::Document d;
  d.Parse(line.c_str());
  REQUIRE(d.IsObject());
  CHECK(d["time_unix"].GetDouble() == kNow);
  const auto& daemon = d["daemon"];
  CHECK(std::string(daemon["version"].GetString()) == "0.1.0");
  CHECK(daemon["pid"].GetUint64() == 4242);
  CHECK(daemon["hosts"].GetUint64() == 2);
  CHECK(daemon["calls_per_s"].GetDouble() == Approx(5.5));
  CHECK(daemon["cpu_percent"].GetDouble() == Approx(5.0));
  CHECK(daemon["rss_bytes"].GetUint64() == 45100000);
  CHECK(daemon["in_flight"].GetUint64() == 0);
  const auto& servers = d["servers"];
  REQUIRE(servers.Size() == 2);
  const auto& alpha = servers[0];
  CHECK(std::string(alpha["namespace"].GetString()) == "alpha");
  CHECK(std::string(alpha["transport"].GetString()) == "h2");
  CHECK(alpha["calls_per_s"].GetDouble() == Approx(5.0));
  CHECK(alpha["p50_ms"].GetDouble() == 1.25);
  CHECK(alpha["p99_ms"].GetDouble() == 40.5);
  CHECK(alpha["errors_last_minute"]["transport"].GetUint64() == 2);
  CHECK(alpha["errors_last_minute"]["backend"].GetUint64() == 1);
  CHECK(alpha["pid"].IsNull());
  const auto& files = servers[1];
  CHECK(std::string(files["transport"].GetString()) == "stdio");
  CHECK(files["pid"].GetUint64() == 5151);
  CHECK(files["restarts"].GetUint64() == 2);
  CHECK(files["rss_bytes"].GetUint64() == 12300000);

  // The first frame: no CPU % yet; non-ASCII escaped.
  const std::string firstLine =
      TopJsonLine(Frame(R"({"servers":[{"namespace":"caf\u00e9"}]})"), kNow);
  CHECK(firstLine.find("\"cpu_percent\":null") != std::string::npos);
  CHECK(firstLine.find("caf\\u00E9") != std::string::npos);
  rapidjson::Document e;
  e.Parse(TopJsonErrorLine("daemon not reachable: unavailable: gone", kNow).c_str());
  REQUIRE(e.IsObject());
  CHECK(std::string(e["error"].GetString()) == "daemon not reachable: unavailable: gone");
}

// A daemon that answers status with the next of its scripted results (the last one again
// once they run out).
class ScriptedDaemon : public DaemonApi {
 public:
  explicit ScriptedDaemon(std::deque<ApiResult> results) : results_(std::move(results)) {}
  ApiResult GetDynamicTools(const ToolsRequest&, CancelToken*) override { return {}; }
  ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&, long long,
                            CancelToken*) override {
    return {};
  }
  ApiResult Status(CancelToken*) override {
    ++requests;
    ApiResult r = results_.front();
    if (results_.size() > 1) results_.pop_front();
    return r;
  }
  void SetTimeoutMs(long ms) override { timeout_ms = ms; }
  int requests = 0;
  long timeout_ms = 0;

 private:
  std::deque<ApiResult> results_;
};

// A clock whose sleeps pass at once, and whose `stop_after`-th sleep is a Ctrl-C.
TopClock FakeClock(double* now, int stop_after) {
  auto sleeps = std::make_shared<int>(0);
  TopClock clock;
  clock.now_s = [now] { return *now; };
  clock.now_unix = [now] { return kNow + *now; };
  clock.sleep_s = [now, sleeps, stop_after](double seconds, int* code) {
    if (++*sleeps >= stop_after) {
      *code = kExitInterrupted;
      return false;
    }
    *now += seconds;
    return true;
  };
  return clock;
}

std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_CASE("top --once and --json need no terminal and read the daemon once a refresh",
          "[cli][top]") {
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
  Invocation inv;
  double now = 0;

  SECTION("--once: one request, one frame") {
    ScriptedDaemon daemon({{MCPGW_OK, kStatus}});
    inv.once = true;
    CHECK(RunTopOnce(daemon, inv, io, FakeClock(&now, 1)) == 0);
    CHECK(daemon.requests == 1);
    CHECK(daemon.timeout_ms == 1000);
    CHECK(out.str() == RenderTopOnce(Frame(kStatus), {}, 0));
    CHECK(err.str().empty());
  }
  SECTION("--json: a line per refresh until Ctrl-C; a failed refresh says so") {
    ScriptedDaemon daemon({{MCPGW_OK, kStatus},
                           {MCPGW_OK, kLater},
                           {MCPGW_UNAVAILABLE, "no daemon at /x.sock"},
                           {MCPGW_OK, kLater}});
    inv.json = true;
    inv.interval_s = 2;
    CHECK(RunTopJson(daemon, inv, io, FakeClock(&now, 4)) == kExitInterrupted);
    const std::vector<std::string> lines = LinesOf(out.str());
    REQUIRE(lines.size() == 4);
    CHECK(daemon.requests == 4);
    CHECK(lines[0].find("\"cpu_percent\":null") != std::string::npos);
    CHECK(lines[1].find("\"cpu_percent\":5.0") != std::string::npos);
    CHECK(lines[2].find("\"error\":\"daemon not reachable: unavailable: no daemon at /x.sock\"") !=
          std::string::npos);
    CHECK(lines[3].find("\"daemon\"") != std::string::npos);
    CHECK(err.str().empty());
  }
  SECTION("--json --once: one line") {
    ScriptedDaemon daemon({{MCPGW_OK, kStatus}});
    inv.json = true;
    inv.once = true;
    CHECK(RunTopJson(daemon, inv, io, FakeClock(&now, 1)) == 0);
    CHECK(LinesOf(out.str()).size() == 1);
  }
  SECTION("a closed stdout ends --json with 0") {
    ScriptedDaemon daemon({{MCPGW_OK, kStatus}});
    inv.json = true;
    out.setstate(std::ios::badbit);
    CHECK(RunTopJson(daemon, inv, io, FakeClock(&now, 100)) == 0);
    CHECK(daemon.requests == 1);
  }
}

TEST_CASE("top without a daemon says what mcpgw status says, with its exit code", "[cli][top]") {
  std::istringstream in;
  double now = 0;
  for (const ApiResult& down :
       {ApiResult{MCPGW_UNAVAILABLE, "no daemon at /run/x.sock"}, ApiResult{MCPGW_OK, "<html>"}}) {
    std::ostringstream status_out, status_err;
    CommandIo status_io{status_out, status_err, in, false, false, 0, nullptr};
    ScriptedDaemon for_status({down});
    const int status_code = RunStatus(for_status, Invocation{}, status_io);
    CHECK(status_code != 0);
    for (bool json : {false, true}) {
      std::ostringstream out, err;
      CommandIo io{out, err, in, false, false, 0, nullptr};
      ScriptedDaemon daemon({down});
      Invocation inv;
      inv.json = json;
      inv.once = true;
      const int code = json ? RunTopJson(daemon, inv, io, FakeClock(&now, 1))
                            : RunTopOnce(daemon, inv, io, FakeClock(&now, 1));
      CHECK(code == status_code);
      CHECK(err.str() == status_err.str());
      CHECK(out.str().empty());
    }
  }
}

TEST_CASE("top's options: --interval within bounds, --once, --json", "[cli][top]") {
  const auto parse = [](std::vector<std::string> args, Invocation& inv) {
    CLI::App app;
    TopOptions(app, inv);
    std::reverse(args.begin(), args.end());
    try {
      app.parse(args);
      return true;
    } catch (const CLI::ParseError&) {
      return false;
    }
  };
  Invocation inv;
  CHECK(parse({}, inv));
  CHECK(inv.interval_s == 1.0);
  CHECK_FALSE(inv.once);
  CHECK(parse({"--interval", "0.5", "--once", "--json"}, inv));
  CHECK(inv.interval_s == 0.5);
  CHECK(inv.once);
  CHECK(inv.json);
  Invocation bad;
  CHECK_FALSE(parse({"--interval", "0"}, bad));
  CHECK_FALSE(parse({"--interval", "0.05"}, bad));
  CHECK_FALSE(parse({"--interval", "3601"}, bad));
  CHECK_FALSE(parse({"--interval", "soon"}, bad));
}

}  // namespace
}  // namespace mcpgw::cli
