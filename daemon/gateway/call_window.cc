#include "daemon/gateway/call_window.h"

#include <algorithm>
#include <cmath>

namespace mcpgw {

uint32_t CallWindow::PeriodOf(TimePoint now) {
  return static_cast<uint32_t>(now.time_since_epoch() / kSlotLength);
}

// A slot last used more than a minute ago is emptied for the period it now
// counts.
size_t CallWindow::Current(TimePoint now) {
  last_.valid = false;
  const uint32_t period = PeriodOf(now);
  const size_t i = period % kSlots;
  if (slots_[i].period != period) {
    slots_[i] = Slot{};
    slots_[i].period = period;
    buckets_[i] = {};
  }
  return i;
}

size_t CallWindow::BucketOf(double ms) {
  if (!(ms > kFirstBoundMs)) return 0;  // NaN too
  const double steps = std::ceil(kPerDoubling * std::log2(ms / kFirstBoundMs));
  if (steps >= static_cast<double>(kBoundedBuckets)) return kBoundedBuckets;
  size_t bucket = static_cast<size_t>(steps);
  // log2 may round a latency just past a bound down onto it, or one on a
  // bound up past it: the bounds decide.
  if (bucket > 0 && ms <= UpperBoundMs(bucket - 1)) --bucket;
  if (bucket < kBoundedBuckets && ms > UpperBoundMs(bucket)) ++bucket;
  return bucket;
}

double CallWindow::UpperBoundMs(size_t bucket) {
  return kFirstBoundMs * std::exp2(static_cast<double>(bucket) / kPerDoubling);
}

void CallWindow::AddCall(TimePoint now, double ms) {
  const size_t i = Current(now);
  const size_t b = BucketOf(ms);
  Slot& slot = slots_[i];
  slot.calls++;
  slot.first = static_cast<uint8_t>(std::min<size_t>(slot.first, b));
  slot.last = static_cast<uint8_t>(std::max<size_t>(slot.last, b));
  buckets_[i][b]++;
}

void CallWindow::AddEnd(TimePoint now, CallEnd end) {
  if (end == CallEnd::kOk) return;
  slots_[Current(now)].errors[static_cast<size_t>(end) - 1]++;
}

CallWindow::Minute CallWindow::Read(TimePoint now) const {
  const uint32_t period = PeriodOf(now);
  if (!last_.valid || last_.period != period) Compute(period);
  Minute minute;
  minute.calls = last_.calls;
  if (last_.calls > 0) {
    minute.p50_ms = last_.p50_ms;
    minute.p99_ms = last_.p99_ms;
  }
  std::copy(last_.errors.begin(), last_.errors.end(), minute.errors.begin());
  return minute;
}

void CallWindow::Compute(uint32_t period) const {
  Minute minute;
  std::array<size_t, kSlots> with_calls{};
  size_t n = 0, first = kBuckets, last = 0;
  for (size_t i = 0; i < kSlots; ++i) {
    const Slot& slot = slots_[i];
    if (slot.period > period || period - slot.period >= kSlots) continue;  // older than a minute
    for (size_t e = 0; e < kErrorKinds; ++e) minute.errors[e] += slot.errors[e];
    if (slot.calls == 0) continue;
    minute.calls += slot.calls;
    first = std::min<size_t>(first, slot.first);
    last = std::max<size_t>(last, slot.last);
    with_calls[n++] = i;
  }
  last_ = Last{};
  last_.period = period;
  last_.valid = true;
  // A minute holds fewer than 2^32 requests of a kind (72 million a second).
  last_.calls = static_cast<uint32_t>(minute.calls);
  for (size_t e = 0; e < kErrorKinds; ++e)
    last_.errors[e] = static_cast<uint32_t>(minute.errors[e]);
  if (minute.calls == 0) return;
  // Only the buckets the calls span are read: a server's latencies mostly
  // sit in a few, a cache line or two of each histogram.
  std::array<uint64_t, kBuckets> buckets;
  for (size_t b = first; b <= last; ++b) buckets[b] = 0;
  for (size_t s = 0; s < n; ++s) {
    const auto& slot = buckets_[with_calls[s]];
    for (size_t b = first; b <= last; ++b) buckets[b] += slot[b];
  }
  last_.p50_ms = static_cast<float>(Percentile(buckets, minute.calls, 0.5, first));
  last_.p99_ms = static_cast<float>(Percentile(buckets, minute.calls, 0.99, first));
}

double CallWindow::Percentile(const std::array<uint64_t, kBuckets>& buckets, uint64_t total,
                              double q, size_t first) {
  // The nearest rank: the first call at or past q of them (1-based).
  const double rank = std::max(1.0, std::ceil(q * static_cast<double>(total)));
  uint64_t before = 0;
  for (size_t b = first; b < kBuckets; ++b) {
    const uint64_t here = buckets[b];
    if (here == 0 || static_cast<double>(before + here) < rank) {
      before += here;
      continue;
    }
    if (b == kBoundedBuckets) return UpperBoundMs(kBoundedBuckets - 1);
    // The bucket spans (b(b-1), b(b)], a factor of 2^(1/3); its calls share
    // it evenly in log terms, and the rank's call sits in the middle of its
    // share.
    const double f = (rank - static_cast<double>(before) - 0.5) / static_cast<double>(here);
    return UpperBoundMs(b) * std::exp2((f - 1) / kPerDoubling);
  }
  return UpperBoundMs(kBoundedBuckets - 1);  // not reached while total counts the buckets
}

}  // namespace mcpgw
