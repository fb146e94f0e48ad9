// Record and replay (docs/BEHAVIOR.md §14) the way a user does it: a scripted
// agent session through `mcpgw` against live upstreams whose every answer is
// new (tests/fixtures/changing-server.mjs, the official SDK), recorded with
// `mcpgwd --record`; the upstreams stopped; the same script replayed with
// `mcpgwd --replay` under strace, every answer compared byte for byte, and
// the trace read for any TCP socket. Then the cassette's own rules at
// start-up: a file that cannot be read names its line, a file cut off
// mid-line loads what is whole.
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "daemon/guard/request_digest.h"
#include "integration/service_harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

// The agent's session: listings, then calls — a call repeated (each answer
// new when live), one call written two ways (one call: the same digest),
// numbers a double cannot tell apart, a tool's own error, a refusal.
const std::vector<std::vector<std::string>> kScript = {
    {"tools", "--json"},
    {"tools", "a", "--json"},
    {"tools", "b", "describe", "--json"},
    {"call", "a", "next"},
    {"call", "a", "next"},
    {"call", "a", "echo", R"({"text":"hi","n":123456789012345678901234567890})"},
    {"call", "a", "echo", "{ \"n\" : 123456789012345678901234567890,\n \"text\": \"hi\" }"},
    {"call", "a", "echo", R"({"text":"hi","n":123456789012345678901234567891})"},
    {"call", "b", "fail", R"({"why":"disk full"})"},
    {"call", "b", "describe", R"({"limits":{"max":1.50},"tags":["x","y"]})"},
    {"call", "b", "next"},
    {"call", "b", "next", "{}"},
    {"call", "a", "nope"},
    {"call", "a", "next"},
};

std::string Config(const std::string& a, const std::string& b) {
  return R"({"mcpServers":{"a":{"url":")" + a +
         R"(","headers":{"X-Api-Key":"${env:MCPGW_TEST_REPLAY_KEY}"}},"b":{"url":")" + b +
         R"("}}})";
}

constexpr const char* kSecret = "replay-secret-7f3a9c";

std::vector<CommandResult> RunScript(const TempDir& dir, const std::string& socket) {
  std::vector<CommandResult> answers;
  for (const auto& args : kScript) {
    std::vector<std::string> argv = {MCPGW_CLI_PATH, "--socket", socket};
    argv.insert(argv.end(), args.begin(), args.end());
    answers.push_back(Run(argv, dir));
  }
  return answers;
}

bool SocketAt(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

// A status row's `source`.
std::string Source(const std::string& status_json, const std::string& ns) {
  auto doc = ParseJson(status_json);
  if (!doc.IsObject()) return "<no status>";
  for (const auto& s : doc["servers"].GetArray()) {
    if (ns == s["namespace"].GetString()) return s["source"].GetString();
  }
  return "<not listed>";
}

}  // namespace

TEST_CASE(
    "replay: a recorded session answers byte for byte with its servers gone, and opens no "
    "TCP connection",
    "[daemon][replay]") {
  TempDir dir;
  const std::string cassette = dir / "session.jsonl";
  std::vector<CommandResult> recorded;
  {
    auto a = std::make_unique<NodeServer>(dir, "changing-server.mjs",
                                          std::vector<std::string>{"--name", "a"});
    auto b = std::make_unique<NodeServer>(dir, "changing-server.mjs",
                                          std::vector<std::string>{"--name", "b"});
    REQUIRE_UPSTREAM(*a, *b);
    Daemon live(dir, Config(a->Url(), b->Url()), {"--record", cassette},
                {std::string("MCPGW_TEST_REPLAY_KEY=") + kSecret});
    REQUIRE(live.WaitListening());
    REQUIRE(WaitReady(live, "a"));
    REQUIRE(WaitReady(live, "b"));
    recorded = RunScript(dir, live.socket());
    // Live, the same call answers something new each time.
    CHECK(recorded[3].out != recorded[4].out);
    CHECK(recorded[5].out != recorded[6].out);
    CHECK(recorded[8].code == 1);   // backend: the tool's own error
    CHECK(recorded[12].code == 3);  // invalid_request: no such tool
    live.process().Signal(SIGTERM);
    REQUIRE(live.process().Wait() == 0);
  }  // the upstreams are stopped here

  // The cassette: private, the results in it, no header value.
  struct stat st {};
  REQUIRE(stat(cassette.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const std::string tape = ReadFile(cassette);
  CHECK(tape.find(recorded[3].out.substr(0, recorded[3].out.size() - 1)) != std::string::npos);
  CHECK(tape.find(kSecret) == std::string::npos);

  // The replay, traced: every socket the daemon (and any thread) makes.
  const std::string socket = dir / "replay/mcpgw.sock";
  const std::string trace = dir / "strace.txt";
  Process replay({"/usr/bin/strace", "-f", "-qq", "-e", "trace=socket,connect", "-o", trace,
                  MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--socket", socket, "--replay",
                  cassette, "--log-level", "debug"},
                 dir / "replay.out", dir / "replay.err",
                 // LeakSanitizer cannot run under ptrace: in a sanitizer
                 // build the traced daemon checks everything but leaks.
                 {std::string("MCPGW_TEST_REPLAY_KEY=") + kSecret,
                  "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1"});
  REQUIRE(WaitFor([&] { return SocketAt(socket) || !replay.Alive(); }));
  REQUIRE(replay.Alive());
  const auto status = Run({MCPGW_CLI_PATH, "--socket", socket, "status", "--json"}, dir);
  CHECK(Source(status.out, "a") == "replay");
  CHECK(Source(status.out, "b") == "replay");
  CHECK(Run({MCPGW_CLI_PATH, "--socket", socket, "status"}, dir).out.find("replay") !=
        std::string::npos);

  const std::vector<CommandResult> replayed = RunScript(dir, socket);
  REQUIRE(replayed.size() == recorded.size());
  for (size_t i = 0; i < recorded.size(); ++i) {
    CAPTURE(i, kScript[i]);
    CHECK(replayed[i].code == recorded[i].code);
    CHECK(replayed[i].out == recorded[i].out);
    CHECK(replayed[i].err == recorded[i].err);
  }
  // Past its recordings a call gets the last one again.
  const auto again = Run({MCPGW_CLI_PATH, "--socket", socket, "call", "a", "next"}, dir);
  CHECK(again.out == recorded.back().out);
  // A call never recorded fails as transport, naming its digest.
  const auto miss =
      Run({MCPGW_CLI_PATH, "--socket", socket, "call", "a", "echo", R"({"text":"never"})"}, dir);
  CHECK(miss.code == 5);
  CHECK_THAT(miss.err, Catch::Contains("no recording of this call"));
  CHECK_THAT(miss.err, Catch::Contains(*mcpgw::RequestDigest("a", "echo", R"({"text":"never"})")));

  // The daemon itself is stopped (strace exits with it, with its code).
  const auto daemon_pid = ParseJson(status.out)["daemon"]["pid"].GetInt64();
  REQUIRE(daemon_pid > 0);
  kill(static_cast<pid_t>(daemon_pid), SIGTERM);
  CHECK(replay.Wait() == 0);
  const std::string traced = ReadFile(trace);
  CHECK_THAT(traced, Catch::Contains("AF_UNIX"));   // the trace saw the daemon's own socket
  CHECK_THAT(traced, !Catch::Contains("AF_INET"));  // and no TCP (v4 or v6) at all
  CHECK_THAT(ReadFile(dir / "replay.err"), !Catch::Contains(kSecret));
}

TEST_CASE("replay: a cassette that cannot be read stops the start, naming its line",
          "[daemon][replay]") {
  TempDir dir;
  WriteFile(dir / "mcp.json", R"({"mcpServers":{}})");
  WriteFile(dir / "bad.jsonl",
            "{\"type\":\"cassette\",\"version\":1}\n{\"type\":\"call\",\"digest\":\"x\"}\n");
  auto r = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--socket", dir / "s.sock",
                "--replay", dir / "bad.jsonl"},
               dir);
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("cassette " + dir / "bad.jsonl" + ":2: "));
  auto missing = Run({MCPGW_MCPGWD_PATH, "--config", dir / "mcp.json", "--socket", dir / "s.sock",
                      "--replay", dir / "none.jsonl"},
                     dir);
  CHECK(missing.code == 1);
  CHECK_THAT(missing.err, Catch::Contains("none.jsonl: cannot open"));
}

TEST_CASE("replay: a cassette cut off mid-line serves its whole lines and says so",
          "[daemon][replay]") {
  TempDir dir;
  const std::string digest = *mcpgw::RequestDigest("a", "next", "{}");
  const std::string whole =
      "{\"type\":\"cassette\",\"version\":1}\n"
      "{\"type\":\"listing\",\"namespace\":\"a\",\"tools\":[{\"name\":\"next\","
      "\"description\":\"d\",\"inputSchema\":{\"type\":\"object\"}}]}\n"
      "{\"type\":\"call\",\"digest\":\"" +
      digest + "\",\"namespace\":\"a\",\"tool\":\"next\",\"outcome\":\"ok\",\"result\":\"one\"}\n";
  WriteFile(dir / "cut.jsonl", whole + "{\"type\":\"call\",\"digest\":\"" + digest + "\",\"outc");
  Daemon d(dir, R"({"mcpServers":{"a":{"url":"http://127.0.0.1:9/mcp"}}})",
           {"--replay", dir / "cut.jsonl"});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  const auto first = d.Cli({"call", "a", "next"});
  CHECK(first.out == "one\n");
  CHECK_THAT(d.Log(), Catch::Contains("line 4 is cut off"));
}

TEST_CASE(
    "replay: --replay-miss forward sends what the cassette misses to the live server and "
    "--record appends it",
    "[daemon][replay]") {
  TempDir dir;
  NodeServer a(dir, "changing-server.mjs", {"--name", "a"});
  REQUIRE_UPSTREAM(a);
  const std::string digest = *mcpgw::RequestDigest("a", "next", "{}");
  WriteFile(dir / "old.jsonl",
            "{\"type\":\"cassette\",\"version\":1}\n"
            "{\"type\":\"listing\",\"namespace\":\"a\",\"tools\":[{\"name\":\"next\","
            "\"description\":\"d\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"echo\","
            "\"description\":\"e\",\"inputSchema\":{\"type\":\"object\"}}]}\n"
            "{\"type\":\"call\",\"digest\":\"" +
                digest +
                "\",\"namespace\":\"a\",\"tool\":\"next\",\"outcome\":\"ok\",\"result\":"
                "\"recorded\"}\n");
  Daemon d(
      dir, R"({"mcpServers":{"a":{"url":")" + a.Url() + R"("}}})",
      {"--replay", dir / "old.jsonl", "--replay-miss", "forward", "--record", dir / "new.jsonl"});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  CHECK(d.Cli({"call", "a", "next"}).out == "recorded\n");
  // A miss waits for the live session: not_ready until it is ready.
  CommandResult live;
  REQUIRE(WaitFor([&] {
    live = d.Cli({"call", "a", "echo", R"({"text":"new"})"});
    return live.code != 4;
  }));
  INFO(live.err);
  CHECK(live.code == 0);
  CHECK_THAT(live.out, Catch::StartsWith("a call #1 nonce "));  // the live server answered
  const std::string added = ReadFile(dir / "new.jsonl");
  CHECK_THAT(added, Catch::Contains(*mcpgw::RequestDigest("a", "echo", R"({"text":"new"})")));
  CHECK_THAT(added, !Catch::Contains("\"result\":\"recorded\""));  // a hit is not recorded again
}
