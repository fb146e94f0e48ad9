// ParseFile and SystemParseEnv: the only parts of the config layer that touch
// the real file system and environment.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "config/config.h"
#include "config/document.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;

// A fresh directory under $TMPDIR, removed with its files at scope exit.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/mcpgw-config-XXXXXX";
    if (mkdtemp(path_.data()) == nullptr) path_.clear();
  }
  ~TempDir() {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string Write(const std::string& name, const std::string& text) {
    std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << text;
    files_.push_back(file);
    return file;
  }
  std::string Track(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

TEST_CASE("ParseFile reads and parses a file", "[config][file]") {
  TempDir dir;
  std::string file = dir.Write("mcp.json", R"({"mcpServers": {"a": {"url": "http://a"}}})");
  ParseResult r = ParseFile(file, FakeEnv());
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 1);
  CHECK(r->entries[0].accepted());
}

TEST_CASE("ParseFile errors name the file for JSON errors", "[config][file]") {
  TempDir dir;
  std::string file = dir.Write("bad.json", "{\n\n  \"mcpServers\": }");
  ParseResult r = ParseFile(file, FakeEnv());
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind(file + ":3:17: invalid JSON: ", 0) == 0);
}

TEST_CASE("a missing file is an error naming the path and the reason", "[config][file]") {
  TempDir dir;
  std::string file = dir.path() + "/absent.json";
  ParseResult r = ParseFile(file, FakeEnv());
  REQUIRE_FALSE(r.ok());
  CHECK(r.message() == "cannot read " + file + ": No such file or directory");
}

TEST_CASE("a directory is an error naming the path", "[config][file]") {
  TempDir dir;
  ParseResult r = ParseFile(dir.path(), FakeEnv());
  REQUIRE_FALSE(r.ok());
  CHECK(r.message() == "cannot read " + dir.path() + ": Is a directory");
}

TEST_CASE("an unreadable file is an error naming the path", "[config][file]") {
  if (geteuid() == 0) return;  // root reads anything
  TempDir dir;
  std::string file = dir.Write("secret.json", "{}");
  chmod(file.c_str(), 0);
  ParseResult r = ParseFile(file, FakeEnv());
  REQUIRE_FALSE(r.ok());
  CHECK(r.message() == "cannot read " + file + ": Permission denied");
}

TEST_CASE("an empty file on disk is invalid JSON", "[config][file]") {
  TempDir dir;
  std::string file = dir.Write("empty.json", "");
  ParseResult r = ParseFile(file, FakeEnv());
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind(file + ":1:1: invalid JSON: ", 0) == 0);
}

TEST_CASE("a file over 64 MiB is refused as too large", "[config][file]") {
  TempDir dir;
  std::string file = dir.Track("huge.json");
  int fd = open(file.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(ftruncate(fd, static_cast<off_t>(kMaxConfigBytes) * 2) == 0);  // sparse
  close(fd);
  ParseResult r = ParseFile(file, FakeEnv());
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().rfind(file + ": file is too large (", 0) == 0);
}

TEST_CASE("SystemParseEnv reads the process environment", "[config][file]") {
  setenv("MCPGW_CONFIG_TEST_VAR", "value-1", 1);
  unsetenv("MCPGW_CONFIG_TEST_UNSET");
  ParseEnv env = SystemParseEnv();
  CHECK(env.get_env("MCPGW_CONFIG_TEST_VAR") == std::optional<std::string>("value-1"));
  CHECK_FALSE(env.get_env("MCPGW_CONFIG_TEST_UNSET").has_value());
  CHECK_FALSE(env.get_env(std::string_view("MCPGW_CONFIG_TEST_VAR\0x", 23)).has_value());
  CHECK_FALSE(env.get_env("A=B").has_value());
  CHECK_FALSE(env.home.empty());
}

TEST_CASE("SystemParseEnv takes ${userHome} from HOME", "[config][file]") {
  const char* old = std::getenv("HOME");
  std::string saved = old ? old : "";
  setenv("HOME", "/srv/some-home", 1);
  ParseEnv env = SystemParseEnv();
  if (old)
    setenv("HOME", saved.c_str(), 1);
  else
    unsetenv("HOME");
  CHECK(env.home == "/srv/some-home");
}

}  // namespace
}  // namespace mcpgw::config
