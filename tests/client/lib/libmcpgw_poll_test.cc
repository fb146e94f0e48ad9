// libmcpgw's pollable interface, driven the way a host's event loop drives
// it: poll() on mcpgw_fd() with mcpgw_timeout(), then mcpgw_process().
#include <poll.h>

#include <atomic>
#include <functional>
#include <map>
#include <thread>

#include <catch2/catch.hpp>

#include "client/lib/libmcpgw_fixture.h"
#include "mcpgw.h"
#include "mcpgw.hpp"

namespace mcpgw {
namespace {

using testing::Daemon;
using testing::TempDir;
using namespace std::chrono_literals;

struct Done {
  mcpgw_status status = MCPGW_OK;
  std::string text;
  int times = 0;
};

// What the callbacks saw, by request id.
struct Results {
  std::map<mcpgw_request, Done> by_id;
  size_t finished() const { return by_id.size(); }
  bool has(mcpgw_request id) const { return by_id.count(id) > 0; }
};

void Record(void* user_data, mcpgw_request id, mcpgw_status status, const char* text, size_t len) {
  Done& d = static_cast<Results*>(user_data)->by_id[id];
  d.status = status;
  d.text.assign(text, len);
  ++d.times;
}

// One turn of a host's loop: waits for the descriptor (at most `slice`),
// then lets the library work.
void Turn(mcpgw_client* c, std::chrono::milliseconds slice = 100ms) {
  int events = 0;
  const int fd = mcpgw_fd(c, &events);
  REQUIRE(fd >= 0);
  REQUIRE(events == MCPGW_WANT_READ);
  const long timeout = mcpgw_timeout(c);
  pollfd p{fd, POLLIN, 0};
  poll(&p, 1,
       timeout < 0 || timeout > slice.count() ? static_cast<int>(slice.count())
                                              : static_cast<int>(timeout));
  mcpgw_process(c);
}

// Runs the loop until `pred` holds, for at most `limit`.
bool Drive(mcpgw_client* c, const std::function<bool()>& pred,
           std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    Turn(c);
  }
  return true;
}

mcpgw_request StartCall(mcpgw_client* c, const char* ns, const char* args, Results* r) {
  return mcpgw_start_call_dynamic_tool(c, ns, "t", args, Record, r);
}

TEST_CASE("libmcpgw poll: 500 requests in flight on one handle each complete once", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  Results r;
  std::map<mcpgw_request, std::string> args;
  for (int i = 0; i < 500; ++i) {
    const std::string a = "{\"i\":" + std::to_string(i) + "}";
    const mcpgw_request id = StartCall(c, "alpha", a.c_str(), &r);
    REQUIRE(id != 0);
    CHECK(args.count(id) == 0);
    args[id] = a;
  }
  const mcpgw_request tools = mcpgw_start_get_dynamic_tools(c, "alpha", nullptr, Record, &r);
  const mcpgw_request status = mcpgw_start_status(c, Record, &r);
  CHECK(r.finished() == 0);  // callbacks run only from mcpgw_process()
  REQUIRE(Drive(c, [&] { return r.finished() == 502; }));
  for (const auto& [id, a] : args) {
    const Done& done = r.by_id[id];
    INFO(a);
    CHECK(done.times == 1);
    CHECK(done.status == MCPGW_OK);
    CHECK(done.text ==
          "call_dynamic_tool {\"namespace\":\"alpha\",\"toolName\":\"t\",\"arguments\":" + a + "}");
  }
  CHECK(r.by_id[tools].text == R"(get_dynamic_tools {"namespace":"alpha"})");
  CHECK(r.by_id[status].text == R"({"daemon":{"version":"0.1.0"},"servers":[]})");
  CHECK(mcpgw_process(c) == 0);
  CHECK(mcpgw_timeout(c) == -1);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw poll: a cancelled request ends as cancelled and the daemon drops it",
          "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  Results r;
  const mcpgw_request a = StartCall(c, "slow", nullptr, &r);
  const mcpgw_request b = StartCall(c, "slow", nullptr, &r);
  const mcpgw_request fast = StartCall(c, "alpha", nullptr, &r);
  REQUIRE(Drive(c, [&] { return r.has(fast) && d.handler.requests().size() == 3; }));
  CHECK(mcpgw_cancel_request(c, fast) == 0);  // already finished

  CHECK(mcpgw_cancel_request(c, a) == 1);
  CHECK_FALSE(r.has(a));  // not from inside the cancel
  CHECK(mcpgw_cancel_request(c, a) == 0);
  REQUIRE(Drive(c, [&] { return r.has(a); }));
  CHECK(r.by_id[a].status == MCPGW_CANCELLED);
  REQUIRE(d.handler.WaitCancels(1));
  CHECK(d.handler.cancels()[0] == d.handler.requests()[0].ticket);

  // The other one is still pending and still answered by the daemon's state.
  CHECK(mcpgw_process(c) == 1);
  CHECK_FALSE(r.has(b));
  mcpgw_close(c);  // runs b's callback
  CHECK(r.by_id[b].status == MCPGW_CANCELLED);
  CHECK(r.by_id[b].text == "the client handle was closed");
  CHECK(r.by_id[a].times == 1);
}

TEST_CASE("libmcpgw poll: a daemon restart fails what it may have run, then requests work again",
          "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  const int fd = mcpgw_fd(c, nullptr);
  Results r;
  const mcpgw_request slow1 = StartCall(c, "slow", nullptr, &r);
  const mcpgw_request slow2 = StartCall(c, "slow", nullptr, &r);
  REQUIRE(Drive(c, [&] { return d.handler.requests().size() == 2; }));
  d.Stop();
  REQUIRE(Drive(c, [&] { return r.finished() == 2; }));
  for (mcpgw_request id : {slow1, slow2}) {
    CHECK(r.by_id[id].status == MCPGW_UNAVAILABLE);
    CHECK(r.by_id[id].text.find("lost the connection") != std::string::npos);
  }
  // Down: a new request fails as unavailable, reported through process.
  const mcpgw_request down = StartCall(c, "alpha", nullptr, &r);
  REQUIRE(Drive(c, [&] { return r.has(down); }));
  CHECK(r.by_id[down].status == MCPGW_UNAVAILABLE);
  CHECK(r.by_id[down].text.find("mcpgwd is not running") != std::string::npos);

  d.Start();
  const mcpgw_request up = StartCall(c, "alpha", "{}", &r);
  REQUIRE(Drive(c, [&] { return r.has(up); }));
  CHECK(r.by_id[up].status == MCPGW_OK);
  CHECK(mcpgw_fd(c, nullptr) == fd);  // the host registered it once
  mcpgw_close(c);
}

TEST_CASE("libmcpgw poll: a restart while idle is invisible to the next request", "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  Results r;
  const mcpgw_request first = StartCall(c, "alpha", nullptr, &r);
  REQUIRE(Drive(c, [&] { return r.has(first); }));
  d.Stop();
  d.Start();
  // Whether the host noticed the old connection end or not, the request the
  // old daemon never saw goes to the new one.
  const mcpgw_request next = StartCall(c, "alpha", nullptr, &r);
  REQUIRE(Drive(c, [&] { return r.has(next); }));
  CHECK(r.by_id[next].status == MCPGW_OK);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw poll: without a daemon the failure comes through process, with a way out",
          "[client]") {
  TempDir dir;
  const std::string path = dir.path() + "/none.sock";
  mcpgw_client* c = mcpgw_open(path.c_str());
  const int fd = mcpgw_fd(c, nullptr);
  Results r;
  const mcpgw_request id = mcpgw_start_get_dynamic_tools(c, nullptr, nullptr, Record, &r);
  REQUIRE(id != 0);
  CHECK_FALSE(r.has(id));
  CHECK(mcpgw_timeout(c) == 0);
  pollfd p{fd, POLLIN, 0};
  CHECK(poll(&p, 1, 1000) == 1);  // the host's loop wakes up for it
  CHECK(mcpgw_process(c) == 0);
  REQUIRE(r.has(id));
  CHECK(r.by_id[id].status == MCPGW_UNAVAILABLE);
  CHECK(r.by_id[id].text.find(path) != std::string::npos);
  CHECK(r.by_id[id].text.find("start it with") != std::string::npos);
  CHECK(poll(&p, 1, 0) == 0);  // and then it is quiet again

  char* error = nullptr;
  CHECK(mcpgw_connect(c, &error) == MCPGW_UNAVAILABLE);
  REQUIRE(error != nullptr);
  CHECK(std::string(error).find(path) != std::string::npos);
  mcpgw_free(error);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw poll: a deadline ends a request as transport and cancels it at the daemon",
          "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  mcpgw_set_timeout_ms(c, 150);
  Results r;
  const mcpgw_request id = StartCall(c, "slow", nullptr, &r);
  const long timeout = mcpgw_timeout(c);
  CHECK(timeout > 0);
  CHECK(timeout <= 150);
  REQUIRE(Drive(c, [&] { return r.has(id); }));
  CHECK(r.by_id[id].status == MCPGW_TRANSPORT);
  CHECK(r.by_id[id].text == "timed out waiting for mcpgwd after 150 ms");
  REQUIRE(d.handler.WaitCancels(1));
  CHECK(mcpgw_timeout(c) == -1);
  mcpgw_close(c);
}

TEST_CASE("libmcpgw poll: bad arguments are refused through the callback, nothing is sent",
          "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  Results r;
  const mcpgw_request bad = StartCall(c, "alpha", "{\"a\":", &r);
  const mcpgw_request array = StartCall(c, "alpha", "[1]", &r);
  REQUIRE(Drive(c, [&] { return r.finished() == 2; }));
  CHECK(r.by_id[bad].status == MCPGW_INVALID_REQUEST);
  CHECK(r.by_id[bad].text.find("not valid JSON") != std::string::npos);
  CHECK(r.by_id[array].status == MCPGW_INVALID_REQUEST);
  CHECK(r.by_id[array].text == "arguments must be a JSON object");
  CHECK(d.handler.requests().empty());
  mcpgw_close(c);
}

struct Chain {
  mcpgw_client* client;
  Results results;
  mcpgw_request second = 0;
};

void StartSecond(void* user_data, mcpgw_request id, mcpgw_status status, const char* text,
                 size_t len) {
  auto* chain = static_cast<Chain*>(user_data);
  Record(&chain->results, id, status, text, len);
  chain->second = mcpgw_start_status(chain->client, Record, &chain->results);
}

TEST_CASE("libmcpgw poll: a callback may start the next request", "[client]") {
  Daemon d;
  Chain chain{mcpgw_open(d.path.c_str()), {}, 0};
  mcpgw_start_get_dynamic_tools(chain.client, nullptr, nullptr, StartSecond, &chain);
  REQUIRE(Drive(chain.client, [&] { return chain.results.finished() == 2; }));
  CHECK(chain.results.by_id[chain.second].status == MCPGW_OK);
  mcpgw_close(chain.client);
}

TEST_CASE("libmcpgw: blocking calls in threads and pollable requests share one handle",
          "[client]") {
  Daemon d;
  mcpgw_client* c = mcpgw_open(d.path.c_str());
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string args =
            "{\"t\":" + std::to_string(t) + ",\"i\":" + std::to_string(i) + "}";
        char* out = nullptr;
        if (mcpgw_call_dynamic_tool(c, "alpha", "t", args.c_str(), nullptr, &out) == MCPGW_OK &&
            std::string(out).find(args) != std::string::npos) {
          ++good;
        }
        mcpgw_free(out);
      }
    });
  }
  Results r;
  for (int i = 0; i < 200; ++i) StartCall(c, "alpha", "{\"poll\":1}", &r);
  REQUIRE(Drive(c, [&] { return r.finished() == 200; }));
  for (auto& t : threads) t.join();
  CHECK(good == 200);
  for (const auto& [id, done] : r.by_id) CHECK(done.status == MCPGW_OK);
  mcpgw_close(c);
}

TEST_CASE("mcpgw.hpp: the pollable interface hands results to callables", "[client]") {
  Daemon d;
  Client client(d.path);
  std::vector<Result> results;
  auto keep = [&](const Result& r) { results.push_back(r); };
  CHECK(client.StartGetDynamicTools("alpha", std::nullopt, keep) != 0);
  CHECK(client.StartCallDynamicTool("err_denied", "x", "", keep) != 0);
  const mcpgw_request slow = client.StartCallDynamicTool("slow", "x", "{}", keep);
  CHECK(client.Cancel(slow));
  const int fd = client.fd();
  REQUIRE(fd >= 0);
  for (int i = 0; i < 100 && results.size() < 3; ++i) {
    pollfd p{fd, POLLIN, 0};
    poll(&p, 1, 100);
    client.Process();
  }
  REQUIRE(results.size() == 3);
  int ok = 0, denied = 0, cancelled = 0;
  for (const Result& r : results) {
    ok += r.ok();
    denied += r.status == MCPGW_DENIED;
    cancelled += r.status == MCPGW_CANCELLED;
  }
  CHECK(ok == 1);
  CHECK(denied == 1);
  CHECK(cancelled == 1);
}

}  // namespace
}  // namespace mcpgw
