// A server's last minute (daemon/gateway/call_window.h): the slots that
// count, the latency buckets and the percentiles read from them.
#include "daemon/gateway/call_window.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace mcpgw {
namespace {

using namespace std::chrono_literals;

constexpr TimePoint kStart = TimePoint{} + 1h;
// One bucket's width: a percentile is within this factor of the truth.
const double kWidth = std::exp2(1.0 / CallWindow::kPerDoubling);

TEST_CASE("call window: a fixed size, well under 2 KB", "[gateway][minute]") {
  CHECK(sizeof(CallWindow) <= 2048);
  CHECK(CallWindow::UpperBoundMs(0) == Approx(0.05));
  // The last bounded bucket reaches past 10 minutes.
  CHECK(CallWindow::UpperBoundMs(CallWindow::kBoundedBuckets - 1) > 10 * 60 * 1000.0);
}

TEST_CASE("call window: a latency falls in the bucket whose bounds hold it", "[gateway][minute]") {
  CHECK(CallWindow::BucketOf(0) == 0);
  CHECK(CallWindow::BucketOf(0.01) == 0);
  CHECK(CallWindow::BucketOf(0.05) == 0);  // a bound is inclusive
  CHECK(CallWindow::BucketOf(0.0501) == 1);
  CHECK(CallWindow::BucketOf(std::nan("")) == 0);
  CHECK(CallWindow::BucketOf(1e9) == CallWindow::kBoundedBuckets);  // past every bound
  for (size_t b = 0; b < CallWindow::kBoundedBuckets; ++b) {
    INFO(b);
    const double hi = CallWindow::UpperBoundMs(b);
    CHECK(CallWindow::BucketOf(hi) == b);
    CHECK(CallWindow::BucketOf(hi * 1.0001) == b + 1);
  }
}

TEST_CASE("call window: the minute is the slots younger than 60 s", "[gateway][minute]") {
  CallWindow w;
  CHECK(w.Read(kStart).calls == 0);
  CHECK_FALSE(w.Read(kStart).p50_ms);
  CHECK_FALSE(w.Read(kStart).p99_ms);

  w.AddCall(kStart, 5);
  w.AddEnd(kStart, CallEnd::kTransport);
  w.AddCall(kStart + 40s, 20);
  w.AddCall(kStart + 40s, 20);
  w.AddEnd(kStart + 40s, CallEnd::kDenied);
  w.AddEnd(kStart + 40s, CallEnd::kOk);  // not an error: not counted
  CallWindow::Minute m = w.Read(kStart + 40s);
  CHECK(m.calls == 3);
  CHECK(m.errors[static_cast<size_t>(CallEnd::kTransport) - 1] == 1);
  CHECK(m.errors[static_cast<size_t>(CallEnd::kDenied) - 1] == 1);

  // 70 s after the first call it is gone; the others, 30 s old, count.
  m = w.Read(kStart + 70s);
  CHECK(m.calls == 2);
  CHECK(m.errors[static_cast<size_t>(CallEnd::kTransport) - 1] == 0);
  CHECK(m.errors[static_cast<size_t>(CallEnd::kDenied) - 1] == 1);
  REQUIRE(m.p50_ms);
  CHECK(*m.p50_ms > 20 / kWidth);
  CHECK(*m.p50_ms < 20 * kWidth);

  // A slot used again after a minute starts empty: the ring wraps.
  w.AddCall(kStart + 60s, 1000);
  m = w.Read(kStart + 60s);
  CHECK(m.calls == 3);
  CHECK(w.Read(kStart + 105s).calls == 1);
  CHECK(w.Read(kStart + 125s).calls == 0);
  CHECK_FALSE(w.Read(kStart + 125s).p99_ms);
  // Long idle: every slot is old, whatever its place in the ring.
  CHECK(w.Read(kStart + 24h).calls == 0);
}

TEST_CASE("call window: a request recorded after a read shows in the next read",
          "[gateway][minute]") {
  CallWindow w;
  w.AddCall(kStart, 10);
  CallWindow::Minute m = w.Read(kStart);
  CHECK(m.calls == 1);
  CHECK(w.Read(kStart + 1s).p99_ms == m.p99_ms);  // the same 10 s, nothing new: the same answer
  w.AddCall(kStart + 1s, 1000);
  m = w.Read(kStart + 1s);
  CHECK(m.calls == 2);
  CHECK(*m.p99_ms > 1000 / kWidth);
  w.AddEnd(kStart + 1s, CallEnd::kNotReady);
  CHECK(w.Read(kStart + 1s).errors[static_cast<size_t>(CallEnd::kNotReady) - 1] == 1);
  // The period turns with no request in between: the old slot leaves the minute.
  CHECK(w.Read(kStart + 55s).calls == 2);
  CHECK(w.Read(kStart + 60s).calls == 0);
}

TEST_CASE("call window: percentiles from known latencies, within a bucket's width",
          "[gateway][minute]") {
  CallWindow w;
  // In two slots, the slow calls first: the buckets both slots span count.
  w.AddCall(kStart, 1000);
  w.AddCall(kStart, 1000);
  for (int i = 0; i < 98; ++i) w.AddCall(kStart + 10s, 10);
  const CallWindow::Minute m = w.Read(kStart + 12s);
  CHECK(m.calls == 100);
  REQUIRE(m.p50_ms);
  REQUIRE(m.p99_ms);
  CHECK(*m.p50_ms > 10 / kWidth);
  CHECK(*m.p50_ms < 10 * kWidth);
  CHECK(*m.p99_ms > 1000 / kWidth);
  CHECK(*m.p99_ms < 1000 * kWidth);

  // One call: its bucket's middle, within half a width of it.
  CallWindow one;
  one.AddCall(kStart, 250);
  const double p = *one.Read(kStart).p50_ms;
  CHECK(p == *one.Read(kStart).p99_ms);
  CHECK(p > 250 / kWidth);
  CHECK(p < 250 * std::sqrt(kWidth));

  // Past every bound: the last bound, a floor.
  CallWindow slow;
  slow.AddCall(kStart, 3.6e6);
  CHECK(*slow.Read(kStart).p50_ms ==
        Approx(CallWindow::UpperBoundMs(CallWindow::kBoundedBuckets - 1)));
}

TEST_CASE("call window: a percentile interpolates inside its bucket", "[gateway][minute]") {
  std::array<uint64_t, CallWindow::kBuckets> buckets{};
  const size_t b = CallWindow::BucketOf(100);
  buckets[b] = 100;
  const double lo = CallWindow::UpperBoundMs(b) / kWidth, hi = CallWindow::UpperBoundMs(b);
  const double p50 = CallWindow::Percentile(buckets, 100, 0.5);
  const double p99 = CallWindow::Percentile(buckets, 100, 0.99);
  CHECK(p50 > lo);
  CHECK(p50 < p99);
  CHECK(p99 < hi);
  // The 50th of 100 calls spread evenly (on the log scale) over the bucket.
  CHECK(p50 == Approx(lo * std::pow(hi / lo, 49.5 / 100)));
}

}  // namespace
}  // namespace mcpgw
