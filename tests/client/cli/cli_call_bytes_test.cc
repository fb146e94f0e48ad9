// `mcpgw call NAMESPACE TOOL ARGUMENTS_JSON` through the real libmcpgw to a byte-level fake
// daemon: the arguments reach the daemon exactly as typed (BEHAVIOR.md §5).
#include <sstream>

#include <catch2/catch.hpp>

#include "client/cli/args.h"
#include "client/cli/commands.h"
#include "client/raw_daemon.h"
#include "daemon/ipc/ipc_test_fixture.h"

namespace mcpgw::cli {
namespace {

using testing::RawDaemon;
using testing::TempDir;

TEST_CASE("mcpgw call sends ARGUMENTS_JSON byte for byte", "[cli][call]") {
  TempDir dir;
  const std::string socket = dir.path() + "/d.sock";
  RawDaemon daemon(socket,
                   [](const RawDaemon::Frame& f) { return proto::EncodeTextResult(f.id, "done"); });
  REQUIRE(daemon.ok());
  const std::string args =
      R"({ "n": 123456789012345678901234567890, "tiny": 1e-400, "e": "\u00e9",)"
      R"( "z": {"b": 2, "a": 1}, "list": [1.50 , -0] })";
  base::Result<ParseResult> parsed = ParseArgs({"--socket", socket, "call", "alpha", "add", args});
  REQUIRE(parsed.ok());
  REQUIRE(parsed->invocation);
  LibDaemonApi api(socket);
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
  CHECK(RunCall(api, *parsed->invocation, io, nullptr) == 0);
  CHECK(out.str() == "done\n");
  const auto calls = daemon.With("call_dynamic_tool");
  REQUIRE(calls.size() == 1);
  const std::string& frame = calls[0].bytes;
  const std::string expected = "\"arguments\":" + args + "}}";
  REQUIRE(frame.size() > expected.size());
  CHECK(frame.substr(frame.size() - expected.size()) == expected);
}

}  // namespace
}  // namespace mcpgw::cli
