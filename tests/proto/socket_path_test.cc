#include "proto/socket_path.h"

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

TEST_CASE("MCPGW_SOCKET beats XDG_RUNTIME_DIR", "[proto][socket_path]") {
  CHECK(DefaultSocketPath(FakeEnv({{"MCPGW_SOCKET", "/x/s.sock"}, {"XDG_RUNTIME_DIR", "/run/u"}}),
                          1000) == "/x/s.sock");
}

TEST_CASE("XDG_RUNTIME_DIR gives mcpgw/mcpgw.sock under it", "[proto][socket_path]") {
  CHECK(DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", "/run/user/1000/"}}), 1000) ==
        "/run/user/1000/mcpgw/mcpgw.sock");
  CHECK(DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", "/run/user/7"}, {"MCPGW_SOCKET", ""}}), 7) ==
        "/run/user/7/mcpgw/mcpgw.sock");
}

TEST_CASE("without XDG_RUNTIME_DIR the path is per-uid under /tmp", "[proto][socket_path]") {
  CHECK(DefaultSocketPath(FakeEnv({}), 1234) == "/tmp/mcpgw-1234/mcpgw.sock");
  CHECK(DefaultSocketPath(FakeEnv({{"XDG_RUNTIME_DIR", ""}}), 5) == "/tmp/mcpgw-5/mcpgw.sock");
}

TEST_CASE("a --socket flag wins over the environment", "[proto][socket_path]") {
  CHECK(ResolveSocketPath("/flag.sock") == "/flag.sock");
  CHECK(!ResolveSocketPath("").empty());
}

TEST_CASE("paths too long for sockaddr_un are refused with a clear message",
          "[proto][socket_path]") {
  CHECK(CheckSocketPath("/run/user/1000/mcpgw/mcpgw.sock").empty());
  CHECK(CheckSocketPath("/" + std::string(MaxSocketPathLength() - 1, 'a')).empty());
  std::string error = CheckSocketPath("/" + std::string(MaxSocketPathLength(), 'a'));
  CHECK(error.find("more than the 107") != std::string::npos);
  CHECK(!CheckSocketPath("").empty());
}

}  // namespace
}  // namespace mcpgw::proto
