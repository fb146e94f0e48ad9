// The CLI's and the stdio bridge's daemon adapters (LibDaemonApi, LibAsyncDaemonApi) through
// the real libmcpgw to a byte-level fake daemon: a ToolsRequest without a query goes out as
// get_dynamic_tools always did, one with a query as mcpgw_find_tools sends it, and what
// libmcpgw cannot carry is refused with nothing sent.
#include <poll.h>

#include <sstream>

#include <catch2/catch.hpp>

#include "client/api/async_api.h"
#include "client/cli/args.h"
#include "client/cli/commands.h"
#include "client/raw_daemon.h"
#include "daemon/ipc/ipc_test_fixture.h"

namespace mcpgw::cli {
namespace {

using testing::RawDaemon;
using testing::TempDir;

std::string AnswerOk(const RawDaemon::Frame& f) { return proto::EncodeTextResult(f.id, "ok"); }

// The params of every get_dynamic_tools the daemon received, in order.
std::vector<std::string> SentParams(RawDaemon& daemon) {
  std::vector<std::string> out;
  for (const RawDaemon::Frame& f : daemon.With("get_dynamic_tools")) {
    const std::string head =
        R"({"jsonrpc":"2.0","id":)" + f.id + R"(,"method":"get_dynamic_tools","params":)";
    REQUIRE(f.bytes.rfind(head, 0) == 0);
    out.push_back(f.bytes.substr(head.size(), f.bytes.size() - head.size() - 1));
  }
  return out;
}

TEST_CASE("LibDaemonApi sends a query only when there is one", "[cli][tools][find]") {
  TempDir dir;
  const std::string socket = dir.path() + "/d.sock";
  RawDaemon daemon(socket, AnswerOk);
  REQUIRE(daemon.ok());
  LibDaemonApi api(socket);
  CHECK(api.GetDynamicTools({}, nullptr).status == MCPGW_OK);
  CHECK(api.GetDynamicTools({"alpha", "add", std::nullopt, std::nullopt}, nullptr).status ==
        MCPGW_OK);
  // A limit without a query is not sent: the request stays what it was.
  CHECK(api.GetDynamicTools({"alpha", std::nullopt, std::nullopt, 5}, nullptr).status == MCPGW_OK);
  CHECK(api.GetDynamicTools({std::nullopt, std::nullopt, "add numbers", std::nullopt}, nullptr)
            .status == MCPGW_OK);
  CHECK(api.GetDynamicTools({"alpha", std::nullopt, "add", 51}, nullptr).status == MCPGW_OK);
  CHECK(SentParams(daemon) ==
        std::vector<std::string>{"{}", R"({"namespace":"alpha","toolName":"add"})",
                                 R"({"namespace":"alpha"})", R"({"query":"add numbers"})",
                                 R"({"namespace":"alpha","query":"add","limit":51})"});

  // libmcpgw carries no toolName with a query, and a limit of 0 would mean the default.
  const ApiResult with_tool = api.GetDynamicTools({"alpha", "add", "add", std::nullopt}, nullptr);
  CHECK(with_tool.status == MCPGW_INVALID_REQUEST);
  CHECK(with_tool.text.find("query does not go with toolName") != std::string::npos);
  const ApiResult zero = api.GetDynamicTools({std::nullopt, std::nullopt, "add", 0}, nullptr);
  CHECK(zero.status == MCPGW_INVALID_REQUEST);
  CHECK(zero.text == "limit must be an integer from 1 to 50");
  const ApiResult huge =
      api.GetDynamicTools({std::nullopt, std::nullopt, "add", int64_t{1} << 40}, nullptr);
  CHECK(huge.status == MCPGW_INVALID_REQUEST);
  CHECK(SentParams(daemon).size() == 5);
}

TEST_CASE("LibAsyncDaemonApi sends a query only when there is one, and refuses through Process",
          "[cli][tools][find]") {
  TempDir dir;
  const std::string socket = dir.path() + "/d.sock";
  RawDaemon daemon(socket, AnswerOk);
  REQUIRE(daemon.ok());
  LibAsyncDaemonApi api(socket);
  std::vector<ApiResult> results;
  const auto keep = [&](const ApiResult& r) { results.push_back(r); };
  CHECK(api.StartGetDynamicTools({"alpha", std::nullopt, std::nullopt, 7}, keep) != 0);
  CHECK(api.StartGetDynamicTools({"alpha", std::nullopt, "send mail", 7}, keep) != 0);
  CHECK(api.StartGetDynamicTools({"alpha", "send", "send mail", std::nullopt}, keep) != 0);
  CHECK(results.empty());  // callbacks run only inside Process()
  for (int turn = 0; turn < 100 && results.size() < 3; ++turn) {
    pollfd p{api.fd(), POLLIN, 0};
    const long timeout = api.timeout_ms();
    poll(&p, 1, timeout < 0 || timeout > 100 ? 100 : static_cast<int>(timeout));
    api.Process();
  }
  REQUIRE(results.size() == 3);
  size_t refused = 0;
  for (const ApiResult& r : results) {
    if (r.status == MCPGW_OK) continue;
    ++refused;
    CHECK(r.status == MCPGW_INVALID_REQUEST);
    CHECK(r.text.find("query does not go with toolName") != std::string::npos);
  }
  CHECK(refused == 1);
  CHECK(SentParams(daemon) ==
        std::vector<std::string>{R"({"namespace":"alpha"})",
                                 R"({"namespace":"alpha","query":"send mail","limit":7})"});
}

TEST_CASE("mcpgw tools --query through libmcpgw prints the daemon's answer into a pipe",
          "[cli][tools][find]") {
  TempDir dir;
  const std::string socket = dir.path() + "/d.sock";
  const std::string answer = R"({"query":"add","tools":[]})";
  RawDaemon daemon(
      socket, [&](const RawDaemon::Frame& f) { return proto::EncodeTextResult(f.id, answer); });
  REQUIRE(daemon.ok());
  base::Result<ParseResult> parsed =
      ParseArgs({"--socket", socket, "tools", "alpha", "--query", "add", "--limit", "3"});
  REQUIRE(parsed.ok());
  REQUIRE(parsed->invocation);
  LibDaemonApi api(socket);
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
  CHECK(RunTools(api, *parsed->invocation, io) == 0);
  CHECK(out.str() == answer + "\n");
  CHECK(SentParams(daemon) ==
        std::vector<std::string>{R"({"namespace":"alpha","query":"add","limit":3})"});
}

}  // namespace
}  // namespace mcpgw::cli
