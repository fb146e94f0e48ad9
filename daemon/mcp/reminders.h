// Reminders: when the deadlines of a sans-I/O machine fall, earliest first,
// so finding its next wake-up costs no scan of thousands of requests in
// flight. Every time set is added; an entry whose owner is gone, or whose time
// was replaced, is found stale (by the owner's own test) when it reaches the
// top, and dropped. When stale entries pile up the owner is asked for the
// times still set and the heap is rebuilt from them. Passive; one per owner.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "base/clock.h"

namespace mcpgw::mcp {

class Reminders {
 public:
  struct Entry {
    TimePoint at;
    uint8_t what = 0;  // the owner's kind of reminder
    uint64_t id = 0;   // the owner's key
  };

  // Adds `entry`. `live` is how many times the owner has set now: past
  // 64 + 4 × live entries most are stale, and `refill(entries)` appends the
  // ones still set to a fresh heap.
  template <typename Refill>
  void Add(Entry entry, size_t live, Refill&& refill) {
    heap_.push_back(entry);
    std::push_heap(heap_.begin(), heap_.end(), Later);
    if (heap_.size() <= 64 + 4 * live) return;
    heap_.clear();
    refill(heap_);
    std::make_heap(heap_.begin(), heap_.end(), Later);
  }

  // The earliest entry `current(entry)` says is still set; the stale ones
  // before it are dropped.
  template <typename Current>
  std::optional<TimePoint> Next(Current&& current) const {
    while (!heap_.empty() && !current(heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Later);
      heap_.pop_back();
    }
    if (heap_.empty()) return std::nullopt;
    return heap_.front().at;
  }

 private:
  static bool Later(const Entry& a, const Entry& b) { return a.at > b.at; }

  mutable std::vector<Entry> heap_;
};

}  // namespace mcpgw::mcp
