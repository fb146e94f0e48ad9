// The pool of easy handles (daemon/net/easy_pool.h) on its own: which
// handle a request gets, when one is reset or freed, how many are held.
// HttpClient's tests (http_client_test.cc) check what a kept handle sends.
#include "daemon/net/easy_pool.h"

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

namespace mcpgw::http {
namespace {

// A handle as the client leaves it after a transfer: configured under
// `trust`, with a mark of its own in curl (CURLOPT_PRIVATE) that a reset
// clears.
void Use(EasyHandle& h, const std::shared_ptr<const TlsTrust>& trust) {
  h.configured = true;
  h.trust = trust;
  h.tls_watch = std::make_shared<TlsErrorWatch>();
  REQUIRE(curl_easy_setopt(h.easy, CURLOPT_PRIVATE, &h) == CURLE_OK);
  h.head.Feed("HTTP/1.1 401 Unauthorized\r\n");
  h.head.Feed("WWW-Authenticate: Bearer\r\n");
  REQUIRE(h.head.Feed("\r\n"));
}

void* Mark(const EasyHandle& h) {
  char* mark = nullptr;
  curl_easy_getinfo(h.easy, CURLINFO_PRIVATE, &mark);
  return mark;
}

TEST_CASE("pool: a handle given back serves the next request as it was", "[pool]") {
  EasyPool pool;
  auto trust = std::make_shared<const TlsTrust>();
  std::unique_ptr<EasyHandle> h = pool.Take(false, trust);
  REQUIRE(h);
  CHECK(pool.held() == 1);
  CHECK_FALSE(h->configured);
  Use(*h, trust);
  EasyHandle* first = h.get();
  pool.Give(std::move(h), /*keep=*/true, /*reset=*/false);
  CHECK(pool.spare() == 1);
  CHECK(pool.held() == 1);

  std::unique_ptr<EasyHandle> again = pool.Take(false, trust);
  CHECK(again.get() == first);
  CHECK(again->configured);
  CHECK(Mark(*again) == first);         // not reset
  CHECK_FALSE(again->tls_watch);        // what the last connection said is not the next's
  CHECK_FALSE(again->head.complete());  // nor the last response's head
  CHECK(again->head.status() == 0);
  CHECK(again->head.www_authenticate().empty());
  pool.Give(std::move(again), true, false);
}

TEST_CASE("pool: a handle whose use may have left state in libcurl starts over", "[pool]") {
  EasyPool pool;
  auto trust = std::make_shared<const TlsTrust>();
  std::unique_ptr<EasyHandle> h = pool.Take(false, trust);
  Use(*h, trust);
  pool.Give(std::move(h), /*keep=*/true, /*reset=*/true);
  std::unique_ptr<EasyHandle> again = pool.Take(false, nullptr);  // usable under any trust now
  REQUIRE(again);
  CHECK_FALSE(again->configured);
  CHECK_FALSE(again->trust);
  CHECK(Mark(*again) == nullptr);  // curl_easy_reset cleared it
  CHECK(pool.held() == 1);
  pool.Give(std::move(again), true, false);
}

TEST_CASE("pool: a handle made under a replaced trust is freed, not lent", "[pool]") {
  EasyPool pool;
  auto old_trust = std::make_shared<const TlsTrust>();
  auto new_trust = std::make_shared<const TlsTrust>();
  std::unique_ptr<EasyHandle> a = pool.Take(false, old_trust);
  std::unique_ptr<EasyHandle> b = pool.Take(false, old_trust);
  Use(*a, old_trust);
  EasyHandle* unconfigured = b.get();  // never configured: fine under any trust
  pool.Give(std::move(b), true, false);
  pool.Give(std::move(a), true, false);
  CHECK(pool.held() == 2);

  std::unique_ptr<EasyHandle> next = pool.Take(false, new_trust);
  CHECK(next.get() == unconfigured);
  CHECK(pool.held() == 1);  // the old trust's handle is gone
  CHECK(pool.spare() == 0);
  std::unique_ptr<EasyHandle> fresh = pool.Take(false, new_trust);
  CHECK(fresh);
  CHECK(pool.held() == 2);
  pool.Give(std::move(next), true, false);
  pool.Give(std::move(fresh), true, false);
}

TEST_CASE("pool: a long-lived request's handle is its own, and freed after", "[pool]") {
  EasyPool pool;
  std::unique_ptr<EasyHandle> spare = pool.Take(false, nullptr);
  pool.Give(std::move(spare), true, false);
  std::unique_ptr<EasyHandle> stream = pool.Take(/*long_lived=*/true, nullptr);
  CHECK(pool.spare() == 1);  // the spare one was not taken
  CHECK(pool.held() == 2);
  pool.Give(std::move(stream), /*keep=*/false, false);
  CHECK(pool.held() == 1);
  CHECK(pool.spare() == 1);
}

TEST_CASE("pool: at most kSpare handles are kept", "[pool]") {
  EasyPool pool;
  std::vector<std::unique_ptr<EasyHandle>> lent;
  for (size_t i = 0; i < EasyPool::kSpare + 8; i++) lent.push_back(pool.Take(false, nullptr));
  CHECK(pool.held() == EasyPool::kSpare + 8);
  for (auto& h : lent) pool.Give(std::move(h), true, false);
  CHECK(pool.spare() == EasyPool::kSpare);
  CHECK(pool.held() == EasyPool::kSpare);
  pool.Clear();
  CHECK(pool.held() == 0);
}

}  // namespace
}  // namespace mcpgw::http
