// CallWindow: one server's calls over the last minute, for the "minute"
// member of its status row (what `mcpgw top` shows): a ring of 6 slots of
// 10 s, each holding how many calls finished in its 10 s, a histogram of
// their latencies and the requests that ended in error, by kind. No call is
// kept: the size is fixed (under 2 KB), recording a call is a few additions,
// and reading the minute looks at the slots' counts (216 bytes side by side),
// and at the histograms only of the slots that hold calls, between the
// first and the last bucket they use. The answer is kept until a request is
// recorded or the 10 s period turns, so a status finds the minute of a
// server that had no request since the last one without reading its slots.
//
// The latency buckets are log-scale, 3 to a doubling: bucket i holds the
// latencies in (b(i-1), b(i)] with b(i) = 0.05 ms × 2^(i/3), from ≤ 0.05 ms
// (bucket 0) up to b(71) ≈ 11 min; a last bucket holds what took longer. A
// percentile is interpolated inside its bucket (see Percentile below), so it
// is off by less than a bucket's width (a factor of 2^(1/3), 26%) and
// usually by much less.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/clock.h"
#include "daemon/gateway/metrics.h"

namespace mcpgw {

class CallWindow {
 public:
  static constexpr size_t kSlots = 6;
  static constexpr std::chrono::seconds kSlotLength{10};
  static constexpr int kPerDoubling = 3;
  static constexpr double kFirstBoundMs = 0.05;
  static constexpr size_t kBoundedBuckets = 72;            // b(0) .. b(71)
  static constexpr size_t kBuckets = kBoundedBuckets + 1;  // and the one past b(71)
  // Every way a request ends but ok, in CallEnd's order from kBackend.
  static constexpr size_t kErrorKinds = kCallEnds - 1;

  // A call that reached its server (ok, backend or transport) took `ms`.
  void AddCall(TimePoint now, double ms);
  // A request naming the server ended as `end`; ok is not counted.
  void AddEnd(TimePoint now, CallEnd end);

  // The slots younger than 60 s: the one `now` is in and the 5 before it.
  struct Minute {
    uint64_t calls = 0;                          // calls that reached the server and finished
    std::optional<double> p50_ms, p99_ms;        // nullopt without calls
    std::array<uint64_t, kErrorKinds> errors{};  // [end - 1]: backend, transport, ...
  };
  Minute Read(TimePoint now) const;

  // The bucket `ms` falls in, and a bucket's upper bound b(i) in ms.
  static size_t BucketOf(double ms);
  static double UpperBoundMs(size_t bucket);
  // The q-quantile (0 < q ≤ 1) of `total` latencies counted in `buckets`
  // (none below `first`): the nearest-rank call's bucket, and inside it the
  // calls taken as spread evenly on the log scale, each at the middle of its
  // share. A quantile past b(71) is given as b(71).
  static double Percentile(const std::array<uint64_t, kBuckets>& buckets, uint64_t total, double q,
                           size_t first = 0);

 private:
  struct Slot {
    uint32_t period = 0;  // which 10 s of the monotonic clock it counts
    uint32_t calls = 0;
    std::array<uint32_t, kErrorKinds> errors{};
    uint8_t first = kBuckets, last = 0;  // the buckets its calls span, when it has calls
  };
  static uint32_t PeriodOf(TimePoint now);
  // The slot of `now`'s 10 s, emptied first if it counted older ones; and
  // what Read last answered forgotten.
  size_t Current(TimePoint now);
  // Works the minute of `period` out from the slots, into last_.
  void Compute(uint32_t period) const;

  std::array<Slot, kSlots> slots_{};
  std::array<std::array<uint32_t, kBuckets>, kSlots> buckets_{};  // each slot's histogram
  // Read's last answer, for `period` (compact: the whole stays under 2 KB).
  struct Last {
    uint32_t period = 0;
    bool valid = false;
    uint32_t calls = 0;
    float p50_ms = 0, p99_ms = 0;
    std::array<uint32_t, kErrorKinds> errors{};
  };
  mutable Last last_;
};

static_assert(sizeof(CallWindow) <= 2048, "a server's minute stays small");

}  // namespace mcpgw
