// A std::map's erased nodes, kept for its next insertions. A map that holds
// one entry per call in flight (the conversation's requests, the wire's
// transfers) otherwise frees a node at every call's end and allocates one at
// the next call's start; with dozens in flight those blocks are past the
// allocator's per-thread cache, and each costs it a few hundred
// instructions. The owner of the map owns its KeptNodes beside it and
// inserts and erases through it; entries are made afresh (a default value),
// as the map's own operator[] would make them, and a kept node holds only
// a default value. The value's default constructor must not throw (the
// entries here allocate nothing until filled in; std::chrono's time_point
// keeps the type from saying so with noexcept).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace mcpgw::base {

template <typename Map, size_t kMaxKept = 64>
class KeptNodes {
 public:
  using Key = typename Map::key_type;
  using Value = typename Map::mapped_type;

  // The entry under `key`: the one there, or a new default one, in a kept
  // node when there is one.
  Value& Emplace(Map& map, const Key& key) {
    auto hint = map.lower_bound(key);
    if (hint != map.end() && !map.key_comp()(key, hint->first)) return hint->second;
    if (kept_.empty()) return map.emplace_hint(hint, key, Value{})->second;
    typename Map::node_type node = std::move(kept_.back());
    kept_.pop_back();
    node.key() = key;
    return map.insert(hint, std::move(node))->second;
  }

  // Erases the entry at `it`, keeping its node (up to kMaxKept of them).
  // The value is reset here, not at its reuse: what it held (a request's
  // body, say) is freed now, not kept with the node.
  void Erase(Map& map, typename Map::iterator it) {
    if (kept_.size() >= kMaxKept) {
      map.erase(it);
      return;
    }
    typename Map::node_type node = map.extract(it);
    // What it held goes now (an assignment of a default value would leave
    // a string its heap buffer): destroyed and made again in place.
    Value& value = node.mapped();
    std::destroy_at(&value);
    std::construct_at(&value);
    kept_.push_back(std::move(node));
  }

 private:
  std::vector<typename Map::node_type> kept_;
};

}  // namespace mcpgw::base
