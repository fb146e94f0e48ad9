// libFuzzer target for the conversions: the input, parsed as JSON, is taken
// both as a tools/call result and as a tools/list page; the raw bytes also go
// through AppendJsonString. Nothing may crash, and every output keeps its
// promises (bounded, valid UTF-8, valid JSON).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/bounded_json.h"
#include "base/json_text.h"
#include "base/utf8.h"
#include "daemon/mcp/convert.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

// Whatever the bytes, AppendJsonString gives one JSON string literal, which
// reads back as the bytes themselves when they were valid UTF-8.
void CheckJsonString(std::string_view bytes) {
  std::string literal = "prefix";
  mcpgw::base::AppendJsonString(&literal, bytes);
  FUZZ_CHECK(literal.rfind("prefix\"", 0) == 0);
  const std::string_view json = std::string_view(literal).substr(6);
  FUZZ_CHECK(json.find_first_of(std::string_view("\n\r\0", 3)) == std::string_view::npos);
  FUZZ_CHECK(json.find("\xE2\x80\xA8") == std::string_view::npos);
  rapidjson::Document doc;
  mcpgw::base::JsonLimits limits;
  limits.max_bytes = SIZE_MAX;
  FUZZ_CHECK(mcpgw::base::ParseBoundedJson(json, limits, doc).ok());
  FUZZ_CHECK(doc.IsString());
  const std::string_view back(doc.GetString(), doc.GetStringLength());
  FUZZ_CHECK(mcpgw::base::IsValidUtf8(back));
  if (mcpgw::base::IsValidUtf8(bytes)) FUZZ_CHECK(back == bytes);
}

void CheckTools(const rapidjson::Value& value) {
  mcpgw::mcp::ToolLimits limits;
  limits.max_name_bytes = 16;
  limits.max_description_bytes = 32;
  limits.max_schema_bytes = 64;
  mcpgw::mcp::ToolList tools;
  const mcpgw::base::Status appended = mcpgw::mcp::AppendToolsPage(value, limits, tools);
  FUZZ_CHECK(appended.ok() || !appended.message().empty());
  if (!appended.ok()) FUZZ_CHECK(tools.empty());
  for (const auto& t : tools) {
    FUZZ_CHECK(!t.name.empty() && t.name.size() <= limits.max_name_bytes);
    FUZZ_CHECK(!t.description.empty() && t.description.size() <= limits.max_description_bytes);
    FUZZ_CHECK(mcpgw::base::IsValidUtf8(t.description));
    FUZZ_CHECK(t.input_schema_json.size() <= limits.max_schema_bytes);
    rapidjson::Document schema;
    FUZZ_CHECK(mcpgw::base::ParseBoundedJson(t.input_schema_json, {}, schema).ok());
    FUZZ_CHECK(schema.IsObject());
  }
  mcpgw::mcp::SortAndDedupTools(tools);
  for (size_t i = 1; i < tools.size(); ++i) FUZZ_CHECK(tools[i - 1].name < tools[i].name);
  // Shrinking rewrites the text: the same tools, no byte beyond them.
  const mcpgw::mcp::ToolList sorted = tools;
  tools.Shrink();
  FUZZ_CHECK(tools == sorted);
  FUZZ_CHECK(tools.HeapBytes() <= std::max<size_t>(tools.TextBytes(), 15) +
                                      tools.size() * mcpgw::mcp::ToolList::kEntryBytes);
  for (const auto& t : tools) FUZZ_CHECK(tools.Find(t.name) == t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckJsonString(text);

  mcpgw::base::JsonLimits limits;
  limits.max_bytes = 64u << 10;
  limits.max_depth = 32;
  rapidjson::Document doc;
  if (!mcpgw::base::ParseBoundedJson(text, limits, doc).ok()) return 0;

  const mcpgw::mcp::ConvertedResult result = mcpgw::mcp::ConvertCallResult(doc);
  FUZZ_CHECK(mcpgw::base::IsValidUtf8(result.text));
  if (doc.IsObject() && doc.HasMember("isError") && doc["isError"].IsTrue()) {
    FUZZ_CHECK(result.is_error);
  } else {
    FUZZ_CHECK(!result.is_error);
  }
  CheckTools(doc);
  // A page may also arrive as the `result` of a JSON-RPC response.
  if (doc.IsObject() && doc.HasMember("result")) CheckTools(doc["result"]);
  return 0;
}
