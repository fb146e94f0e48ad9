// libFuzzer target for the 2026-07-28 wire: the input, parsed as JSON, is
// taken as a tool's input schema (x-mcp-header annotations), as that tool's
// call arguments, as a server/discover answer, and as a call result; the raw
// bytes also go through EncodeHeaderValue. Nothing may crash, and every
// output keeps its promises: header names are tokens, unique regardless of
// case and bounded in number; header values are one line of printable ASCII
// that decodes back to the value; a verdict is modern only at a version this
// client speaks; texts for the model are valid UTF-8.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/base64.h"
#include "base/bounded_json.h"
#include "base/text.h"
#include "base/utf8.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/param_headers.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

// A header value is printable ASCII; the sentinel form decodes to `value`.
void CheckHeaderValue(std::string_view value, std::string_view encoded) {
  for (char c : encoded) {
    const auto byte = static_cast<unsigned char>(c);
    FUZZ_CHECK(byte >= 0x20 && byte <= 0x7E);
  }
  constexpr std::string_view kPrefix = "=?base64?";
  if (encoded.size() >= kPrefix.size() + 2 && encoded.substr(0, kPrefix.size()) == kPrefix &&
      encoded.substr(encoded.size() - 2) == "?=") {
    FUZZ_CHECK(mcpgw::base::DecodeBase64(
                   encoded.substr(kPrefix.size(), encoded.size() - kPrefix.size() - 2)) == value);
  } else {
    FUZZ_CHECK(encoded == value);
    FUZZ_CHECK(value.empty() || (value.front() != ' ' && value.back() != ' '));
  }
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

void CheckSchema(const rapidjson::Value& schema, const rapidjson::Value& arguments) {
  auto read = mcpgw::mcp::ReadParamHeaders(schema);
  if (auto* error = std::get_if<std::string>(&read)) {
    FUZZ_CHECK(!error->empty() && mcpgw::base::IsValidUtf8(*error));
    return;
  }
  const auto& params = std::get<mcpgw::mcp::ParamHeaders>(read);
  FUZZ_CHECK(params.size() <= mcpgw::mcp::kMaxParamHeaders);
  for (size_t i = 0; i < params.size(); ++i) {
    FUZZ_CHECK(mcpgw::base::IsHttpToken(params[i].name));
    FUZZ_CHECK(params[i].name.size() <= mcpgw::mcp::kMaxParamHeaderNameBytes);
    for (size_t j = 0; j < i; ++j) {
      std::string a = params[i].name, b = params[j].name;
      for (char& c : a) c = Lower(c);
      for (char& c : b) c = Lower(c);
      FUZZ_CHECK(a != b);
    }
  }
  for (const auto& [name, value] : mcpgw::mcp::ParamHeaderValues(params, arguments)) {
    FUZZ_CHECK(name.rfind("Mcp-Param-", 0) == 0 && mcpgw::base::IsHttpToken(name));
    for (char c : value) {
      const auto byte = static_cast<unsigned char>(c);
      FUZZ_CHECK(byte >= 0x20 && byte <= 0x7E);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckHeaderValue(text, mcpgw::mcp::EncodeHeaderValue(text));

  mcpgw::base::JsonLimits limits;
  limits.max_bytes = 64u << 10;
  limits.max_depth = 32;
  rapidjson::Document doc;
  if (!mcpgw::base::ParseBoundedJson(text, limits, doc).ok()) return 0;

  CheckSchema(doc, doc);
  if (doc.IsObject() && doc.HasMember("arguments")) CheckSchema(doc, doc["arguments"]);

  for (int status : {200, 400, 404}) {
    for (bool retried : {false, true}) {
      const mcpgw::mcp::EraVerdict v = mcpgw::mcp::JudgeDiscover(&doc, status != 200, retried);
      using Kind = mcpgw::mcp::EraVerdict::Kind;
      if (v.kind == Kind::kModern || v.kind == Kind::kRetry) {
        FUZZ_CHECK(mcpgw::mcp::IsModernProtocolVersion(v.version));
      }
      if (v.kind == Kind::kRetry) FUZZ_CHECK(!retried);
      if (v.kind == Kind::kFail)
        FUZZ_CHECK(!v.reason.empty() && mcpgw::base::IsValidUtf8(v.reason));
      if (v.kind == Kind::kModern) FUZZ_CHECK(status == 200);
    }
  }
  if (auto e = mcpgw::mcp::RecognizeModernError(doc)) {
    FUZZ_CHECK(mcpgw::base::IsValidUtf8(e->message));
    FUZZ_CHECK(e->supported.size() <= mcpgw::mcp::kMaxVersions);
  }
  FUZZ_CHECK(mcpgw::base::IsValidUtf8(mcpgw::mcp::InputRequiredText(doc)));
  (void)mcpgw::mcp::ResultTypeOf(doc);
  FUZZ_CHECK(mcpgw::mcp::TtlOf(doc).count() >= 0);
  return 0;
}
