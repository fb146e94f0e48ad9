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
  CHECK(lines[1] == "config:         /home/u/.config/mcpgw/mcp.json");
  CHECK(lines[2] == "socket:         /run/user/1000/mcpgw/mcpgw.sock");
  CHECK(lines[3] == "last reload:    never");
  CHECK(lines[4].empty());
  CHECK(lines[5] == "NAMESPACE  STATUS   TOOLS  IN FLIGHT  CALLS  ERRORS  P50 (ms)  SINCE");
  CHECK(lines[6] == "alpha      ready        3          0     10       1      1.25  5m ago");
  CHECK(lines[7] == "beta       loading      0          0      0       0         -  5s ago");
  CHECK(lines[8] == "gamma      error        0          2      5       5    250.00  2h ago");
  CHECK(lines[9] == "  reason:     connect: connection refused");
  CHECK(lines.size() == 10);
  CHECK(out.find('\x1b') == std::string::npos);  // no colour unless asked
}

TEST_CASE("requests waiting for a connection show under their server's row", "[cli][status]") {
  const std::string out =
      Render(R"({"daemon":{"version":"0.1.0","pid":1,"started_unix":1764469000.0},
    "servers":[{"namespace":"busy","status":"ready","reason":"","tools":1,"in_flight":70,
    "queued":6,"calls":0,"errors":0,"latency_p50_ms":null,"since_unix":1764469700.0},
    {"namespace":"calm","status":"ready","reason":"","tools":1,"in_flight":1,"queued":0,
    "calls":0,"errors":0,"latency_p50_ms":null,"since_unix":1764469700.0}]})");
  INFO(out);
  CHECK(
      out.find("  queued:     6 waiting for a connection (limits.max_connections_per_server)\n") !=
      std::string::npos);
  CHECK(out.find("queued:") == out.rfind("queued:"));  // none for the calm one
}

TEST_CASE("a server reached through a proxy has a proxy line under its row", "[cli][status]") {
  const char* json = R"({"daemon":{"version":"0.1.0"},"servers":[
    {"namespace":"corp-api","status":"ready","proxy":"http://<redacted>@10.0.0.1:3128"},
    {"namespace":"direct","status":"ready","proxy":null},
    {"namespace":"x","status":"error","reason":"proxy refused","proxy":"http://p:3128/\u001b[31m"}]})";
  const std::string out = Render(json);
  INFO(out);
  const std::vector<std::string> lines = Lines(out);
  auto row = [&](const std::string& ns) {
    return std::find_if(lines.begin(), lines.end(),
                        [&](const std::string& l) { return l.rfind(ns + " ", 0) == 0; });
  };
  auto corp = row("corp-api");
  REQUIRE(corp != lines.end());
  CHECK(corp[1] == "  proxy:      http://<redacted>@10.0.0.1:3128");
  auto direct = row("direct");
  REQUIRE(direct != lines.end());
  CHECK(direct[1].rfind("x ", 0) == 0);  // no line of its own
  CHECK(out.find("  proxy:      http://p:3128/\n") != std::string::npos);
  CHECK(Render(kStatus).find("proxy:") == std::string::npos);
}

TEST_CASE("a local server shows its command, process and last stderr lines", "[cli][status]") {
  const std::string out = Render(R"({"daemon":{"version":"0.1.0"},"servers":[
    {"namespace":"fs","status":"ready","tools":14,"transport":"stdio","local":{
      "command":"npx -y @modelcontextprotocol/server-filesystem /data","pid":4242,"uptime_s":125,
      "restarts":2,"rss_bytes":73400320,"stdout_skipped":3,
      "stderr_tail":["one","two","three","Secure MCP Filesystem Server running on stdio"]}},
    {"namespace":"gone","status":"error","reason":"the local server exited with code 1",
      "transport":"stdio","local":{"command":"uvx thing","pid":null,"restarts":0,
      "rss_bytes":0,"stdout_skipped":0,"stderr_tail":[]}}]})");
  CHECK(out.find("  command:    npx -y @modelcontextprotocol/server-filesystem /data\n") !=
        std::string::npos);
  CHECK(out.find("  process:    pid 4242, up 2m, 73.4 MB resident (with its children), 2 restarts, "
                 "3 stdout lines skipped (not JSON-RPC)\n") != std::string::npos);
  // The last three lines, oldest first.
  CHECK(out.find("  stderr:     two\n") != std::string::npos);
  CHECK(out.find("one\n") == std::string::npos);
  CHECK(out.find("              Secure MCP Filesystem Server running on stdio\n") !=
        std::string::npos);
  CHECK(out.find("  process:    not running, 0 restarts\n") != std::string::npos);
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
  CHECK(out.find("reload error:   bad json") != std::string::npos);
  CHECK(out.find("evil ") != std::string::npos);
  CHECK(out.find("boom red c1next") != std::string::npos);
}

TEST_CASE("a long reason wraps to an 80-column terminal and is never cut", "[cli][status]") {
  const std::string long_ns(50, 'n');
  std::string long_reason;
  for (int i = 0; i < 40; ++i) long_reason += "word" + std::to_string(i) + " ";
  long_reason += std::string(100, 'x');  // one word wider than a line
  const std::string json = R"({"daemon":{"reload_error":")" + long_reason +
                           R"("},"servers":[{"namespace":")" + long_ns +
                           R"(","status":"error","reason":")" + long_reason + R"("}]})";
  const auto view = ParseStatus(json);
  REQUIRE(view);

  RenderOptions tty;
  tty.width = 80;
  const std::string out = RenderStatus(*view, tty);
  INFO(out);
  std::string words;  // every word of the reason, in order, from the wrapped lines
  for (const std::string& line : Lines(out)) {
    CHECK(DisplayWidth(line) <= 80);
    const bool continued = line.rfind("              ", 0) == 0 && line[14] != ' ';
    if (line.rfind("  reason:     ", 0) == 0 || continued) {
      words += line.substr(14) + " ";
    }
  }
  std::string compact_reason = long_reason.substr(0, long_reason.size() - 100);
  CHECK(words.find(compact_reason) == 0);
  CHECK(out.find(std::string(66, 'x')) != std::string::npos);  // the long word, cut at 80
  // The namespace gives way so its row fits too.
  CHECK(out.find("\n" + std::string(21, 'n') + "…  error") != std::string::npos);
  // The reload error wraps the same way under its label.
  CHECK(out.find("reload error:   word0 word1") != std::string::npos);

  RenderOptions pipe;  // width 0: not a terminal, nothing is wrapped
  const std::string piped = RenderStatus(*view, pipe);
  CHECK(piped.find("  reason:     " + long_reason.substr(0, long_reason.size())) !=
        std::string::npos);
  CHECK(piped.find(long_ns) == std::string::npos);  // the namespace is still capped
  CHECK(piped.find(std::string(31, 'n') + "…") != std::string::npos);
}

TEST_CASE("status shows each server's url, protocol, HTTP version and last error with its age",
          "[cli][status]") {
  const char* json = R"({"daemon":{"version":"0.1.0","pid":7,"uptime_s":60,
    "config":"/home/u/.config/mcpgw/mcp.json","settings":"/home/u/.config/mcpgw/settings.json",
    "socket":"/run/user/1000/mcpgw/mcpgw.sock","last_reload_unix":1764469990.0,
    "reload_error":null,"settings_error":"/home/u/.config/mcpgw/settings.json:3:5: policy.deny: expected an array of patterns"},
    "servers":[
     {"namespace":"alpha","status":"ready","reason":"","tools":3,"in_flight":0,"calls":10,
      "errors":1,"latency_p50_ms":1.25,"since_unix":1764469700.0,
      "url":"https://api.example.com/mcp?key=<redacted>","protocol_version":"2025-11-25",
      "http_version":"HTTP/2","last_error":"transport: HTTP 502 Bad Gateway","last_error_unix":1764469820.0},
     {"namespace":"beta","status":"loading","tools":0,"url":"http://127.0.0.1:9/mcp",
      "protocol_version":null,"last_error":null,"last_error_unix":null}]})";
  const std::vector<std::string> lines = Lines(Render(json));
  INFO(Render(json));
  CHECK(lines[1] == "config:         /home/u/.config/mcpgw/mcp.json");
  CHECK(lines[2] == "settings:       /home/u/.config/mcpgw/settings.json");
  CHECK(lines[3] == "socket:         /run/user/1000/mcpgw/mcpgw.sock");
  CHECK(lines[4] == "last reload:    10s ago");
  CHECK(lines[5] ==
        "settings error: /home/u/.config/mcpgw/settings.json:3:5: policy.deny: expected an array "
        "of patterns");
  CHECK(lines[6].empty());
  CHECK(lines[8] == "alpha      ready        3          0     10       1      1.25  5m ago");
  CHECK(lines[9] ==
        "  url:        https://api.example.com/mcp?key=<redacted> (protocol 2025-11-25, HTTP/2)");
  CHECK(lines[10] == "  last error: transport: HTTP 502 Bad Gateway (3m ago)");
  CHECK(lines[11] == "beta       loading      0          -      -       -         -  -");
  CHECK(lines[12] == "  url:        http://127.0.0.1:9/mcp");
  CHECK(lines.size() == 13);
}

TEST_CASE("status without the newer fields renders as before", "[cli][status]") {
  // An older daemon sends neither url nor last_error nor settings: no empty lines appear.
  const std::string out = Render(kStatus);
  CHECK(out.find("settings") == std::string::npos);
  CHECK(out.find("url:") == std::string::npos);
  CHECK(out.find("last error:") == std::string::npos);
}

TEST_CASE("missing or odd fields render as '-'", "[cli][status]") {
  const char* json = R"({"daemon":{"pid":"x","uptime_s":-3},
    "servers":[{"namespace":"odd","status":7,"tools":-1,"in_flight":1.5,"calls":"9",
      "latency_p50_ms":null}, 42, {"namespace":"bare"}]})";
  const std::vector<std::string> lines = Lines(Render(json));
  CHECK(lines[0] == "mcpgwd -  pid -  up -");
  CHECK(lines[1] == "config:         -");
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
    ApiResult GetDynamicTools(const ToolsRequest&, CancelToken*) override { return {}; }
    ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&, long long,
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

TEST_CASE("Truncate cuts a cell to its width in code points", "[cli][sanitize]") {
  CHECK(Truncate("abcdef", 4) == "abc…");
  CHECK(Truncate("abc", 3) == "abc");
  CHECK(Truncate("\xc3\xa9\xc3\xa9\xc3\xa9", 2) == "\xc3\xa9…");
}

}  // namespace
}  // namespace mcpgw::cli
