// Large results (docs/BEHAVIOR.md §11) through every way a host reaches the
// daemon — `mcpgw call`, libmcpgw and `mcpgw stdio` — against the real mcpgwd
// and tests/fixtures/large-result-server.mjs (the official SDK's server),
// which answers texts of an exact size made of 1- to 4-byte characters, as
// SSE or as JSON, after any number of SSE events. Each cut answer is checked
// against the text the server sent: its first part, the notice line, and the
// file that must hold the whole text.
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/utf8.h"
#include "daemon/guard/request_digest.h"
#include "integration/service_harness.h"
#include "integration/stdio_process.h"
#include "mcpgw.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

constexpr const char* kEmoji = "\xF0\x9F\x98\x80";  // 4 bytes
constexpr const char* kHan = "\xE4\xB8\xAD";        // 3 bytes
constexpr const char* kAccent = "\xC3\xA9";         // 2 bytes

// large-result-server.mjs, answering as SSE or as one JSON body.
class LargeServer : public NodeServer {
 public:
  explicit LargeServer(const TempDir& dir, bool json_response = false)
      : NodeServer(dir, "large-result-server.mjs",
                   json_response ? std::vector<std::string>{"--json-response"}
                                 : std::vector<std::string>{}) {}
};

// What the server answers: `unit` repeated, then "x" up to exactly `bytes`.
std::string Expected(const std::string& unit, size_t bytes) {
  std::string s;
  s.reserve(bytes);
  while (s.size() + unit.size() <= bytes) s += unit;
  s.append(bytes - s.size(), 'x');
  return s;
}

std::string Args(const std::string& unit, size_t bytes, int events = 0, bool error = false) {
  return R"({"unit":")" + unit + R"(","bytes":)" + std::to_string(bytes) + R"(,"events":)" +
         std::to_string(events) + (error ? R"(,"error":true})" : "}");
}

// A mcpgwd with the large-result server as "big", its results folder under
// `dir`/xdg (XDG_RUNTIME_DIR), and `settings` as its settings file.
struct Setup {
  explicit Setup(const TempDir& dir, const LargeServer& server, const std::string& settings = "{}")
      : xdg(dir / "xdg") {
    std::filesystem::create_directories(xdg);
    WriteFile(dir / "settings.json", settings);
    daemon =
        std::make_unique<Daemon>(dir, R"({"mcpServers":{"big":{"url":")" + server.Url() + R"("}}})",
                                 std::vector<std::string>{"--settings", dir / "settings.json"},
                                 std::vector<std::string>{"XDG_RUNTIME_DIR=" + xdg});
    REQUIRE(daemon->WaitListening());
    REQUIRE(WaitReady(*daemon, "big"));
  }
  std::string ResultsDir() const { return xdg + "/mcpgw/results"; }
  std::string xdg;
  std::unique_ptr<Daemon> daemon;
};

struct Cut {
  std::string head;    // the text before the blank line
  std::string notice;  // the last line
};

// Checks that `answer` is `full` cut to at most `bound` bytes at a character
// boundary, then a blank line and the notice; returns the parts.
Cut CheckCut(const std::string& answer, const std::string& full, size_t bound) {
  Cut cut;
  const size_t at = answer.rfind("\n\n[result truncated: ");
  REQUIRE(at != std::string::npos);
  cut.head = answer.substr(0, at);
  cut.notice = answer.substr(at + 2);
  CHECK(answer.size() <= bound);
  CHECK(answer.size() + 4 > bound - 0);  // as near the bound as whole characters allow
  CHECK(full.compare(0, cut.head.size(), cut.head) == 0);
  CHECK(mcpgw::base::IsValidUtf8(cut.head));
  CHECK(cut.notice.find('\n') == std::string::npos);
  return cut;
}

// The file a notice names, after checking the notice's exact form.
std::string KeptFile(const Cut& cut, size_t total, const std::string& dir) {
  const std::string prefix =
      "[result truncated: " + std::to_string(total) + " bytes in total; the full text is in ";
  REQUIRE(cut.notice.rfind(prefix, 0) == 0);
  REQUIRE(cut.notice.back() == ']');
  const std::string path = cut.notice.substr(prefix.size(), cut.notice.size() - prefix.size() - 1);
  CHECK(path.rfind(dir + "/", 0) == 0);
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  REQUIRE(stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  return path;
}

std::string Chomp(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::string CallLine(int id, const std::string& arguments) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"call_dynamic_tool","arguments":{"namespace":"big","toolName":"text","arguments":)" +
         arguments + "}}}";
}

std::pair<std::string, bool> ToolText(const std::string& line) {
  const rapidjson::Document doc = ParseJson(line);
  REQUIRE(doc.IsObject());
  REQUIRE(doc.HasMember("result"));
  return {doc["result"]["content"][0]["text"].GetString(), doc["result"]["isError"].GetBool()};
}

}  // namespace

TEST_CASE("large results: mcpgw call --max-bytes cuts at a character and keeps the whole text",
          "[daemon][results]") {
  TempDir dir;
  LargeServer server(dir);
  REQUIRE_UPSTREAM(server);
  Setup s(dir, server);
  auto& d = *s.daemon;

  for (const char* unit : {"a", kAccent, kHan, kEmoji}) {
    // Multi-megabyte texts; every bound below falls inside a character for
    // some widths.
    const std::string full = Expected(unit, 3000000 + 1);
    for (size_t bound : {100000u, 100001u, 100002u, 100003u}) {
      CAPTURE(std::string(unit).size(), bound);
      const auto r = d.Cli(
          {"call", "big", "text", Args(unit, full.size()), "--max-bytes", std::to_string(bound)});
      REQUIRE(r.code == 0);
      const Cut cut = CheckCut(Chomp(r.out), full, bound);
      CHECK(ReadFile(KeptFile(cut, full.size(), s.ResultsDir())) == full);
    }
  }

  // Exactly the bound: untouched. One byte over: cut.
  const std::string exact = Expected(kHan, 50000);
  auto at = d.Cli({"call", "big", "text", Args(kHan, 50000), "--max-bytes", "50000"});
  REQUIRE(at.code == 0);
  CHECK(Chomp(at.out) == exact);
  auto over = d.Cli({"call", "big", "text", Args(kHan, 50001), "--max-bytes", "50000"});
  REQUIRE(over.code == 0);
  const std::string over_full = Expected(kHan, 50001);
  const Cut cut = CheckCut(Chomp(over.out), over_full, 50000);
  const std::string over_path = KeptFile(cut, 50001, s.ResultsDir());
  CHECK(ReadFile(over_path) == over_full);
  // Without a call log the digest is worked out only as the file is kept: the
  // name still carries the request digest's first 16 hex digits.
  const std::string digest = mcpgw::RequestDigest("big", "text", Args(kHan, 50001)).value();
  CHECK(over_path.find("-" + digest.substr(0, 16) + ".txt") != std::string::npos);

  // The CLI's default is no bound (results.max_text_bytes unset): 3 MB whole.
  auto whole = d.Cli({"call", "big", "text", Args(kEmoji, 3000000)});
  REQUIRE(whole.code == 0);
  CHECK(Chomp(whole.out) == Expected(kEmoji, 3000000));
  // --max-bytes 0 is no bound, and bad values are usage errors.
  CHECK(Chomp(d.Cli({"call", "big", "text", Args("a", 300000), "--max-bytes", "0"}).out).size() ==
        300000);
  CHECK(d.Cli({"call", "big", "text", Args("a", 10), "--max-bytes", "-1"}).code == 2);
  CHECK(d.Cli({"call", "big", "text", Args("a", 10), "--max-bytes", "lots"}).code == 2);

  // A tool's own error text is held to the bound too, and stays an error.
  auto error = d.Cli({"call", "big", "text", Args("a", 200000, 0, true), "--max-bytes", "1000"});
  CHECK(error.code == 1);
  CHECK(error.err.find("[result truncated: 200000 bytes in total; the full text is in " +
                       s.ResultsDir()) != std::string::npos);
}

TEST_CASE("large results: a result after many SSE events, and as one JSON body",
          "[daemon][results]") {
  TempDir dir;
  LargeServer sse(dir);
  REQUIRE_UPSTREAM(sse);
  Setup s(dir, sse);
  const std::string full = Expected(kHan, 2000000);
  const auto r =
      s.daemon->Cli({"call", "big", "text", Args(kHan, full.size(), 2000), "--max-bytes", "65536"});
  REQUIRE(r.code == 0);
  const Cut cut = CheckCut(Chomp(r.out), full, 65536);
  CHECK(ReadFile(KeptFile(cut, full.size(), s.ResultsDir())) == full);

  TempDir dir2;
  LargeServer json(dir2, /*json_response=*/true);
  REQUIRE_UPSTREAM(json);
  Setup s2(dir2, json);
  const auto j =
      s2.daemon->Cli({"call", "big", "text", Args(kEmoji, 4000000), "--max-bytes", "1000"});
  REQUIRE(j.code == 0);
  const std::string full4 = Expected(kEmoji, 4000000);
  const Cut cut4 = CheckCut(Chomp(j.out), full4, 1000);
  CHECK(ReadFile(KeptFile(cut4, full4.size(), s2.ResultsDir())) == full4);
}

TEST_CASE("large results: libmcpgw's bounded call, its defaults and its bad values",
          "[daemon][results]") {
  TempDir dir;
  LargeServer server(dir);
  REQUIRE_UPSTREAM(server);
  // The settings' default for libmcpgw and the CLI, and a smaller one for stdio.
  Setup s(dir, server, R"({"results":{"max_text_bytes":5000,"stdio_max_text_bytes":3000}})");
  std::unique_ptr<mcpgw_client, decltype(&mcpgw_close)> client(
      mcpgw_open(s.daemon->socket().c_str()), &mcpgw_close);
  const std::string full = Expected(kAccent, 20001);
  const std::string args = Args(kAccent, full.size());
  auto call = [&](long long bound) {
    char* out = nullptr;
    const mcpgw_status st = mcpgw_call_dynamic_tool_bounded(client.get(), "big", "text",
                                                            args.c_str(), bound, nullptr, &out);
    std::string text = out != nullptr ? out : "";
    mcpgw_free(out);
    return std::make_pair(st, text);
  };
  auto [st1, explicit_bound] = call(10000);
  REQUIRE(st1 == MCPGW_OK);
  CHECK(ReadFile(KeptFile(CheckCut(explicit_bound, full, 10000), full.size(), s.ResultsDir())) ==
        full);
  auto [st2, by_default] = call(MCPGW_MAX_TEXT_DEFAULT);
  REQUIRE(st2 == MCPGW_OK);
  CheckCut(by_default, full, 5000);
  // The classic call is the same as MCPGW_MAX_TEXT_DEFAULT.
  char* out = nullptr;
  REQUIRE(mcpgw_call_dynamic_tool(client.get(), "big", "text", args.c_str(), nullptr, &out) ==
          MCPGW_OK);
  CheckCut(out, full, 5000);
  mcpgw_free(out);
  auto [st3, for_stdio] = call(MCPGW_MAX_TEXT_STDIO);
  REQUIRE(st3 == MCPGW_OK);
  CheckCut(for_stdio, full, 3000);
  auto [st4, unbounded] = call(0);
  REQUIRE(st4 == MCPGW_OK);
  CHECK(unbounded == full);
  auto [st5, refused] = call(-7);
  CHECK(st5 == MCPGW_INVALID_REQUEST);
  CHECK(refused.find("max_text_bytes is -7") != std::string::npos);

  // The CLI's default follows the settings too.
  CheckCut(Chomp(s.daemon->Cli({"call", "big", "text", args}).out), full, 5000);
}

TEST_CASE("large results: mcpgw stdio cuts at 100000 bytes by default", "[daemon][results]") {
  TempDir dir;
  LargeServer server(dir);
  REQUIRE_UPSTREAM(server);
  Setup s(dir, server);
  const std::string full = Expected(kEmoji, 1000000);

  StdioProcess bridge(s.daemon->socket());
  bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  REQUIRE(!bridge.ReadLine().empty());
  bridge.Write(CallLine(1, Args(kEmoji, full.size())));
  auto [text, is_error] = ToolText(bridge.ReadLine());
  CHECK_FALSE(is_error);
  CHECK(ReadFile(KeptFile(CheckCut(text, full, 100000), full.size(), s.ResultsDir())) == full);
  // Below the bound nothing changes.
  bridge.Write(CallLine(2, Args(kEmoji, 99996)));
  CHECK(ToolText(bridge.ReadLine()).first == Expected(kEmoji, 99996));

  // --max-bytes sets the bridge's own bound; 0 is none.
  StdioProcess small(s.daemon->socket(), {"--max-bytes", "2048"});
  small.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  REQUIRE(!small.ReadLine().empty());
  small.Write(CallLine(1, Args(kHan, 5000)));
  CheckCut(ToolText(small.ReadLine()).first, Expected(kHan, 5000), 2048);
  StdioProcess unbounded(s.daemon->socket(), {"--max-bytes", "0"});
  unbounded.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  REQUIRE(!unbounded.ReadLine().empty());
  unbounded.Write(CallLine(1, Args(kEmoji, full.size())));
  CHECK(ToolText(unbounded.ReadLine()).first == full);
}

TEST_CASE("large results: a file that cannot be written still answers the cut text",
          "[daemon][results]") {
  TempDir dir;
  LargeServer server(dir);
  REQUIRE_UPSTREAM(server);
  const std::string full = Expected("a", 3000000);

  SECTION("the folder cannot be made") {
    Setup s(dir, server);
    // A file where the results folder should be: no folder, no crash.
    std::filesystem::create_directories(s.xdg + "/mcpgw");
    WriteFile(s.ResultsDir(), "in the way");
    const auto r =
        s.daemon->Cli({"call", "big", "text", Args("a", full.size()), "--max-bytes", "4096"});
    REQUIRE(r.code == 0);
    const Cut cut = CheckCut(Chomp(r.out), full, 4096);
    CHECK(cut.notice ==
          "[result truncated: 3000000 bytes in total; the full text could not be "
          "kept: " +
              s.ResultsDir() + " is not a folder]");
  }

  SECTION("the write fails part way (a file size limit)") {
    // mcpgwd under `ulimit -f` of 1 MiB: writing a 3 MB file fails with EFBIG.
    WriteFile(dir / "settings.json", "{}");
    std::filesystem::create_directories(dir / "xdg");
    Daemon d(dir, R"({"mcpServers":{"big":{"url":")" + server.Url() + R"("}}})",
             {"--settings", dir / "settings.json"}, {"XDG_RUNTIME_DIR=" + (dir / "xdg")});
    REQUIRE(d.WaitListening());
    REQUIRE(WaitReady(d, "big"));
    // The limit is set on the running daemon, so its start is not affected.
    REQUIRE(Run({"/usr/bin/prlimit", "--pid", std::to_string(d.process().pid()), "--fsize=1048576"},
                dir)
                .code == 0);
    const auto r = d.Cli({"call", "big", "text", Args("a", full.size()), "--max-bytes", "4096"});
    REQUIRE(r.code == 0);
    const Cut cut = CheckCut(Chomp(r.out), full, 4096);
    CHECK(cut.notice.rfind("[result truncated: 3000000 bytes in total; the full text could not "
                           "be kept: cannot write " +
                               dir / "xdg" + "/mcpgw/results/",
                           0) == 0);
    CHECK(cut.notice.find(": file too large]") != std::string::npos);
    // Nothing half-written is left behind, and the daemon goes on.
    CHECK(std::filesystem::is_empty(dir / "xdg/mcpgw/results"));
    CHECK(d.process().Alive());
    CHECK(Chomp(d.Cli({"call", "big", "text", Args("a", 100)}).out) == Expected("a", 100));
  }
}

TEST_CASE("large results: the call log records the whole size and the file", "[daemon][results]") {
  TempDir dir;
  LargeServer server(dir);
  REQUIRE_UPSTREAM(server);
  Setup s(dir, server, R"({"call_log":{"path":")" + (dir / "calls.jsonl") + R"("}})");
  const auto r = s.daemon->Cli({"call", "big", "text", Args(kHan, 600000), "--max-bytes", "10000"});
  REQUIRE(r.code == 0);
  const Cut cut = CheckCut(Chomp(r.out), Expected(kHan, 600000), 10000);
  const std::string path = KeptFile(cut, 600000, s.ResultsDir());
  REQUIRE(s.daemon->Cli({"call", "big", "text", Args("a", 10)}).code == 0);
  std::string log;
  REQUIRE(WaitFor([&] {
    log = ReadFile(dir / "calls.jsonl");
    return std::count(log.begin(), log.end(), '\n') == 2;
  }));
  const std::string first = log.substr(0, log.find('\n'));
  const rapidjson::Document line = ParseJson(first);
  REQUIRE(line.IsObject());
  CHECK(line["result_bytes"].GetUint64() == 600000);
  CHECK(std::string(line["result_file"].GetString()) == path);
  // The file is named by the request digest the line records.
  CHECK(path.find(std::string(line["request_digest"].GetString()).substr(0, 16)) !=
        std::string::npos);
  const rapidjson::Document second = ParseJson(log.substr(first.size() + 1));
  CHECK(second["result_bytes"].GetUint64() == 10);
  CHECK(second["result_file"].IsNull());
}
