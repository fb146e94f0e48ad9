// The budget per origin (daemon/net/origin_budget.h) on its own: places per
// origin, the queue behind them first in first out, what does not count,
// the gauge of waiting requests, and how urls are told apart. HttpClient's
// own tests (http_client_test.cc) check the same against a real server.
#include "daemon/net/origin_budget.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "daemon/net/transfer.h"

namespace mcpgw::http {
namespace {

std::unique_ptr<Transfer> To(const std::string& url, std::atomic<uint64_t>* gauge = nullptr) {
  HttpRequest r;
  r.url = url;
  r.queued_gauge = gauge;
  return std::make_unique<Transfer>(nullptr, 0, std::move(r));
}

TEST_CASE("budget: places per origin, then a queue, first in first out", "[budget]") {
  OriginBudget budget(2);
  std::atomic<uint64_t> gauge{0};
  auto a = To("http://one.example/mcp", &gauge);
  auto b = To("http://one.example/mcp", &gauge);
  auto c = To("http://one.example/other", &gauge);
  auto d = To("http://ONE.example/mcp?x=1", &gauge);
  auto other = To("http://two.example/mcp", &gauge);
  CHECK(budget.Admit(*a));
  CHECK(budget.Admit(*b));
  CHECK_FALSE(budget.Admit(*c));  // the origin's two places are taken
  CHECK_FALSE(budget.Admit(*d));  // the same origin written otherwise
  CHECK(budget.Admit(*other));    // another origin has places of its own
  CHECK(budget.waiting() == 2);
  CHECK(gauge.load() == 2);
  CHECK(budget.origins() == 2);

  std::vector<Transfer*> promoted;
  budget.GiveBack(*a, promoted);
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0] == c.get());  // the oldest waiting
  CHECK(c->origin != nullptr);    // it holds the place now
  CHECK(a->origin == nullptr);
  CHECK(budget.waiting() == 1);
  CHECK(gauge.load() == 1);

  promoted.clear();
  budget.GiveBack(*b, promoted);
  budget.GiveBack(*other, promoted);
  CHECK(promoted == std::vector<Transfer*>{d.get()});
  CHECK(budget.waiting() == 0);
  CHECK(gauge.load() == 0);
  CHECK(budget.origins() == 1);  // two.example has nothing left: forgotten

  promoted.clear();
  budget.GiveBack(*c, promoted);
  budget.GiveBack(*d, promoted);
  CHECK(promoted.empty());
  CHECK(budget.origins() == 0);
}

TEST_CASE("budget: a newcomer waits behind those already waiting", "[budget]") {
  OriginBudget budget(1);
  auto a = To("https://h.example/");
  auto b = To("https://h.example/");
  auto c = To("https://h.example/");
  CHECK(budget.Admit(*a));
  CHECK_FALSE(budget.Admit(*b));
  std::vector<Transfer*> promoted;
  budget.GiveBack(*a, promoted);  // b takes the place
  CHECK(promoted == std::vector<Transfer*>{b.get()});
  CHECK_FALSE(budget.Admit(*c));
  CHECK(budget.waiting() == 1);
}

TEST_CASE("budget: a cancelled request leaves the queue without a place", "[budget]") {
  OriginBudget budget(1);
  std::atomic<uint64_t> gauge{0};
  auto a = To("http://h.example/", &gauge);
  auto b = To("http://h.example/", &gauge);
  auto c = To("http://h.example/", &gauge);
  CHECK(budget.Admit(*a));
  CHECK_FALSE(budget.Admit(*b));
  CHECK_FALSE(budget.Admit(*c));
  budget.Cancel(*b);
  CHECK(b->origin == nullptr);
  CHECK(budget.waiting() == 1);
  CHECK(gauge.load() == 1);
  std::vector<Transfer*> promoted;
  budget.GiveBack(*a, promoted);
  CHECK(promoted == std::vector<Transfer*>{c.get()});  // b is gone
  budget.GiveBack(*c, promoted);
  CHECK(budget.origins() == 0);
  CHECK(gauge.load() == 0);
}

TEST_CASE("budget: long-lived requests and a budget of 0 count against nothing", "[budget]") {
  OriginBudget budget(1);
  auto a = To("http://h.example/");
  auto stream = To("http://h.example/");
  stream->request.long_lived = true;
  CHECK(budget.Admit(*a));
  CHECK(budget.Admit(*stream));  // the place is taken, and it goes anyway
  CHECK(stream->origin == nullptr);
  CHECK(budget.waiting() == 0);

  OriginBudget unbounded(0);
  std::vector<std::unique_ptr<Transfer>> many;
  for (int i = 0; i < 100; i++) {
    many.push_back(To("http://h.example/"));
    CHECK(unbounded.Admit(*many.back()));
    CHECK(many.back()->origin == nullptr);
  }
  CHECK(unbounded.origins() == 0);
}

TEST_CASE("budget: an origin is its scheme, host and port as written, in lower case", "[budget]") {
  CHECK(OriginBudget::OriginOf("http://Example.COM:8080/mcp?q#f") == "http://example.com:8080");
  CHECK(OriginBudget::OriginOf("https://user:pw@host/path") == "https://host");
  CHECK(OriginBudget::OriginOf("https://host?x=@y") == "https://host");
  CHECK(OriginBudget::OriginOf("http://[::1]:9/") == "http://[::1]:9");
  CHECK(OriginBudget::OriginOf("not a url") == "not a url");
  // Two spellings of one origin are two budgets (no port defaulting).
  CHECK(OriginBudget::OriginOf("https://host:443/") != OriginBudget::OriginOf("https://host/"));
}

}  // namespace
}  // namespace mcpgw::http
