// WordNet relatives: for an English word or short phrase, as the Analyzer
// turns it into terms, the terms of the words WordNet 3.0 relates to it in
// its common senses — its synonyms (total: sum), the words derived from it
// (remember: memory, cite: citation) and its more general terms (forget:
// ...). The table is generated at build time from the installed WordNet
// database (daemon/search/gen/wordnet_gen.cc; Debian's wordnet-base) and
// compiled in: nothing is read at run time. Built without WordNet
// (MCPGW_WORDNET=OFF) the table is empty and Available() is false.
#pragma once

#include <cstdint>
#include <string_view>

namespace mcpgw::search {

namespace wordnet_table {
extern const char kText[];
extern const uint32_t kKeyCount;
extern const uint32_t kKeys[];
extern const uint32_t kFirst[];
extern const uint32_t kRelatives[];
}  // namespace wordnet_table

namespace wordnet {

enum class Relation : uint8_t { kSynonym = 0, kDerived = 1, kBroader = 2 };

// Whether the table was built from WordNet.
bool Available();

// Calls f(term, relation) for each relative of `key` (one term, or up to
// three joined by single spaces), closest relations first. Nothing for a key
// WordNet does not hold.
template <typename F>
void ForEachRelative(std::string_view key, F&& f);

// The position of `key` among the table's keys, or -1.
int64_t Find(std::string_view key);

template <typename F>
void ForEachRelative(std::string_view key, F&& f) {
  const int64_t i = Find(key);
  if (i < 0) return;
  using namespace wordnet_table;
  for (uint32_t r = kFirst[i]; r < kFirst[i + 1]; ++r) {
    const uint32_t packed = kRelatives[r];
    f(std::string_view(kText + (packed >> 2)), static_cast<Relation>(packed & 3));
  }
}

}  // namespace wordnet
}  // namespace mcpgw::search
