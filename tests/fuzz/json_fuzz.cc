// libFuzzer target for ParseBoundedJson, ToCompactJson and RawMember: small
// bounds, so depth and size limits are crossed often; whatever parses must
// serialise to text that parses again and serialises to the same text, and
// the raw bytes RawMember finds for a member must read as that member.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "base/bounded_json.h"

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

// `raw` was found and is the text of `value`.
bool ReadsAs(const std::optional<std::string_view>& raw, const rapidjson::Value& value) {
  if (!raw) return false;
  mcpgw::base::JsonLimits loose;
  rapidjson::Document doc;
  return mcpgw::base::ParseBoundedJson(*raw, loose, doc).ok() && Same(doc, value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mcpgw::base::JsonLimits limits;
  limits.max_bytes = 4096;
  limits.max_depth = 16;

  rapidjson::Document doc;
  const mcpgw::base::Status parsed = mcpgw::base::ParseBoundedJson(text, limits, doc);
  const bool ok = parsed.ok();
  const std::string& error = parsed.message();
  FUZZ_CHECK(ok == error.empty());
  FUZZ_CHECK(error.size() < 200);
  if (!ok) {
    FUZZ_CHECK(doc.IsNull());
    FUZZ_CHECK(size <= limits.max_bytes || error == "response exceeds 4 KiB");
    return 0;
  }
  FUZZ_CHECK(size <= limits.max_bytes);

  const std::string compact = mcpgw::base::ToCompactJson(doc);
  // Escaping may lengthen the text (U+2028 → \u2028), so reparse unbounded
  // in size; the depth is the same.
  mcpgw::base::JsonLimits loose = limits;
  loose.max_bytes = 1u << 20;
  rapidjson::Document again;
  FUZZ_CHECK(mcpgw::base::ParseBoundedJson(compact, loose, again).ok());
  FUZZ_CHECK(Same(again, doc));
  FUZZ_CHECK(mcpgw::base::ToCompactJson(again) == compact);

  if (doc.IsObject()) {
    // The first member of each name (what FindMember finds), and one level
    // below it when it is an object.
    // (Members are compared by address: RapidJSON's iterator comparisons are
    // ambiguous under C++20's rewritten operators.)
    const rapidjson::Value& root = doc;
    for (const auto& m : root.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (&*root.FindMember(m.name) != &m) continue;
      FUZZ_CHECK(ReadsAs(mcpgw::base::RawMember(text, {name}), m.value));
      if (!m.value.IsObject()) continue;
      // A later member of the same name may hold the path first: only
      // unique names have one answer.
      bool unique = true;
      for (const auto& o : root.GetObject()) {
        if (&o != &m && o.name == m.name) unique = false;
      }
      if (!unique) continue;
      for (const auto& c : m.value.GetObject()) {
        if (&*m.value.FindMember(c.name) != &c) continue;
        const std::string_view child(c.name.GetString(), c.name.GetStringLength());
        FUZZ_CHECK(ReadsAs(mcpgw::base::RawMember(text, {name, child}), c.value));
      }
    }
  }
  return 0;
}
