// curl's multi handle on a libuv loop (daemon/net/curl_loop.h), driven the
// way HttpClient drives it but with bare easy handles: transfers run on the
// loop's events alone, a connection idle in curl's cache keeps one watch
// (parked, not dropped) and serves the next transfer, and nothing is left on
// the loop once the CurlLoop is gone.
#include "daemon/net/curl_loop.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/daemon/testing/http_test_server.h"
#include "tests/daemon/testing/loop_helpers.h"

namespace mcpgw::http {
namespace {

using testing::FinishLoop;
using testing::HttpTestServer;
using testing::RunUntil;

// The owner's side: runs curl and collects the transfers it finished.
struct Driver {
  CURLM* multi = nullptr;
  std::vector<CURLcode> done;
  int actions = 0;

  static void Act(void* owner, curl_socket_t fd, int flags) {
    auto* self = static_cast<Driver*>(owner);
    self->actions++;
    int running = 0;
    curl_multi_socket_action(self->multi, fd, flags, &running);
    int pending = 0;
    while (CURLMsg* msg = curl_multi_info_read(self->multi, &pending)) {
      if (msg->msg == CURLMSG_DONE) self->done.push_back(msg->data.result);
    }
  }
};

size_t Discard(char*, size_t size, size_t count, void*) { return size * count; }

// One GET of `url` through `loop`; the handle is out of the multi handle
// when it returns.
CURLcode Get(uv_loop_t* uv, CurlLoop& loop, Driver& driver, const std::string& url) {
  CURL* easy = curl_easy_init();
  REQUIRE(easy);
  REQUIRE(loop.Wire(easy) == CURLE_OK);
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Discard);
  const size_t before = driver.done.size();
  REQUIRE(curl_multi_add_handle(loop.multi(), easy) == CURLM_OK);
  const bool finished = RunUntil(uv, [&] { return driver.done.size() > before; });
  curl_multi_remove_handle(loop.multi(), easy);
  curl_easy_cleanup(easy);
  REQUIRE(finished);
  return driver.done.back();
}

TEST_CASE("curl loop: an idle connection stays watched and serves the next transfer",
          "[curl_loop]") {
  HttpTestServer server;
  uv_loop_t uv;
  uv_loop_init(&uv);
  {
    Driver driver;
    CurlLoop loop(&uv, &Driver::Act, &driver);
    driver.multi = loop.multi();
    // By name too: a name that also resolves to ::1 makes curl try a
    // connection the server refuses, which must not leave a watch behind.
    const std::string host = GENERATE(std::string("127.0.0.1"), std::string("localhost"));
    CAPTURE(host);
    const std::string url = "http://" + host + ":" + std::to_string(server.port()) + "/mcp";
    CHECK(Get(&uv, loop, driver, url) == CURLE_OK);
    CHECK(driver.actions > 0);
    CHECK(loop.watches() == 1);  // the connection, parked in curl's cache
    CHECK(Get(&uv, loop, driver, url) == CURLE_OK);
    CHECK(server.accepted() == 1);  // the same connection
    CHECK(loop.watches() == 1);
  }
  // Gone: curl closed its connection, and every handle on the loop closes.
  CHECK(FinishLoop(&uv) == 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (server.ended() < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(server.ended() == 1);
}

TEST_CASE("curl loop: a refused connection fails its transfer and leaves no watch", "[curl_loop]") {
  uv_loop_t uv;
  uv_loop_init(&uv);
  {
    Driver driver;
    CurlLoop loop(&uv, &Driver::Act, &driver);
    driver.multi = loop.multi();
    const std::string url = "http://127.0.0.1:" + std::to_string(testing::ClosedPort()) + "/";
    CHECK(Get(&uv, loop, driver, url) == CURLE_COULDNT_CONNECT);
    CHECK(loop.watches() == 0);
  }
  CHECK(FinishLoop(&uv) == 0);
}

}  // namespace
}  // namespace mcpgw::http
