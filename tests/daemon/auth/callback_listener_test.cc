// The loopback callback listener: what the browser gets for each request, and
// that it listens on 127.0.0.1 only while open.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include <uv.h>
#include <catch2/catch.hpp>

#include "daemon/auth/callback_listener.h"

namespace mcpgw::auth {
namespace {

// Sends `request` to 127.0.0.1:port from another thread while the loop runs;
// returns the whole response ("" when the connection failed).
std::string Exchange(uv_loop_t* loop, int port, const std::string& request) {
  std::string response;
  std::atomic<bool> done{false};
  std::thread client([&] {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      send(fd, request.data(), request.size(), MSG_NOSIGNAL);
      char buf[4096];
      ssize_t n;
      while ((n = recv(fd, buf, sizeof buf, 0)) > 0) response.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    done = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done && std::chrono::steady_clock::now() < deadline) {
    uv_run(loop, UV_RUN_NOWAIT);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  client.join();
  return response;
}

struct Loop {
  uv_loop_t loop;
  Loop() { uv_loop_init(&loop); }
  ~Loop() {
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_walk(
        &loop,
        [](uv_handle_t* h, void*) {
          if (!uv_is_closing(h)) uv_close(h, nullptr);
        },
        nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
  }
};

TEST_CASE("the callback's query reaches the handler and the browser gets its page",
          "[auth][listener]") {
  Loop l;
  std::string seen;
  CallbackListener listener(&l.loop);
  const int port = listener
                       .Open(0,
                             [&](const std::string& query) {
                               seen = query;
                               return CallbackListener::Page{200, "done <b>\"x\" & y</b>"};
                             })
                       .value_or(0);
  REQUIRE(port > 0);
  CHECK(RedirectUriFor(port) == "http://127.0.0.1:" + std::to_string(port) + "/callback");
  const std::string r =
      Exchange(&l.loop, port, "GET /callback?code=abc&state=s HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(seen == "code=abc&state=s");
  CHECK(r.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(r.find("Cache-Control: no-store") != std::string::npos);
  CHECK(r.find("done &lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;") != std::string::npos);
}

TEST_CASE("other paths, methods and oversized requests are refused", "[auth][listener]") {
  Loop l;
  int calls = 0;
  CallbackListener listener(&l.loop);
  const int port = listener
                       .Open(0,
                             [&](const std::string&) {
                               ++calls;
                               return CallbackListener::Page{};
                             })
                       .value_or(0);
  REQUIRE(port > 0);
  CHECK(Exchange(&l.loop, port, "GET /favicon.ico HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(Exchange(&l.loop, port, "POST /callback HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 405", 0) == 0);
  CHECK(Exchange(&l.loop, port, "garbage\r\n\r\n").rfind("HTTP/1.1 400", 0) == 0);
  CHECK(Exchange(&l.loop, port, "GET /callback?" + std::string(10000, 'a'))
            .rfind("HTTP/1.1 400", 0) == 0);
  CHECK(calls == 0);
}

TEST_CASE("a handler that closes the listener still answers its request", "[auth][listener]") {
  Loop l;
  CallbackListener listener(&l.loop);
  const int port = listener
                       .Open(0,
                             [&](const std::string&) {
                               listener.Close();
                               return CallbackListener::Page{400, "denied"};
                             })
                       .value_or(0);
  REQUIRE(port > 0);
  const std::string r = Exchange(&l.loop, port, "GET /callback?error=x HTTP/1.1\r\n\r\n");
  CHECK(r.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(r.find("denied") != std::string::npos);
  CHECK_FALSE(listener.open());
  // Closed: nothing listens there any more.
  CHECK(Exchange(&l.loop, port, "GET /callback HTTP/1.1\r\n\r\n").empty());
}

TEST_CASE("the preferred port is used when free, another one otherwise", "[auth][listener]") {
  Loop l;
  auto page = [](const std::string&) { return CallbackListener::Page{}; };
  CallbackListener first(&l.loop), second(&l.loop);
  const int port = first.Open(0, page).value_or(0);
  REQUIRE(port > 0);
  const int other = second.Open(port, page).value_or(0);  // taken: any other port
  CHECK(other > 0);
  CHECK(other != port);
  second.Close();
  CHECK(second.Open(other, page).value_or(0) == other);  // free again: that one
  CHECK(first.Open(0, page).value_or(0) == port);        // already open: the same
}

}  // namespace
}  // namespace mcpgw::auth
