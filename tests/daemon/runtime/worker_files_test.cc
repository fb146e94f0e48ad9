// The real Env's files (Worker): private files, directories and atomic
// writes on a real file system, as the token store uses them.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "daemon/runtime/worker.h"

namespace mcpgw {
namespace {

class Dir {
 public:
  Dir() {
    std::string tmpl = "/tmp/mcpgw-worker-files-XXXXXX";
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

int ModeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(lstat(path.c_str(), &st) == 0);
  return static_cast<int>(st.st_mode & 07777);
}

TEST_CASE("A private file is read whole, within its bound", "[worker][files]") {
  Worker w("files");
  Dir dir;
  REQUIRE(w.WriteFileAtomically(dir / "grant.json", "{\"a\":1}", 0600).ok());
  CHECK(ModeOf(dir / "grant.json") == 0600);
  const base::Result<std::string> contents = w.ReadPrivateFile(dir / "grant.json", 64);
  REQUIRE(contents.ok());
  CHECK(*contents == "{\"a\":1}");

  // Over the bound: an error naming the bound (and so no partial contents).
  const base::Result<std::string> over = w.ReadPrivateFile(dir / "grant.json", 3);
  CHECK_FALSE(over.ok());
  CHECK(over.message().find("larger than 3 bytes") != std::string::npos);
}

TEST_CASE("A link in a private file's place is refused, and what it points to is not read",
          "[worker][files]") {
  Worker w("files");
  Dir dir;
  { std::ofstream(dir / "elsewhere") << "someone else's text"; }
  REQUIRE(symlink((dir / "elsewhere").c_str(), (dir / "grant.json").c_str()) == 0);
  const base::Result<std::string> linked = w.ReadPrivateFile(dir / "grant.json", 1024);
  CHECK_FALSE(linked.ok());
  CHECK(linked.message().find("is a link") != std::string::npos);
  // The ordinary read follows links (a configuration may be one).
  const base::Result<std::string> contents = w.ReadFile(dir / "grant.json");
  REQUIRE(contents.ok());
  CHECK(*contents == "someone else's text");
}

TEST_CASE("A missing private file is an error that names it", "[worker][files]") {
  Worker w("files");
  Dir dir;
  const base::Result<std::string> none = w.ReadPrivateFile(dir / "none.json", 1024);
  CHECK(none.kind() == base::ErrorKind::kNotFound);
  CHECK(none.message().find(dir / "none.json") != std::string::npos);
  CHECK(w.ReadFile(dir / "none.json").kind() == base::ErrorKind::kNotFound);
  CHECK_FALSE(w.FileExists(dir / "none.json"));
}

TEST_CASE("Directories are made with their mode, and a link in a directory's place is refused",
          "[worker][files]") {
  Worker w("files");
  Dir dir;
  REQUIRE(w.CreateDir(dir / "a/b/oauth", 0700).ok());
  CHECK(ModeOf(dir / "a/b/oauth") == 0700);
  REQUIRE(symlink((dir / "a").c_str(), (dir / "linked").c_str()) == 0);
  const base::Status linked = w.CreateDir(dir / "linked", 0700);
  CHECK_FALSE(linked.ok());
  CHECK_FALSE(linked.message().empty());
}

TEST_CASE("An atomic write replaces the file whole and never widens its mode", "[worker][files]") {
  Worker w("files");
  Dir dir;
  REQUIRE(w.WriteFileAtomically(dir / "t.json", "old", 0600).ok());
  REQUIRE(w.WriteFileAtomically(dir / "t.json", "new contents", 0600).ok());
  const base::Result<std::string> contents = w.ReadFile(dir / "t.json");
  REQUIRE(contents.ok());
  CHECK(*contents == "new contents");
  CHECK(ModeOf(dir / "t.json") == 0600);
  // Nothing is left beside it.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "")) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 1);
  REQUIRE(w.RemoveFile(dir / "t.json").ok());
  CHECK_FALSE(w.FileExists(dir / "t.json"));
  CHECK(w.RemoveFile(dir / "t.json").ok());  // already gone: not an error
}

}  // namespace
}  // namespace mcpgw
