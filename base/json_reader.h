// WithReader: runs a parse with a RapidJSON reader. Texts up to
// kScratchReaderBytes share this thread's reader, kept from one parse to the
// next so that its stack comes from the heap once rather than on every
// message; a larger text gets a reader of its own, which gives its stack back
// (the stack holds a copy of the longest string, and a kept reader would keep
// that). Parses never nest. Header-only, for the layers that link RapidJSON.
#pragma once

#include <cstddef>

#include <rapidjson/reader.h>

namespace mcpgw::base {

inline constexpr size_t kScratchReaderBytes = 64u << 10;

// `parse` is called with a rapidjson::Reader&; WithReader returns what it returns.
template <typename Parse>
auto WithReader(size_t text_bytes, Parse&& parse) {
  if (text_bytes > kScratchReaderBytes) {
    rapidjson::Reader own;
    return parse(own);
  }
  thread_local rapidjson::Reader scratch;
  return parse(scratch);
}

}  // namespace mcpgw::base
