// KeptNodes: a map's erased nodes serve its next insertions, each entry made
// afresh, and a kept node holds nothing of the value it had.
#include "base/kept_nodes.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

namespace mcpgw::base {
namespace {

struct Entry {
  std::string body;
  int tries = 0;
};
using Entries = std::map<int, Entry>;

TEST_CASE("kept nodes: an entry made in a kept node starts as a new one", "[kept_nodes]") {
  Entries map;
  KeptNodes<Entries> kept;
  Entry& first = kept.Emplace(map, 1);
  first.body = std::string(4096, 'x');
  first.tries = 3;
  const Entry* address = &first;
  kept.Erase(map, map.find(1));
  CHECK(map.empty());
  Entry& second = kept.Emplace(map, 2);
  CHECK(&second == address);  // the same node, used again
  CHECK(second.body.empty());
  CHECK(second.body.capacity() < 4096);  // what the old value held was freed at its erase
  CHECK(second.tries == 0);
  REQUIRE(map.size() == 1);
  CHECK(map.begin()->first == 2);
}

TEST_CASE("kept nodes: an existing key gives its entry, and the order holds", "[kept_nodes]") {
  Entries map;
  KeptNodes<Entries> kept;
  for (int key : {5, 1, 3}) kept.Emplace(map, key).tries = key;
  kept.Erase(map, map.find(3));
  kept.Emplace(map, 4);
  CHECK(kept.Emplace(map, 5).tries == 5);
  std::string order;
  for (const auto& [key, entry] : map)
    order += std::to_string(key) + ":" + std::to_string(entry.tries) + " ";
  CHECK(order == "1:1 4:0 5:5 ");
}

}  // namespace
}  // namespace mcpgw::base
