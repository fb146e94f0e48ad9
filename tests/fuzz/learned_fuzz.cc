// libFuzzer target for the learned-words file (daemon/search/learned.h), which
// the daemon reads at start from its state folder: any bytes are refused or
// read within the caps, never a crash, and:
// - what is read keeps the caps (16 queries a tool, 2,000 in all, 300 bytes a
//   query, no query without search terms) and its texts are UTF-8;
// - what is read, written again, reads back the same;
// - learning the input's pieces as queries keeps the same caps.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/utf8.h"
#include "daemon/search/learned.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

using mcpgw::search::LearnedStore;

void CheckCaps(const LearnedStore& store) {
  size_t total = 0;
  for (const auto& [ns, tools] : store.servers()) {
    FUZZ_CHECK(!ns.empty() && !tools.empty());
    for (const auto& [name, tool] : tools) {
      FUZZ_CHECK(!name.empty());
      FUZZ_CHECK(!tool.queries.empty() && tool.queries.size() <= mcpgw::search::kMaxQueriesPerTool);
      for (const auto& q : tool.queries) {
        FUZZ_CHECK(q.text.size() <= mcpgw::search::kMaxLearnedQueryBytes);
        FUZZ_CHECK(mcpgw::base::IsValidUtf8(q.text));
        FUZZ_CHECK(q.key != 0 && q.key == mcpgw::search::QueryKey(q.text));
        FUZZ_CHECK(q.uses >= 1);
      }
      total += tool.queries.size();
    }
  }
  FUZZ_CHECK(total == store.queries());
  FUZZ_CHECK(total <= mcpgw::search::kMaxLearnedQueries);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mcpgw::base::Result<LearnedStore> read = LearnedStore::Parse(text);
  if (read.ok()) {
    CheckCaps(*read);
    mcpgw::base::Result<LearnedStore> again = LearnedStore::Parse(read->Serialize());
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again->servers() == read->servers());
  } else {
    FUZZ_CHECK(read.message().rfind("the learned file: ", 0) == 0);
  }
  // The input's lines as (namespace, tool, query) triples, learned in turn.
  LearnedStore store;
  size_t at = 0;
  int64_t now = 1796601600;
  while (at < text.size()) {
    std::string_view piece[3];
    for (auto& p : piece) {
      const size_t end = std::min(text.find('\n', at), text.size());
      p = text.substr(at, end - at);
      at = end + 1;
      if (at > text.size()) break;
    }
    const std::string valid = mcpgw::base::Utf8Replacing(piece[2]);
    store.Learn(piece[0], piece[1], "d", valid, now++);
  }
  CheckCaps(store);
  mcpgw::base::Result<LearnedStore> back = LearnedStore::Parse(store.Serialize());
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(back->servers() == store.servers());
  return 0;
}
