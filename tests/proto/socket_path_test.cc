#include "proto/socket_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

#include <catch2/catch.hpp>

namespace mcpgw::proto {
namespace {

GetEnvFn FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// A file system where only the directories in `user_dirs` are runtime
// directories of their uid.
IsUserDirFn UserDirs(std::map<std::string, uid_t> user_dirs) {
  return [user_dirs = std::move(user_dirs)](const std::string& dir, uid_t uid) {
    auto it = user_dirs.find(dir);
    return it != user_dirs.end() && it->second == uid;
  };
}

std::string DefaultSocketPath(const GetEnvFn& env, uid_t uid) {
  return proto::DefaultSocketPath(env, uid, UserDirs({}));
}

TEST_CASE("MCPGW_SOCKET beats XDG_RUNTIME_DIR", "[proto][socket_path]") {
  CHECK(DefaultSocketPath(FakeEnv({{"MCPGW_SOCKET", "/x/s.sock"}, {"XDG_RUNTIME_DIR", "/run/u"}}),
                          1000) == "/x/s.sock");
  CHECK(proto::DefaultSocketPath(FakeEnv({{"MCPGW_SOCKET", "/x/s.sock"}}), 1000,
                                 UserDirs({{"/run/user/1000", 1000}})) == "/x/s.sock");
}

TEST_CASE("XDG_RUNTIME_DIR gives mcpgw/mcpgw.sock under it", "[proto][socket_path]") {
  CHECK(DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", "/run/user/1000/"}}), 1000) ==
        "/run/user/1000/mcpgw/mcpgw.sock");
  CHECK(DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", "/run/user/7"}, {"MCPGW_SOCKET", ""}}), 7) ==
        "/run/user/7/mcpgw/mcpgw.sock");
}

TEST_CASE("without XDG_RUNTIME_DIR the user's /run/user/UID is used when it is theirs",
          "[proto][socket_path]") {
  CHECK(proto::DefaultSocketPath(FakeEnv({}), 1000, UserDirs({{"/run/user/1000", 1000}})) ==
        "/run/user/1000/mcpgw/mcpgw.sock");
  CHECK(proto::DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", ""}}), 0,
                                 UserDirs({{"/run/user/0", 0}})) == "/run/user/0/mcpgw/mcpgw.sock");
  // XDG_RUNTIME_DIR still wins when it is set.
  CHECK(proto::DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", "/elsewhere"}}), 1000,
                                 UserDirs({{"/run/user/1000", 1000}})) ==
        "/elsewhere/mcpgw/mcpgw.sock");
}

TEST_CASE("without XDG_RUNTIME_DIR or a runtime dir of one's own the path is under /tmp",
          "[proto][socket_path]") {
  CHECK(DefaultSocketPath(FakeEnv({}), 1234) == "/tmp/mcpgw-1234/mcpgw.sock");
  CHECK(DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", ""}}), 5) == "/tmp/mcpgw-5/mcpgw.sock");
  // Another user's directory does not count.
  CHECK(proto::DefaultSocketPath(FakeEnv({}), 1000, UserDirs({{"/run/user/1000", 0}})) ==
        "/tmp/mcpgw-1000/mcpgw.sock");
}

TEST_CASE("a runtime dir counts only when it is a 0700 directory of the uid",
          "[proto][socket_path]") {
  char tmpl[] = "/tmp/mcpgw-sockpath-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  REQUIRE(chmod(dir.c_str(), 0700) == 0);
  CHECK(IsUserRuntimeDir(dir, geteuid()));
  CHECK_FALSE(IsUserRuntimeDir(dir, geteuid() + 1));
  REQUIRE(chmod(dir.c_str(), 0755) == 0);
  CHECK_FALSE(IsUserRuntimeDir(dir, geteuid()));
  REQUIRE(chmod(dir.c_str(), 0700) == 0);
  const std::string link = dir + "-link";
  REQUIRE(symlink(dir.c_str(), link.c_str()) == 0);
  CHECK_FALSE(IsUserRuntimeDir(link, geteuid()));  // a symlink is not the directory
  CHECK_FALSE(IsUserRuntimeDir(dir + "/missing", geteuid()));
  unlink(link.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("a --socket flag wins over the environment", "[proto][socket_path]") {
  CHECK(ResolveSocketPath("/flag.sock") == "/flag.sock");
  CHECK(!ResolveSocketPath("").empty());
}

TEST_CASE("paths too long for sockaddr_un are refused with a clear message",
          "[proto][socket_path]") {
  CHECK(CheckSocketPath("/run/user/1000/mcpgw/mcpgw.sock").ok());
  CHECK(CheckSocketPath("/" + std::string(MaxSocketPathLength() - 1, 'a')).ok());
  base::Status error = CheckSocketPath("/" + std::string(MaxSocketPathLength(), 'a'));
  CHECK(error.kind() == base::ErrorKind::kInvalidInput);
  CHECK(error.message().find("more than the 107") != std::string::npos);
  CHECK(!CheckSocketPath("").ok());
  CHECK(CheckSocketPath("").message() == "the socket path is empty");
}

}  // namespace
}  // namespace mcpgw::proto
