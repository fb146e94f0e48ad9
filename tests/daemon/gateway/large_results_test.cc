// Large results (BEHAVIOR.md §11): where a cut falls, what the notice says,
// and the folder that keeps whole texts (expiry, budget, failures).
#include "daemon/gateway/large_results.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/utf8.h"
#include "daemon/guard/request_digest.h"
#include "daemon/runtime/scrub.h"

namespace fs = std::filesystem;
using namespace mcpgw;
using WallClock = std::chrono::system_clock;

namespace {

// A fresh private folder under the build's temporary directory.
struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/mcpgw-results-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
  std::string path;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// `n` bytes of text made of `unit` repeated (then cut to whole characters).
std::string Repeat(std::string_view unit, size_t n) {
  std::string s;
  s.reserve(n + unit.size());
  while (s.size() < n) s.append(unit);
  return s;
}

// The digest of a call of "dump" on server "files" with no arguments.
const std::string kDigest = *RequestDigest("files", "dump", "{}");

ResultBound Bound(uint64_t max_text_bytes, ResultSpill* spill) {
  ResultBound b;
  b.max_text_bytes = max_text_bytes;
  b.spill = spill;
  b.digest = kDigest;
  return b;
}

mcp::CallOutcome Result(std::string text) {
  mcp::CallOutcome o;
  o.text = std::move(text);
  return o;
}

// The part before the blank line and the notice line of a cut answer.
std::pair<std::string, std::string> Split(const std::string& answer) {
  const size_t at = answer.rfind("\n\n[result truncated: ");
  REQUIRE(at != std::string::npos);
  return {answer.substr(0, at), answer.substr(at + 2)};
}

}  // namespace

TEST_CASE("a cut never ends inside a character, and the answer fits the bound", "[results]") {
  const std::string notice = "[result truncated: 9 bytes in total; the full text is in /x]";
  for (std::string_view unit : {"a", "\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80"}) {
    const std::string text = Repeat(unit, 4000);
    for (uint64_t bound = notice.size() + 2; bound < notice.size() + 40; ++bound) {
      const size_t keep = CutLength(text, bound, notice);
      CAPTURE(unit.size(), bound, keep);
      CHECK(keep + 2 + notice.size() <= bound);
      CHECK(keep % unit.size() == 0);                         // whole characters only
      CHECK(keep + unit.size() + 2 + notice.size() > bound);  // as near the bound as possible
      CHECK(base::IsValidUtf8(std::string_view(text).substr(0, keep)));
    }
  }
  // A bound shorter than the notice keeps no text at all.
  CHECK(CutLength("abcdef", 10, notice) == 0);
}

TEST_CASE("the notice names the file or says why there is none", "[results]") {
  const base::Result<std::string> kept = std::string("/run/user/1/mcpgw/results/a.txt");
  CHECK(TruncationNotice(5000000, kept) ==
        "[result truncated: 5000000 bytes in total; the full text is in "
        "/run/user/1/mcpgw/results/a.txt]");
  const base::Result<std::string> lost = base::IoError("no space left on device");
  CHECK(TruncationNotice(12, lost) ==
        "[result truncated: 12 bytes in total; the full text could not be kept: no space left "
        "on device]");
}

TEST_CASE("at the bound nothing changes, one byte over cuts and keeps the whole text",
          "[results]") {
  TempDir tmp;
  ResultSpill spill({tmp.path + "/results"});
  const std::string text = Repeat("\xE4\xB8\xAD", 3000);  // 3000 bytes of 3-byte characters
  const WallClock::time_point now = WallClock::now();

  mcp::CallOutcome at = Result(text);
  FitResult(at, Bound(text.size(), &spill), now);
  CHECK(at.text == text);
  CHECK(at.full_text_bytes == 0);
  CHECK_FALSE(fs::exists(tmp.path + "/results"));  // nothing written, no folder made

  mcp::CallOutcome over = Result(text);
  FitResult(over, Bound(text.size() - 1, &spill), now);
  CHECK(over.text.size() <= text.size() - 1);
  auto [part, notice] = Split(over.text);
  CHECK(text.compare(0, part.size(), part) == 0);
  CHECK(part.size() % 3 == 0);
  CHECK(notice ==
        "[result truncated: 3000 bytes in total; the full text is in " + over.kept_file + "]");
  CHECK(over.full_text_bytes == 3000);
  CHECK(ReadAll(over.kept_file) == text);
  // Named by the time and the request's digest, private, in a private folder.
  const std::string& digest = kDigest;
  CHECK_THAT(over.kept_file, Catch::StartsWith(tmp.path + "/results/"));
  CHECK_THAT(over.kept_file, Catch::EndsWith("-" + digest.substr(0, 16) + ".txt"));
  struct stat st {};
  REQUIRE(::stat(over.kept_file.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  REQUIRE(::stat((tmp.path + "/results").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
}

TEST_CASE("multi-megabyte results of 1- to 4-byte characters are kept byte for byte", "[results]") {
  TempDir tmp;
  ResultSpill spill({tmp.path + "/r"});
  const WallClock::time_point now = WallClock::now();
  // Mixed widths, so a cut can fall inside any of them.
  const std::string text = Repeat("a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80", 3u << 20);
  for (uint64_t bound : {100000u, 100001u, 100002u, 100003u, 1u << 20}) {
    mcp::CallOutcome o = Result(text);
    FitResult(o, Bound(bound, &spill), now);
    CAPTURE(bound);
    CHECK(o.text.size() <= bound);
    CHECK(o.text.size() + 4 + 100 > bound);  // near the bound
    CHECK(base::IsValidUtf8(o.text));
    auto [part, notice] = Split(o.text);
    CHECK(text.compare(0, part.size(), part) == 0);
    CHECK(ReadAll(o.kept_file) == text);
  }
  // Five results of the same request in the same millisecond: five files.
  CHECK(Files(tmp.path + "/r").size() == 5);
}

TEST_CASE("transport errors are the gateway's own words and are never cut", "[results]") {
  mcp::CallOutcome o = Result(std::string(500, 'x'));
  o.kind = mcp::CallErrorKind::kTransport;
  FitResult(o, Bound(10, nullptr), WallClock::now());
  CHECK(o.text == std::string(500, 'x'));
  mcp::CallOutcome backend = Result(std::string(500, 'x'));
  backend.kind = mcp::CallErrorKind::kBackend;
  FitResult(backend, Bound(200, nullptr), WallClock::now());
  CHECK(backend.text.size() <= 200);
  CHECK_THAT(backend.text, Catch::EndsWith("the full text could not be kept: no folder for "
                                           "results is set up]"));
}

TEST_CASE("a tool's error is kept as it is answered: scrubbed of secrets", "[results]") {
  TempDir tmp;
  ResultSpill spill({tmp.path + "/results"});
  mcp::CallOutcome o = Result("token hunter2-secret leaked; " + std::string(5000, 'e'));
  o.kind = mcp::CallErrorKind::kBackend;
  ResultBound bound = Bound(1000, &spill);
  bound.scrubber = std::make_shared<const Scrubber>(std::vector<Secret>{Secret("hunter2-secret")});
  FitResult(o, bound, WallClock::now());
  CHECK_THAT(o.text, Catch::StartsWith("token <redacted> leaked; eee"));
  const std::string kept = ReadAll(o.kept_file);
  CHECK_THAT(kept, Catch::StartsWith("token <redacted> leaked; eee"));
  CHECK(kept.find("hunter2") == std::string::npos);
}

TEST_CASE("files expire after a day and the oldest go past the budget", "[results]") {
  TempDir tmp;
  const std::string dir = tmp.path + "/results";
  ResultSpill::Options options{dir};
  options.max_bytes = 3000;
  ResultSpill spill(options);
  const WallClock::time_point t0 = WallClock::now();
  const std::string k = std::string(1000, 'k');
  const base::Result<std::string> a = spill.Keep("aaaa", k, t0);
  const base::Result<std::string> b = spill.Keep("bbbb", k, t0 + std::chrono::seconds(1));
  const base::Result<std::string> c = spill.Keep("cccc", k, t0 + std::chrono::seconds(2));
  REQUIRE((a.ok() && b.ok() && c.ok()));
  // Modification times decide the order: make them what the names say.
  auto age = [](const std::string& path, WallClock::time_point t) {
    fs::last_write_time(
        path, fs::file_time_type::clock::now() -
                  std::chrono::duration_cast<fs::file_time_type::duration>(WallClock::now() - t));
  };
  age(*a, t0);
  age(*b, t0 + std::chrono::seconds(1));
  age(*c, t0 + std::chrono::seconds(2));

  // A fourth does not fit 3000 bytes: the oldest goes, the others stay.
  const base::Result<std::string> d = spill.Keep("dddd", k, t0 + std::chrono::seconds(3));
  REQUIRE(d.ok());
  age(*d, t0 + std::chrono::seconds(3));
  CHECK_FALSE(fs::exists(*a));
  CHECK(fs::exists(*b));
  CHECK(fs::exists(*c));

  // A day later a sweep removes everything older than 24 hours.
  age(*b, t0 - std::chrono::hours(25));
  CHECK(spill.Sweep(WallClock::now()) == 1);
  CHECK_FALSE(fs::exists(*b));
  CHECK(fs::exists(*c));

  // A smaller budget (a reload) applies at the next sweep; files not ours stay.
  std::ofstream(dir + "/notes.md") << "mine";
  spill.SetMaxBytes(1000);
  CHECK(spill.Sweep(WallClock::now()) == 1);
  CHECK(Files(dir).size() == 2);  // d and notes.md
  CHECK(fs::exists(*d));
}

TEST_CASE("a text larger than the whole budget is not kept, and says so", "[results]") {
  TempDir tmp;
  ResultSpill::Options options{tmp.path + "/results"};
  options.max_bytes = 1000;
  ResultSpill spill(options);
  mcp::CallOutcome o = Result(std::string(5000, 'z'));
  FitResult(o, Bound(300, &spill), WallClock::now());
  CHECK(o.kept_file.empty());
  CHECK(o.full_text_bytes == 5000);
  CHECK_THAT(o.text, Catch::EndsWith("the full text could not be kept: it is 0.0 MiB, more than "
                                     "results.spill_max_mb allows (0.0 MiB)]"));
  CHECK(o.text.size() <= 300);
}

TEST_CASE("a folder that cannot be made or used is reported, never trusted", "[results]") {
  TempDir tmp;
  // A file where the folder should be.
  std::ofstream(tmp.path + "/results") << "x";
  ResultSpill blocked({tmp.path + "/results"});
  base::Result<std::string> r = blocked.Keep("abcd", "text", WallClock::now());
  CHECK_FALSE(r.ok());
  CHECK(r.message() == tmp.path + "/results is not a folder");

  // A link in its place is not followed.
  fs::create_directory(tmp.path + "/elsewhere");
  fs::create_directory_symlink(tmp.path + "/elsewhere", tmp.path + "/linked");
  ResultSpill linked({tmp.path + "/linked"});
  r = linked.Keep("abcd", "text", WallClock::now());
  CHECK_FALSE(r.ok());
  CHECK(r.message() == tmp.path + "/linked is not a folder");
  CHECK(fs::is_empty(tmp.path + "/elsewhere"));

  // An existing folder open to others is made private before use.
  fs::create_directory(tmp.path + "/open");
  fs::permissions(tmp.path + "/open", fs::perms::all);
  ResultSpill open({tmp.path + "/open"});
  r = open.Keep("abcd", "text", WallClock::now());
  CHECK(r.ok());
  struct stat st {};
  REQUIRE(::stat((tmp.path + "/open").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
}

TEST_CASE("abandoned partial files are swept, fresh ones left to their writer", "[results]") {
  TempDir tmp;
  const std::string dir = tmp.path + "/results";
  ResultSpill spill({dir});
  REQUIRE(spill.Keep("abcd", "x", WallClock::now()).ok());
  std::ofstream(dir + "/old.txt.part") << "half";
  std::ofstream(dir + "/new.txt.part") << "half";
  fs::last_write_time(dir + "/old.txt.part",
                      fs::file_time_type::clock::now() - std::chrono::hours(1));
  CHECK(spill.Sweep(WallClock::now()) == 1);
  CHECK_FALSE(fs::exists(dir + "/old.txt.part"));
  CHECK(fs::exists(dir + "/new.txt.part"));
}
