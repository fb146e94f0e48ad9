// libFuzzer target for ParseBoundedJson and ToCompactJson: small bounds, so
// depth and size limits are crossed often; whatever parses must serialise to
// text that parses again and serialises to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "daemon/mcp/bounded_json.h"

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

namespace {

// Structural equality that keeps member order and duplicate keys (RapidJSON's
// operator== looks members up by name, so it cannot tell {"a":1,"a":2} apart
// from its own reading).
bool Same(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.GetType() != b.GetType()) return false;
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (auto i = a.MemberBegin(), j = b.MemberBegin(); i != a.MemberEnd(); ++i, ++j) {
      if (!Same(i->name, j->name) || !Same(i->value, j->value)) return false;
    }
    return true;
  }
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      if (!Same(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;  // scalars: numbers compare by value, strings by bytes
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mcpgw::mcp::JsonLimits limits;
  limits.max_bytes = 4096;
  limits.max_depth = 16;

  rapidjson::Document doc;
  std::string error;
  const bool ok = mcpgw::mcp::ParseBoundedJson(text, limits, doc, error);
  FUZZ_CHECK(ok == error.empty());
  FUZZ_CHECK(error.size() < 200);
  if (!ok) {
    FUZZ_CHECK(doc.IsNull());
    FUZZ_CHECK(size <= limits.max_bytes || error == "response exceeds 4 KiB");
    return 0;
  }
  FUZZ_CHECK(size <= limits.max_bytes);

  const std::string compact = mcpgw::mcp::ToCompactJson(doc);
  // Escaping may lengthen the text (U+2028 → \u2028), so reparse unbounded
  // in size; the depth is the same.
  mcpgw::mcp::JsonLimits loose = limits;
  loose.max_bytes = 1u << 20;
  rapidjson::Document again;
  FUZZ_CHECK(mcpgw::mcp::ParseBoundedJson(compact, loose, again, error));
  FUZZ_CHECK(Same(again, doc));
  FUZZ_CHECK(mcpgw::mcp::ToCompactJson(again) == compact);
  return 0;
}
