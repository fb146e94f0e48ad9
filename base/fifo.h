// Fifo: a first-in first-out queue on a std::vector, for queues that are
// empty most of their life. An empty Fifo holds no heap memory at all,
// where a libstdc++ std::deque allocates a 512-byte block and its map as
// soon as it is constructed and keeps that block while empty: a record per
// configured server with an idle deque costs over half a kilobyte for
// nothing. Pops move a head index; the storage is given back when the queue
// empties and compacted when the popped part is the larger one, so a pop is
// amortized O(1). Iteration runs from the oldest to the newest item.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace mcpgw::base {

template <typename T>
class Fifo {
 public:
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }

  void push_back(T item) { items_.push_back(std::move(item)); }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  void pop_front() {
    ++head_;
    if (head_ == items_.size()) {
      clear();
    } else if (head_ >= kCompactAfter && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  // Empties the queue and frees its storage.
  void clear() {
    std::vector<T>().swap(items_);
    head_ = 0;
  }

  iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const { return items_.end(); }

 private:
  static constexpr size_t kCompactAfter = 16;

  std::vector<T> items_;
  size_t head_ = 0;  // items_[0, head_) were popped
};

}  // namespace mcpgw::base
