// `mcpgw status`: parsing the daemon's status object, the table (colour, stripping,
// truncation, missing fields) and the text hygiene helpers it relies on.
#include <algorithm>
#include <sstream>

#include <catch2/catch.hpp>

#include "client/cli/commands.h"
#include "client/cli/sanitize.h"
#include "client/cli/status_view.h"

namespace mcpgw::cli {
namespace {

constexpr double kNow = 1764470000.0;

const char* kStatus = R"({"daemon":{"version":"0.1.0","pid":1234,"started_unix":1764458480.0,
  "uptime_s":11520.5,"config":"/home/u/.config/mcpgw/mcp.json","socket":"/run/user/1000/mcpgw/mcpgw.sock",
  "last_reload_unix":null,"reload_error":null},
  "servers":[
   {"namespace":"alpha","status":"ready","reason":"","tools":3,"in_flight":0,"calls":10,"errors":1,
    "latency_p50_ms":1.25,"since_unix":1764469700.0},
   {"namespace":"beta","status":"loading","reason":"","tools":0,"in_flight":0,"calls":0,"errors":0,
    "latency_p50_ms":null,"since_unix":1764469995.0},
   {"namespace":"gamma","status":"error","reason":"connect: connection refused","tools":0,
    "in_flight":2,"calls":5,"errors":5,"latency_p50_ms":250,"since_unix":1764462800.0}]})";

std::string Render(const char* json, RenderOptions options = {}) {
  const auto view = ParseStatus(json);
  REQUIRE(view);
  options.now_unix = kNow;
  return RenderStatus(*view, options);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_CASE("status renders a header block and a row per server", "[cli][status]") {
  const std::string out = Render(kStatus);
  INFO(out);
  const std::vector<std::string> lines = Lines(out);
  CHECK(lines[0] == "mcpgwd 0.1.0  pid 1234  up 3h 12m");
  CHECK(lines[1] == "config:       /home/u/.config/mcpgw/mcp.json");
  CHECK(lines[2] == "socket:       /run/user/1000/mcpgw/mcpgw.sock");
  CHECK(lines[3] == "last reload:  never");
  CHECK(lines[4].empty());
  CHECK(lines[5] ==
        "NAMESPACE  STATUS   TOOLS  IN FLIGHT  CALLS  ERRORS  P50 (ms)  SINCE   REASON");
  CHECK(lines[6] == "alpha      ready        3          0     10       1      1.25  5m ago");
  CHECK(lines[7] == "beta       loading      0          0      0       0         -  5s ago");
  CHECK(lines[8] ==
        "gamma      error        0          2      5       5    250.00  2h ago  connect: "
        "connection refused");
  CHECK(out.find('\x1b') == std::string::npos);  // no colour unless asked
}

TEST_CASE("servers reached through a proxy are listed under the table", "[cli][status]") {
  const char* json = R"({"daemon":{"version":"0.1.0"},"servers":[
    {"namespace":"direct","status":"ready","proxy":null},
    {"namespace":"corp-api","status":"ready","proxy":"http://<redacted>@10.0.0.1:3128"},
    {"namespace":"x","status":"error","reason":"proxy refused","proxy":"http://p:3128/\u001b[31m"}]})";
  const std::vector<std::string> lines = Lines(Render(json));
  auto block = std::find(lines.begin(), lines.end(), "PROXY");
  REQUIRE(block != lines.end());
  CHECK(block[-1].empty());
  REQUIRE(lines.end() - block == 3);
  CHECK(block[1] == "corp-api  http://<redacted>@10.0.0.1:3128");
  CHECK(block[2] == "x         http://p:3128/");
  // No proxy anywhere: no block.
  CHECK(Render(kStatus).find("PROXY") == std::string::npos);
}

TEST_CASE("status colours the status cell only when asked", "[cli][status]") {
  RenderOptions options;
  options.color = true;
  const std::string out = Render(kStatus, options);
  CHECK(out.find("\x1b[32mready\x1b[0m") != std::string::npos);
  CHECK(out.find("\x1b[33mloading\x1b[0m") != std::string::npos);
  CHECK(out.find("\x1b[31merror\x1b[0m") != std::string::npos);
  // Padding is computed on the visible text: columns still line up after the colour codes.
  CHECK(out.find("\x1b[32mready\x1b[0m        3") != std::string::npos);
}

TEST_CASE("colour needs a TTY, no NO_COLOR and a terminal that is not dumb", "[cli][status]") {
  CHECK(UseColor(true, nullptr, "xterm-256color"));
  CHECK(UseColor(true, "", "xterm"));  // NO_COLOR set but empty does not count
  CHECK_FALSE(UseColor(false, nullptr, "xterm"));
  CHECK_FALSE(UseColor(true, "1", "xterm"));
  CHECK_FALSE(UseColor(true, nullptr, "dumb"));
}

TEST_CASE("server texts are stripped of control characters and escape sequences", "[cli][status]") {
  const char* json = R"({"daemon":{"version":"0.1\u001b[2J.0","config":"/etc/\u0007mcp.json",
    "reload_error":"bad\u001b]0;pwned\u0007 json"},
    "servers":[{"namespace":"ev\u001b[31mil","status":"error",
      "reason":"boom\u001b[31m red\u009b31m\u0085 c1\r\nnext\u007f"}]})";
  const std::string out = Render(json);
  INFO(out);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find('\x07') == std::string::npos);
  CHECK(out.find('\r') == std::string::npos);
  CHECK(out.find('\x7f') == std::string::npos);
  CHECK(out.find("\xc2\x9b") == std::string::npos);
  CHECK(out.find("\xc2\x85") == std::string::npos);
  CHECK(out.find("mcpgwd 0.1.0") != std::string::npos);
  CHECK(out.find("reload error: bad json") != std::string::npos);
  CHECK(out.find("evil ") != std::string::npos);
  CHECK(out.find("boom red c1next") != std::string::npos);
}

TEST_CASE("long cells are cut with an ellipsis, the reason fits the terminal", "[cli][status]") {
  const std::string long_ns(50, 'n');
  const std::string long_reason(300, 'r');
  const std::string json = R"({"daemon":{},"servers":[{"namespace":")" + long_ns +
                           R"(","status":"error","reason":")" + long_reason + R"("}]})";
  const auto view = ParseStatus(json);
  REQUIRE(view);

  RenderOptions tty;
  tty.width = 120;
  const std::vector<std::string> lines = Lines(RenderStatus(*view, tty));
  const std::string& row = lines.back();
  std::string cut(31, 'n');
  cut.append("…");
  CHECK(row.rfind(cut, 0) == 0);
  CHECK(DisplayWidth(row) == 120);
  CHECK(row.substr(row.size() - 3) == "…");

  RenderOptions pipe;  // width 0: not a terminal, the reason is kept whole
  const std::string piped = Lines(RenderStatus(*view, pipe)).back();
  CHECK(piped.find(long_reason) != std::string::npos);
  CHECK(piped.find(long_ns) == std::string::npos);  // the namespace is still capped
}

TEST_CASE("missing or odd fields render as '-'", "[cli][status]") {
  const char* json = R"({"daemon":{"pid":"x","uptime_s":-3},
    "servers":[{"namespace":"odd","status":7,"tools":-1,"in_flight":1.5,"calls":"9",
      "latency_p50_ms":null}, 42, {"namespace":"bare"}]})";
  const std::vector<std::string> lines = Lines(Render(json));
  CHECK(lines[0] == "mcpgwd -  pid -  up -");
  CHECK(lines[1] == "config:       -");
  CHECK(lines[6] == "odd        -           -          -      -       -         -  -");
  CHECK(lines[7] == "bare       -           -          -      -       -         -  -");
  CHECK(lines.size() == 8);

  CHECK_FALSE(ParseStatus("[1,2]"));
  CHECK_FALSE(ParseStatus("not json"));
  CHECK(Lines(Render("{}")).back() == "no servers configured");
}

TEST_CASE("durations and relative times read like a person would say them", "[cli][status]") {
  CHECK(HumanDuration(45) == "45s");
  CHECK(HumanDuration(12 * 60 + 5) == "12m 5s");
  CHECK(HumanDuration(3 * 3600 + 12 * 60 + 59) == "3h 12m");
  CHECK(HumanDuration(2 * 86400 + 4 * 3600) == "2d 4h");
  CHECK(RelativeTime(kNow - 300, kNow) == "5m ago");
  CHECK(RelativeTime(kNow - 7, kNow) == "7s ago");
  CHECK(RelativeTime(kNow + 30, kNow) == "just now");
  CHECK(RelativeTime(kNow - 3 * 86400, kNow) == "3d ago");
}

TEST_CASE("status --json prints the object with non-ASCII escaped", "[cli][status]") {
  class StatusApi : public DaemonApi {
   public:
    explicit StatusApi(ApiResult r) : r_(std::move(r)) {}
    ApiResult GetDynamicTools(const std::optional<std::string>&, const std::optional<std::string>&,
                              CancelToken*) override {
      return {};
    }
    ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&,
                              CancelToken*) override {
      return {};
    }
    ApiResult Status(CancelToken*) override { return r_; }
    ApiResult r_;
  };
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
  Invocation inv;
  inv.json = true;
  StatusApi api({MCPGW_OK, "{\"servers\":[{\"namespace\":\"a\xc2\x9b\"}]}"});
  CHECK(RunStatus(api, inv, io) == 0);
  CHECK(out.str() == "{\"servers\":[{\"namespace\":\"a\\u009B\"}]}\n");

  StatusApi broken({MCPGW_OK, "<html>"});
  CHECK(RunStatus(broken, inv, io) == 5);
  inv.json = false;
  CHECK(RunStatus(broken, inv, io) == 5);
  StatusApi down({MCPGW_UNAVAILABLE, "no daemon at /run/x.sock"});
  CHECK(RunStatus(down, inv, io) == 7);
  CHECK(err.str().find("mcpgw: unavailable: no daemon at /run/x.sock\n") != std::string::npos);
}

TEST_CASE("StripControls handles every escape form and bad UTF-8", "[cli][sanitize]") {
  CHECK(StripControls("a\x1b[1;31mb\x1b[0m") == "ab");
  CHECK(StripControls("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\") == "alink");
  CHECK(StripControls("a\x1bPq#0;2;0\x1b\\b") == "ab");
  CHECK(StripControls("a\x1b"
                      "cb") == "ab");
  CHECK(StripControls("a\xc2\x9b"
                      "2Jb") == "ab");  // C1 CSI with its parameters
  CHECK(StripControls("a\xc2\x80\xc2\x85"
                      "b") == "ab");
  CHECK(StripControls("a\xc2\x9fhidden\xc2\x9c"
                      "b") == "ab");  // C1 APC ... ST
  CHECK(StripControls("tab\there\nnl") == "tabherenl");
  CHECK(StripControls("tab\there\nnl", {.keep_newlines = true}) == "tab\there\nnl");
  CHECK(StripControls("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");
  CHECK(StripControls("bad\xff"
                      "byte") ==
        "bad\xef\xbf\xbd"
        "byte");
  CHECK(StripControls(std::string("nul\0byte", 8)) == "nulbyte");
  CHECK(ValidUtf8("ok\xc3\xa9\xed\xa0\x80") == "ok\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(Truncate("abcdef", 4) == "abc…");
  CHECK(Truncate("abc", 3) == "abc");
  CHECK(Truncate("\xc3\xa9\xc3\xa9\xc3\xa9", 2) == "\xc3\xa9…");
}

}  // namespace
}  // namespace mcpgw::cli
