// The call log (BEHAVIOR.md §8): one private JSON line per call, with a digest of the
// request and never its argument values; size-based rotation.
#include "daemon/guard/call_log.h"
#include "daemon/guard/request_digest.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

namespace mcpgw {
namespace {

class TempDir {
 public:
  TempDir() {
    char t[] = "/tmp/mcpgw-calllog-XXXXXX";
    REQUIRE(mkdtemp(t) != nullptr);
    path_ = t;
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

mode_t Mode(const std::string& path) {
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

CallRecord Record() {
  CallRecord r;
  // 2025-03-04T05:06:07.089Z
  r.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1741064767089));
  r.pid = 4242;
  r.uid = 1000;
  r.ns = "github";
  r.tool = "create_issue";
  r.request_digest = *RequestDigest("github", "create_issue", R"({"token":"hunter2-secret"})");
  r.outcome = "backend";
  r.duration_ms = 1234;
  r.bytes_in = 512;
  r.bytes_out = 64;
  return r;
}

TEST_CASE("a call line has every field and no argument values", "[call_log]") {
  CallRecord r = Record();
  std::string line = FormatCallRecord(r);
  CHECK(line ==
        "{\"time\":\"2025-03-04T05:06:07.089Z\",\"pid\":4242,\"uid\":1000,"
        "\"namespace\":\"github\",\"tool\":\"create_issue\",\"request_digest\":\"" +
            r.request_digest +
            "\",\"outcome\":\"backend\",\"duration_ms\":1234,\"bytes_in\":512,\"bytes_out\":64,"
            "\"result_bytes\":null,\"result_file\":null}");
  CHECK_THAT(line, !Catch::Contains("hunter2"));
  CHECK_THAT(line, !Catch::Contains("arguments"));
}

TEST_CASE("a cut result's line records the whole size and its file", "[call_log]") {
  CallRecord r = Record();
  r.outcome = "ok";
  r.result_bytes = 5000000;
  r.result_file = "/run/user/1000/mcpgw/results/20250304T050607.089Z-ba7816bf8f01cfea.txt";
  std::string line = FormatCallRecord(r);
  CHECK_THAT(line, Catch::EndsWith(",\"result_bytes\":5000000,\"result_file\":\"/run/user/1000/"
                                   "mcpgw/results/20250304T050607.089Z-ba7816bf8f01cfea.txt\"}"));
}

TEST_CASE("a request with nothing to digest has a null digest", "[call_log]") {
  CallRecord r = Record();
  r.request_digest.clear();
  r.outcome = "denied";
  std::string line = FormatCallRecord(r);
  CHECK_THAT(line, Catch::Contains("\"request_digest\":null,\"outcome\":\"denied\""));
}

TEST_CASE("hostile names stay one valid JSON line", "[call_log]") {
  CallRecord r = Record();
  r.ns = "a\"b\nc";
  r.tool = "t\r\n{\"x\":1}\xFF";
  std::string line = FormatCallRecord(r);
  CHECK(line.find('\n') == std::string::npos);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(line.c_str());
  REQUIRE_FALSE(doc.HasParseError());
  CHECK(doc["namespace"].GetString() == std::string("a\"b\nc"));
}

TEST_CASE("the log file is created 0600 and appended to", "[call_log]") {
  TempDir dir;
  std::string path = dir.path() + "/mcpgw-calls.jsonl";
  {
    CallLog log;
    REQUIRE(log.Open(path, 1 << 20, 3).ok());
    CHECK(Mode(path) == 0600);
    CHECK(log.Append(Record()).ok());
    CHECK(log.Append(Record()).ok());
  }
  {
    CallLog log;  // reopening appends
    REQUIRE(log.Open(path, 1 << 20, 3).ok());
    CHECK(log.Append(Record()).ok());
  }
  auto lines = Lines(path);
  REQUIRE(lines.size() == 3);
  for (const auto& line : lines) {
    rapidjson::Document doc;
    doc.Parse(line.c_str());
    REQUIRE_FALSE(doc.HasParseError());
    CHECK(doc["outcome"] == "backend");
  }
}

TEST_CASE("an existing readable log is made private, odd paths are refused", "[call_log]") {
  TempDir dir;
  std::string path = dir.path() + "/calls.jsonl";
  std::ofstream(path) << "";
  REQUIRE(chmod(path.c_str(), 0644) == 0);
  CallLog log;
  REQUIRE(log.Open(path, 1 << 20, 1).ok());
  CHECK(Mode(path) == 0600);

  auto dir_error = log.Open(dir.path(), 1 << 20, 1);
  REQUIRE_FALSE(dir_error.ok());
  CHECK_THAT(dir_error.message(), Catch::Contains(dir.path()));

  std::string link = dir.path() + "/link.jsonl";
  REQUIRE(symlink(path.c_str(), link.c_str()) == 0);
  CHECK_FALSE(log.Open(link, 1 << 20, 1).ok());

  std::string fifo = dir.path() + "/fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto fifo_error = log.Open(fifo, 1 << 20, 1);
  REQUIRE_FALSE(fifo_error.ok());
  CHECK_THAT(fifo_error.message(), Catch::Contains("not a regular file"));
}

TEST_CASE("rotation keeps N files and never exceeds max_bytes", "[call_log]") {
  TempDir dir;
  std::string path = dir.path() + "/mcpgw-calls.jsonl";
  const size_t line_bytes = FormatCallRecord(Record()).size() + 1;
  CallLog log;
  // Room for two lines per file.
  REQUIRE(log.Open(path, line_bytes * 2 + 1, 2).ok());
  for (int i = 0; i < 7; ++i) {
    CallRecord r = Record();
    r.duration_ms = 1000 + i;  // fixed width: every line has the same size
    CHECK(log.Append(r).ok());
  }
  // 7 lines: current holds line 7 (index 6), .1 holds 5-6, .2 holds 3-4; 1-2 dropped.
  auto current = Lines(path);
  auto first = Lines(path + ".1");
  auto second = Lines(path + ".2");
  REQUIRE(current.size() == 1);
  REQUIRE(first.size() == 2);
  REQUIRE(second.size() == 2);
  CHECK_THAT(current[0], Catch::Contains("\"duration_ms\":1006"));
  CHECK_THAT(first[0], Catch::Contains("\"duration_ms\":1004"));
  CHECK_THAT(second[0], Catch::Contains("\"duration_ms\":1002"));
  CHECK(access((path + ".3").c_str(), F_OK) != 0);
  CHECK(Mode(path) == 0600);
  CHECK(Mode(path + ".1") == 0600);
}

TEST_CASE("keep 0 truncates instead of rotating", "[call_log]") {
  TempDir dir;
  std::string path = dir.path() + "/calls.jsonl";
  const size_t line_bytes = FormatCallRecord(Record()).size() + 1;
  CallLog log;
  REQUIRE(log.Open(path, line_bytes, 0).ok());
  for (int i = 0; i < 3; ++i) CHECK(log.Append(Record()).ok());
  CHECK(Lines(path).size() == 1);
  CHECK(access((path + ".1").c_str(), F_OK) != 0);
}

TEST_CASE("an open failure is reported once, without crashing", "[call_log]") {
  CallLog log;
  auto open_error = log.Open("/nonexistent-dir/calls.jsonl", 1 << 20, 1);
  REQUIRE_FALSE(open_error.ok());
  auto first = log.Append(Record());
  REQUIRE_FALSE(first.ok());
  CHECK_THAT(first.message(), Catch::Contains("/nonexistent-dir/calls.jsonl"));
  CHECK(log.Append(Record()).ok());  // not reported again
  CHECK(log.Append(Record()).ok());
}

TEST_CASE("a write failure is reported once per run of failures", "[call_log]") {
  TempDir dir;
  std::string path = dir.path() + "/calls.jsonl";
  CallLog log;
  REQUIRE(log.Open(path, 1 << 20, 1).ok());
  REQUIRE(log.Append(Record()).ok());
  // A file-size limit makes the next write fail (EFBIG) instead of killing us.
  struct rlimit saved {};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit tight = saved;
  tight.rlim_cur = 10;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &tight) == 0);
  auto first = log.Append(Record());
  auto second = log.Append(Record());
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  REQUIRE_FALSE(first.ok());
  CHECK_THAT(first.message(), Catch::Contains("cannot write"));
  CHECK(second.ok());
  // After a success, a new failure is reported again.
  CHECK(log.Append(Record()).ok());
  REQUIRE(setrlimit(RLIMIT_FSIZE, &tight) == 0);
  std::signal(SIGXFSZ, SIG_IGN);
  auto again = log.Append(Record());
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  CHECK_FALSE(again.ok());
  CHECK(Lines(path).size() == 2);
}

TEST_CASE("a log never opened is off", "[call_log]") {
  CallLog log;
  CHECK_FALSE(log.is_open());
  CHECK(log.Append(Record()).ok());
}

}  // namespace
}  // namespace mcpgw
