// The search index's dictionary: each term's text once, numbered.
#include "daemon/search/term_dict.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace mcpgw::search {
namespace {

TEST_CASE("a term added is found by its text, and added again keeps its id", "[search]") {
  TermDict dict;
  CHECK(dict.Find("issu") == TermDict::kNone);
  const uint32_t issue = dict.Add("issu");
  const uint32_t create = dict.Add("creat");
  CHECK(issue != create);
  CHECK(dict.Add("issu") == issue);
  CHECK(dict.Find("issu") == issue);
  CHECK(dict.Find("creat") == create);
  CHECK(dict.Find("iss") == TermDict::kNone);
  CHECK(dict.Find("") == TermDict::kNone);
  CHECK(dict.Text(issue) == "issu");
  CHECK(dict.Text(create) == "creat");
  CHECK(dict.size() == 2);
  CHECK(dict.ids() == 2);
}

TEST_CASE("a removed term is not found, and its id goes to the next new term", "[search]") {
  TermDict dict;
  const uint32_t a = dict.Add("alpha");
  const uint32_t b = dict.Add("beta");
  dict.Remove(a);
  CHECK(dict.Find("alpha") == TermDict::kNone);
  CHECK(dict.Find("beta") == b);
  CHECK(dict.size() == 1);
  const uint32_t c = dict.Add("gamma");
  CHECK(c == a);
  CHECK(dict.Text(c) == "gamma");
  CHECK(dict.ids() == 2);
  dict.Remove(b);
  dict.Remove(c);
  CHECK(dict.size() == 0);
  CHECK(dict.Find("gamma") == TermDict::kNone);
  CHECK(dict.Add("delta") == 0);
}

TEST_CASE("many terms: each found after others are removed, texts kept through compaction",
          "[search]") {
  TermDict dict;
  std::vector<uint32_t> ids;
  for (int i = 0; i < 5000; ++i) ids.push_back(dict.Add("term" + std::to_string(i)));
  CHECK(dict.size() == 5000);
  // Every other term goes: lookups probe past the holes they leave, and the
  // dead text is dropped once it is most of the buffer.
  for (int i = 0; i < 5000; i += 2) dict.Remove(ids[static_cast<size_t>(i)]);
  for (int i = 1; i < 5000; i += 4) dict.Remove(ids[static_cast<size_t>(i)]);
  for (int i = 0; i < 5000; ++i) {
    const std::string text = "term" + std::to_string(i);
    const bool kept = i % 4 == 3;
    INFO(text);
    if (kept) {
      CHECK(dict.Find(text) == ids[static_cast<size_t>(i)]);
      CHECK(dict.Text(ids[static_cast<size_t>(i)]) == text);
    } else {
      CHECK(dict.Find(text) == TermDict::kNone);
    }
  }
  CHECK(dict.size() == 1250);
  // New terms take the freed ids; none goes past the most ever held.
  for (int i = 0; i < 3750; ++i) dict.Add("new" + std::to_string(i));
  CHECK(dict.ids() == 5000);
  CHECK(dict.Find("new3749") != TermDict::kNone);
  CHECK(dict.Find("term3") == ids[3]);
  dict.Clear();
  CHECK(dict.size() == 0);
  CHECK(dict.Find("term3") == TermDict::kNone);
  CHECK(dict.MemoryBytes() == 0);
}

}  // namespace
}  // namespace mcpgw::search
