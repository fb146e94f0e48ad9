// Fifo: first in, first out, and no heap memory while empty.
#include "base/fifo.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace mcpgw::base {
namespace {

std::vector<int> Items(const Fifo<int>& q) { return std::vector<int>(q.begin(), q.end()); }

TEST_CASE("fifo: items come out in the order they went in", "[fifo]") {
  Fifo<int> q;
  CHECK(q.empty());
  CHECK(q.size() == 0);
  for (int i = 1; i <= 3; ++i) q.push_back(i);
  CHECK(q.size() == 3);
  CHECK(q.front() == 1);
  q.pop_front();
  CHECK(q.front() == 2);
  q.push_back(4);
  CHECK(Items(q) == std::vector<int>{2, 3, 4});
  q.pop_front();
  q.pop_front();
  q.pop_front();
  CHECK(q.empty());
  CHECK(q.begin() == q.end());
}

TEST_CASE("fifo: a long run of pushes and pops keeps the order", "[fifo]") {
  Fifo<int> q;
  int next_in = 0;
  int next_out = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) q.push_back(next_in++);
    for (int i = 0; i < round % 5 + 1 && !q.empty(); ++i) {
      REQUIRE(q.front() == next_out);
      q.pop_front();
      ++next_out;
    }
    REQUIRE(q.size() == static_cast<size_t>(next_in - next_out));
    std::vector<int> expected;
    for (int v = next_out; v < next_in; ++v) expected.push_back(v);
    REQUIRE(Items(q) == expected);
  }
}

TEST_CASE("fifo: items are moved in and out, and clear empties it", "[fifo]") {
  Fifo<std::string> q;
  q.push_back(std::string(100, 'a'));
  q.push_back("b");
  std::string first = std::move(q.front());
  q.pop_front();
  CHECK(first == std::string(100, 'a'));
  CHECK(q.front() == "b");
  q.clear();
  CHECK(q.empty());
  CHECK(q.size() == 0);
  q.push_back("c");
  CHECK(q.front() == "c");
}

}  // namespace
}  // namespace mcpgw::base
