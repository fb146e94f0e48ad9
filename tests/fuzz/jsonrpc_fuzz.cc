// libFuzzer target for the JSON-RPC classifier and builders: the input is
// parsed as one bounded JSON message and classified; replies to a request are
// built from it; the raw bytes are also cleaned as server text and used as a
// cursor. Nothing may crash, and every output keeps its promises: replies are
// valid JSON echoing the id, cleaned text is bounded and free of controls.
// Build by hand with
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//     -DRAPIDJSON_HAS_STDSTRING=1 tests/fuzz/jsonrpc_fuzz.cc daemon/mcp/jsonrpc.cc \
//     base/bounded_json.cc base/clean_text.cc base/json_text.cc base/text.cc base/utf8.cc \
//     -o /tmp/jsonrpc_fuzz
//   /tmp/jsonrpc_fuzz tests/fuzz/corpus/jsonrpc
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "daemon/mcp/jsonrpc.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

using namespace mcpgw::mcp;

bool Clean(std::string_view s, size_t max_bytes) {
  if (s.size() > max_bytes + 3) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return false;
    if (c == 0xC2 && i + 1 < s.size()) {
      const auto next = static_cast<unsigned char>(s[i + 1]);
      if (next >= 0x80 && next < 0xA0) return false;
    }
  }
  return true;
}

rapidjson::Document MustParse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  FUZZ_CHECK(!doc.HasParseError());
  return doc;
}

void CheckReplies(const Message& m) {
  for (const std::string& reply :
       {BuildEmptyResult(*m.id), BuildErrorResponse(*m.id, kMethodNotFound, "unsupported")}) {
    rapidjson::Document doc = MustParse(reply);
    FUZZ_CHECK(doc.IsObject() && doc.HasMember("id"));
    FUZZ_CHECK(doc["id"].IsString() == m.id->IsString());
    if (m.id->IsInt64())
      FUZZ_CHECK(doc["id"].IsInt64() && doc["id"].GetInt64() == m.id->GetInt64());
    const Message back = ClassifyMessage(doc);
    FUZZ_CHECK(back.kind == MessageKind::kResponse);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  const std::string cleaned = mcpgw::base::CleanServerText(input);
  FUZZ_CHECK(Clean(cleaned, 200));
  MustParse(BuildToolsList(1, std::string(input)));
  MustParse(BuildCancelled(2, input));

  rapidjson::Document doc;
  if (!mcpgw::base::ParseBoundedJson(input, mcpgw::base::JsonLimits{1u << 16, 64}, doc).ok()) {
    return 0;
  }
  const Message m = ClassifyMessage(doc);
  switch (m.kind) {
    case MessageKind::kInvalid:
      FUZZ_CHECK(
          !doc.IsObject() || !doc.HasMember("method") || !doc["method"].IsString() ||
          doc.HasMember("result") || doc.HasMember("error") ||
          (doc.HasMember("id") && !doc["id"].IsString() && !doc["id"].IsNumber()) ||
          (doc.HasMember("params") && !doc["params"].IsObject() && !doc["params"].IsArray()));
      break;
    case MessageKind::kRequest:
      FUZZ_CHECK(m.id != nullptr && m.method.size() == doc["method"].GetStringLength());
      CheckReplies(m);
      break;
    case MessageKind::kNotification:
      FUZZ_CHECK(m.id == nullptr && !doc.HasMember("id"));
      break;
    case MessageKind::kResponse:
      FUZZ_CHECK(m.is_error == (m.result == nullptr));
      FUZZ_CHECK(Clean(m.error_message, 200));
      if (m.int_id) FUZZ_CHECK(m.id != nullptr && m.id->IsInt64());
      break;
  }
  return 0;
}
