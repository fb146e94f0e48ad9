// `mcpgw wait`: polls the status until the daemon answers with no server loading, on a fake
// clock so the timeout and the poll interval are exact.
#include <deque>
#include <sstream>

#include <catch2/catch.hpp>

#include "client/cli/commands.h"
#include "client/cli/subcommands.h"

namespace mcpgw::cli {
namespace {

constexpr const char* kLoading =
    R"({"daemon":{},"servers":[{"namespace":"alpha","status":"ready"},)"
    R"({"namespace":"beta","status":"loading"},{"namespace":"gamma","status":"loading"}]})";
constexpr const char* kSettled =
    R"({"daemon":{},"servers":[{"namespace":"alpha","status":"ready"},)"
    R"({"namespace":"beta","status":"error","reason":"refused"}]})";

// Answers Status() from a script; the last answer repeats. Time only moves when the command
// sleeps, so each poll is exactly one interval apart.
class PollingApi : public DaemonApi {
 public:
  ApiResult GetDynamicTools(const ToolsRequest&, CancelToken*) override { return {}; }
  ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&, long long,
                            CancelToken*) override {
    return {};
  }
  ApiResult Status(CancelToken*) override {
    ++polls;
    poll_times.push_back(now);
    if (script.size() > 1) {
      ApiResult r = script.front();
      script.pop_front();
      return r;
    }
    return script.front();
  }
  void SetTimeoutMs(long ms) override { last_timeout_ms = ms; }

  std::deque<ApiResult> script;
  int polls = 0;
  double now = 1000;
  std::vector<double> poll_times;
  long last_timeout_ms = 0;
};

struct Run {
  std::ostringstream out, err;
  std::istringstream in;
  int code = -1;
};

void Wait(PollingApi& api, double timeout_s, Run* run) {
  CommandIo io{run->out, run->err, run->in, false, false, 0, nullptr};
  WaitClock clock;
  clock.now_s = [&api] { return api.now; };
  clock.sleep_s = [&api](double s) { api.now += s; };
  Invocation inv;
  inv.command = FindSubcommand("wait");
  inv.timeout_s = timeout_s;
  run->code = RunWait(api, inv, io, clock);
}

TEST_CASE("wait exits 0 once the daemon answers and nothing is loading", "[cli][wait]") {
  PollingApi api;
  api.script = {{MCPGW_UNAVAILABLE, "no socket"},
                {MCPGW_UNAVAILABLE, "no socket"},
                {MCPGW_OK, kLoading},
                {MCPGW_OK, kSettled}};
  Run run;
  Wait(api, 30, &run);
  CHECK(run.code == 0);
  CHECK(api.polls == 4);
  CHECK(run.err.str().empty());
  CHECK(run.out.str().empty());
  // Polls are one interval apart.
  CHECK(api.poll_times.back() - api.poll_times.front() == Approx(3 * kWaitPollIntervalS));
}

TEST_CASE("wait exits 4 naming the servers still loading", "[cli][wait]") {
  PollingApi api;
  api.script = {{MCPGW_OK, kLoading}};
  Run run;
  Wait(api, 1, &run);
  CHECK(run.code == 4);
  CHECK(run.err.str() == "mcpgw: timed out after 1s: still loading: beta gamma\n");
  CHECK(api.polls >= 10);
  CHECK(api.polls <= 12);
  CHECK(api.now == Approx(1001));
}

TEST_CASE("wait exits 4 saying the daemon never answered", "[cli][wait]") {
  PollingApi api;
  api.script = {{MCPGW_UNAVAILABLE, "cannot connect to /run/user/1/mcpgw/mcpgw.sock"}};
  Run run;
  Wait(api, 0.5, &run);
  CHECK(run.code == 4);
  CHECK(run.err.str() ==
        "mcpgw: timed out after 0.5s: the daemon never answered (unavailable: cannot connect to "
        "/run/user/1/mcpgw/mcpgw.sock)\n");
  CHECK(api.last_timeout_ms > 0);
  CHECK(api.last_timeout_ms <= 2000);  // one slow poll cannot outlast the timeout by much
}

TEST_CASE("wait with timeout 0 polls once", "[cli][wait]") {
  PollingApi ready;
  ready.script = {{MCPGW_OK, kSettled}};
  Run ok;
  Wait(ready, 0, &ok);
  CHECK(ok.code == 0);
  PollingApi loading;
  loading.script = {{MCPGW_OK, kLoading}};
  Run late;
  Wait(loading, 0, &late);
  CHECK(late.code == 4);
  CHECK(loading.polls == 1);
}

TEST_CASE("a daemon with no servers is ready", "[cli][wait]") {
  PollingApi api;
  api.script = {{MCPGW_OK, R"({"daemon":{},"servers":[]})"}};
  Run run;
  Wait(api, 5, &run);
  CHECK(run.code == 0);
  CHECK(api.polls == 1);
}

// A daemon that needs `answer_ms` for a status round trip: a call given less fails as a
// timeout would.
class SlowApi : public PollingApi {
 public:
  ApiResult Status(CancelToken* cancel) override {
    timeouts_ms.push_back(last_timeout_ms);
    if (last_timeout_ms > 0 && last_timeout_ms < answer_ms) {
      now += last_timeout_ms / 1000.0;
      ++polls;
      return {MCPGW_TRANSPORT, "timed out"};
    }
    now += answer_ms / 1000.0;
    return PollingApi::Status(cancel);
  }
  long answer_ms = 300;
  std::vector<long> timeouts_ms;
};

TEST_CASE("wait with timeout 0 succeeds against a slow but ready daemon", "[cli][wait]") {
  SlowApi api;
  api.script = {{MCPGW_OK, kSettled}};
  Run run;
  Wait(api, 0, &run);
  CHECK(run.code == 0);
  CHECK(run.err.str().empty());
  REQUIRE(!api.timeouts_ms.empty());
  CHECK(api.timeouts_ms.front() >= 10000);  // the first round trip is never cut short
}

}  // namespace
}  // namespace mcpgw::cli
