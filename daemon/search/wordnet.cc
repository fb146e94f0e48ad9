#include "daemon/search/wordnet.h"

#include <algorithm>

namespace mcpgw::search::wordnet {

bool Available() { return wordnet_table::kKeyCount > 0; }

int64_t Find(std::string_view key) {
  using namespace wordnet_table;
  const uint32_t* end = kKeys + kKeyCount;
  const uint32_t* it = std::lower_bound(kKeys, end, key, [](uint32_t offset, std::string_view k) {
    return std::string_view(kText + offset) < k;
  });
  if (it == end || std::string_view(kText + *it) != key) return -1;
  return it - kKeys;
}

}  // namespace mcpgw::search::wordnet
