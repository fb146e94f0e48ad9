// get_dynamic_tools with a query (mcpgw_find_tools, mcpgw_start_find_tools) against a
// byte-level fake daemon (raw_daemon.h): the exact params each call sends, that a request
// without a query goes out as it always did, and that a NULL query sends nothing.
#include <poll.h>

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "client/raw_daemon.h"
#include "daemon/ipc/ipc_test_fixture.h"
#include "mcpgw.h"
#include "mcpgw.hpp"

namespace mcpgw {
namespace {

using testing::RawDaemon;
using testing::TempDir;

// Answers every request "ok", except a limit the daemon would refuse.
std::string Answer(const RawDaemon::Frame& f) {
  if (f.bytes.find("\"limit\":51") != std::string::npos) {
    return proto::EncodeError(f.id, proto::ErrorKind::kInvalidRequest,
                              "limit must be an integer from 1 to 50");
  }
  return proto::EncodeTextResult(f.id, "ok");
}

// The frame a request with `params` goes out as, given the id it was sent with.
std::string Frame(const RawDaemon::Frame& f, const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + f.id + R"(,"method":"get_dynamic_tools","params":)" +
         params + "}";
}

struct Reply {
  mcpgw_status status = MCPGW_OK;
  std::string text;
};

Reply Take(mcpgw_status status, char* out) {
  Reply r{status, out != nullptr ? out : "(null)"};
  mcpgw_free(out);
  return r;
}

Reply Find(mcpgw_client* c, const char* ns, const char* query, int limit) {
  char* out = nullptr;
  const mcpgw_status status = mcpgw_find_tools(c, ns, query, limit, nullptr, &out);
  return Take(status, out);
}

Reply Tools(mcpgw_client* c, const char* ns, const char* tool) {
  char* out = nullptr;
  const mcpgw_status status = mcpgw_get_dynamic_tools(c, ns, tool, nullptr, &out);
  return Take(status, out);
}

struct Fixture {
  TempDir dir;
  std::string path = dir.path() + "/d.sock";
  RawDaemon daemon{path, Answer};
  mcpgw_client* client = mcpgw_open(path.c_str());
  ~Fixture() { mcpgw_close(client); }

  // Every get_dynamic_tools frame so far, each as it would be sent with `params[i]`.
  void CheckSent(const std::vector<std::string>& params) {
    const auto frames = daemon.With("get_dynamic_tools");
    REQUIRE(frames.size() == params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      INFO("request " << i);
      CHECK(frames[i].bytes == Frame(frames[i], params[i]));
    }
  }
};

TEST_CASE("libmcpgw: get_dynamic_tools without a query sends the params it always sent",
          "[client][find]") {
  Fixture f;
  REQUIRE(f.daemon.ok());
  CHECK(Tools(f.client, nullptr, nullptr).status == MCPGW_OK);
  CHECK(Tools(f.client, "alpha", nullptr).status == MCPGW_OK);
  CHECK(Tools(f.client, "alpha", "add").status == MCPGW_OK);
  f.CheckSent({"{}", R"({"namespace":"alpha"})", R"({"namespace":"alpha","toolName":"add"})"});
}

TEST_CASE("libmcpgw: find_tools sends query, and limit and namespace when given",
          "[client][find]") {
  Fixture f;
  REQUIRE(f.daemon.ok());
  const Reply all = Find(f.client, nullptr, "create a github issue", 0);
  CHECK(all.status == MCPGW_OK);
  CHECK(all.text == "ok");
  CHECK(Find(f.client, "github", "create an issue", 5).status == MCPGW_OK);
  CHECK(Find(f.client, nullptr, "say \"hi\"\n\u00e9", 1).status == MCPGW_OK);
  // The range is the daemon's to judge: any limit but 0 goes out as given.
  CHECK(Find(f.client, nullptr, "x", -3).status == MCPGW_OK);
  CHECK(Find(f.client, nullptr, "", 0).status == MCPGW_OK);
  f.CheckSent({R"({"query":"create a github issue"})",
               R"({"namespace":"github","query":"create an issue","limit":5})",
               "{\"query\":\"say \\\"hi\\\"\\n\u00e9\",\"limit\":1}", R"({"query":"x","limit":-3})",
               R"({"query":""})"});
}

TEST_CASE("libmcpgw: the daemon's refusal of a limit reaches the caller", "[client][find]") {
  Fixture f;
  REQUIRE(f.daemon.ok());
  const Reply refused = Find(f.client, nullptr, "x", 51);
  CHECK(refused.status == MCPGW_INVALID_REQUEST);
  CHECK(refused.text == "limit must be an integer from 1 to 50");
  f.CheckSent({R"({"query":"x","limit":51})"});
}

struct Seen {
  int times = 0;
  mcpgw_status status = MCPGW_OK;
  std::string text;
};

void Record(void* user, mcpgw_request, mcpgw_status status, const char* text, size_t len) {
  auto* seen = static_cast<Seen*>(user);
  ++seen->times;
  seen->status = status;
  seen->text.assign(text, len);
}

// Runs the host's loop until every callback in `seen` ran once.
bool Drive(mcpgw_client* c, const std::vector<Seen*>& seen) {
  for (int turn = 0; turn < 100; ++turn) {
    bool all = true;
    for (const Seen* s : seen) all = all && s->times == 1;
    if (all) return true;
    pollfd p{mcpgw_fd(c, nullptr), POLLIN, 0};
    const long timeout = mcpgw_timeout(c);
    poll(&p, 1, timeout < 0 || timeout > 100 ? 100 : static_cast<int>(timeout));
    mcpgw_process(c);
  }
  return false;
}

TEST_CASE("libmcpgw: a NULL query is refused and nothing is sent", "[client][find]") {
  Fixture f;
  REQUIRE(f.daemon.ok());
  const Reply blocking = Find(f.client, "alpha", nullptr, 5);
  CHECK(blocking.status == MCPGW_INVALID_REQUEST);
  CHECK(blocking.text.find("query is NULL") != std::string::npos);
  CHECK(blocking.text.find("mcpgw_get_dynamic_tools") != std::string::npos);

  Seen refused, sent;
  CHECK(mcpgw_start_find_tools(f.client, nullptr, nullptr, 0, Record, &refused) != 0);
  CHECK(refused.times == 0);  // never from inside the start
  CHECK(mcpgw_start_find_tools(f.client, "alpha", "add numbers", 3, Record, &sent) != 0);
  REQUIRE(Drive(f.client, {&refused, &sent}));
  CHECK(refused.status == MCPGW_INVALID_REQUEST);
  CHECK(refused.text == blocking.text);
  CHECK(sent.status == MCPGW_OK);
  f.CheckSent({R"({"namespace":"alpha","query":"add numbers","limit":3})"});
  CHECK(mcpgw_find_tools(nullptr, nullptr, "x", 0, nullptr, nullptr) == MCPGW_INVALID_REQUEST);
  CHECK(mcpgw_start_find_tools(nullptr, nullptr, "x", 0, Record, &sent) == 0);
}

TEST_CASE("mcpgw.hpp: FindTools and StartFindTools", "[client][find]") {
  Fixture f;
  REQUIRE(f.daemon.ok());
  Client client(f.path);
  CHECK(client.FindTools(std::nullopt, "send mail").ok());
  CHECK(client.FindTools("mail", "send mail", 2).ok());
  std::vector<Result> results;
  CHECK(client.StartFindTools(std::nullopt, "x", 51,
                              [&](const Result& r) { results.push_back(r); }) != 0);
  for (int turn = 0; turn < 100 && results.empty(); ++turn) {
    pollfd p{client.fd(), POLLIN, 0};
    poll(&p, 1, 100);
    client.Process();
  }
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == MCPGW_INVALID_REQUEST);
  f.CheckSent({R"({"query":"send mail"})", R"({"namespace":"mail","query":"send mail","limit":2})",
               R"({"query":"x","limit":51})"});
}

}  // namespace
}  // namespace mcpgw
