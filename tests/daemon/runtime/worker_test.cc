#include "daemon/runtime/worker.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "tests/daemon/testing/http_test_server.h"

namespace mcpgw {
namespace {

TEST_CASE("Posted tasks run on the worker thread, in order", "[worker]") {
  Worker w("test-worker");
  w.Start();
  std::vector<int> order;  // touched only on the worker thread until Stop()
  std::atomic<int> off_thread{0};
  for (int i = 0; i < 1000; i++) {
    w.Post([&, i] {
      if (!w.OnWorkerThread()) off_thread++;
      order.push_back(i);
    });
  }
  CHECK_FALSE(w.OnWorkerThread());
  w.Stop();
  REQUIRE(order.size() == 1000);
  for (int i = 0; i < 1000; i++) REQUIRE(order[i] == i);
  CHECK(off_thread == 0);
}

TEST_CASE("Several threads post concurrently, each one's tasks keep their order", "[worker]") {
  Worker w("test-worker");
  w.Start();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 500;
  std::vector<std::vector<int>> seen(kThreads);  // worker thread only
  std::vector<std::thread> posters;
  for (int t = 0; t < kThreads; t++) {
    posters.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; i++) w.Post([&, t, i] { seen[t].push_back(i); });
    });
  }
  for (auto& p : posters) p.join();
  w.Stop();
  for (int t = 0; t < kThreads; t++) {
    REQUIRE(seen[t].size() == kPerThread);
    for (int i = 0; i < kPerThread; i++) REQUIRE(seen[t][i] == i);
  }
}

// A loop posting to another loop defers its wake-up to its own next turn:
// every task it posts there in one turn shares one wake-up, and none waits
// for the posting loop to have something else to do.
TEST_CASE("Two workers post to each other back and forth without a lost wake-up", "[worker]") {
  Worker a("test-a");
  Worker b("test-b");
  a.Start();
  b.Start();
  constexpr int kRounds = 2000;
  std::promise<int> done;
  std::atomic<int> off_thread{0};
  // Each hop is the only thing its loop does: a wake-up left waiting for
  // more work would stall the exchange (and the test, bounded below).
  std::function<void(int)> hop = [&](int n) {
    Worker& here = n % 2 == 0 ? a : b;
    Worker& there = n % 2 == 0 ? b : a;
    if (!here.OnWorkerThread()) off_thread++;
    if (n == kRounds) {
      done.set_value(n);
      return;
    }
    there.Post([&, n] { hop(n + 1); });
  };
  a.Post([&] { hop(0); });
  auto result = done.get_future();
  REQUIRE(result.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(result.get() == kRounds);
  CHECK(off_thread == 0);
  a.Stop();
  b.Stop();
}

TEST_CASE("What one loop posts to another in one turn runs there after the turn, in order",
          "[worker]") {
  Worker a("test-a");
  Worker b("test-b");
  a.Start();
  b.Start();
  // b has taken the wake-up of its start and waits.
  std::promise<void> idle;
  b.Post([&] { idle.set_value(); });
  REQUIRE(idle.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  std::vector<int> order;  // b's thread only
  std::atomic<bool> turn_over{false};
  std::atomic<int> early{0};
  std::promise<void> done;
  a.Post([&] {
    for (int i = 0; i < 500; i++) {
      b.Post([&, i] {
        if (!turn_over) early++;
        order.push_back(i);
        if (i == 499) done.set_value();
      });
    }
    // a stays busy after posting: the one wake-up for its turn is written
    // when the turn ends, so b starts on none of the 500 before then.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    turn_over = true;
  });
  REQUIRE(done.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  b.Stop();
  a.Stop();
  REQUIRE(order.size() == 500);
  for (int i = 0; i < 500; i++) REQUIRE(order[i] == i);
  CHECK(early == 0);
}

TEST_CASE("Stop runs the tasks already posted, then drops later posts", "[worker]") {
  Worker w("test-worker");
  std::atomic<int> ran{0};
  w.Post([&] { ran++; });  // before Start: runs once started
  w.Start();
  w.Post([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ran++;
  });
  for (int i = 0; i < 100; i++) w.Post([&] { ran++; });
  w.Stop();
  CHECK(ran == 102);
  w.Post([&] { ran++; });
  w.Stop();  // a second Stop is harmless
  CHECK(ran == 102);
}

TEST_CASE("Stop closes handles left open on the loop", "[worker]") {
  auto timer = std::make_unique<uv_timer_t>();
  {
    Worker w("test-worker");
    w.Start();
    std::promise<void> armed;
    w.Post([&] {
      uv_timer_init(w.loop(), timer.get());
      uv_timer_start(
          timer.get(), [](uv_timer_t*) {}, 10, 10);  // keeps the loop alive forever
      armed.set_value();
    });
    armed.get_future().wait();
    w.Stop();  // returns only once the loop has ended
  }
  CHECK(uv_is_closing(reinterpret_cast<uv_handle_t*>(timer.get())));
}

TEST_CASE("The destructor stops a running worker, a never-started one is inert", "[worker]") {
  std::atomic<bool> ran{false};
  {
    Worker w("test-worker");
    w.Start();
    w.Post([&] { ran = true; });
  }
  CHECK(ran);
  std::atomic<bool> never{false};
  {
    Worker idle("idle");
    idle.Post([&] { never = true; });
  }
  CHECK_FALSE(never);
}

TEST_CASE("A task may stop its own worker", "[worker]") {
  std::atomic<int> ran{0};
  {
    Worker w("test-worker");
    w.Start();
    std::promise<void> stopped;
    w.Post([&] { ran++; });
    w.Post([&] {
      w.Stop();
      stopped.set_value();
    });
    stopped.get_future().wait();
    w.Post([&] { ran += 100; });  // after the stop: dropped
  }
  CHECK(ran == 1);
}

class PromiseSink : public HttpSink {
 public:
  std::promise<std::pair<int, std::string>> done;
  int status = 0;
  std::string body;
  void OnHttpHead(uint64_t, const ResponseHead& head) override { status = head.status; }
  void OnHttpData(uint64_t, std::string_view bytes) override { body += bytes; }
  void OnHttpDone(uint64_t, const TransferResult& r) override {
    done.set_value({status, r.ok ? body : r.error});
  }
};

TEST_CASE("The worker's HttpClient runs transfers on the worker thread", "[worker]") {
  testing::HttpTestServer server;
  Worker w("test-worker");
  w.Start();
  PromiseSink sink;
  HttpRequest req;
  req.method = HttpMethod::kGet;
  req.url = server.Url();
  w.Post([&] { w.http().Start(&sink, 1, req); });
  auto future = sink.done.get_future();
  REQUIRE(future.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  auto [status, body] = future.get();
  CHECK(status == 200);
  CHECK(body == "ok");
  w.Stop();
}

TEST_CASE("Stop with a transfer in flight ends cleanly and silently", "[worker]") {
  testing::HttpTestServer server([](const testing::TestRequest&, testing::TestConnection& c) {
    c.Write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n");
    c.Sleep(2000);
  });
  Worker w("test-worker");
  w.Start();
  PromiseSink sink;
  HttpRequest req;
  req.method = HttpMethod::kGet;
  req.url = server.Url();
  w.Post([&] { w.http().Start(&sink, 1, req); });
  for (int i = 0; i < 200 && server.request_count() == 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(server.request_count() == 1);
  auto started = std::chrono::steady_clock::now();
  w.Stop();
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
  CHECK(sink.done.get_future().wait_for(std::chrono::seconds(0)) == std::future_status::timeout);
}

}  // namespace
}  // namespace mcpgw
