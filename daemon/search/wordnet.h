// WordNet relatives: for an English word or short phrase, as the Analyzer
// turns it into terms, the terms of the words WordNet 3.0 relates to it in
// its common senses: its synonyms (total: sum; permit: allow; "get rid of":
// remove) and the words derived from it (cite: citation). The table is
// generated at build time from the installed WordNet database
// (daemon/search/wordnet_gen.cc; Debian's wordnet-base) and compiled
// in, read-only: nothing is read at run time. Built without WordNet
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

enum class Relation : uint8_t { kSynonym = 0, kDerived = 1 };

// Whether the table was built from WordNet.
bool Available();

// Calls f(term, relation, share) for each relative of `key` (one term, or up
// to three joined by single spaces), closest relations first; `share` is
// how much of the key's use the commonest sense giving that relative has
// (0..1, from WordNet's tagged corpus). Nothing for a key WordNet does not
// hold.
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
    f(std::string_view(kText + (packed >> 8)), static_cast<Relation>(packed & 3),
      static_cast<float>((packed >> 2) & 63) / 63.0f);
  }
}

}  // namespace wordnet
}  // namespace mcpgw::search
