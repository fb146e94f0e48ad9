#include "config/document.h"

#include <rapidjson/error/en.h>

namespace mcpgw::config {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
// JSONC, as VS Code writes mcp.json: `//` and `/* */` comments and trailing
// commas are accepted.
constexpr unsigned kParseFlags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag |
    rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag;

std::string At(std::string_view path, std::string_view text, size_t offset) {
  LineColumn lc = LineColumnAt(text, offset);
  return std::string(path) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

}  // namespace

LineColumn LineColumnAt(std::string_view text, size_t offset) {
  LineColumn lc;
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++lc.line;
      lc.column = 1;
    } else if ((c & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
      ++lc.column;
    }
  }
  return lc;
}

base::Status ParseJsonDocument(std::string_view text, std::string_view path,
                               rapidjson::Document& doc) {
  if (text.size() > kMaxConfigBytes) {
    return base::InvalidInput(std::string(path) + ": file is too large (" +
                              std::to_string(text.size()) + " bytes; the limit is 64 MiB)");
  }
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  // RapidJSON would take a raw NUL as the end of the text; JSON never allows one.
  size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    return base::InvalidInput(At(path, text, nul) + ": invalid JSON: NUL byte in the text");
  }
  doc.Parse<kParseFlags>(text.data(), text.size());
  if (!doc.HasParseError()) return base::Status();
  return base::InvalidInput(At(path, text, doc.GetErrorOffset()) +
                            ": invalid JSON: " + rapidjson::GetParseError_En(doc.GetParseError()));
}

const rapidjson::Value* FindLast(const rapidjson::Value& object, std::string_view key) {
  const rapidjson::Value* found = nullptr;
  for (const auto& member : object.GetObject()) {
    if (StringOf(member.name) == key) found = &member.value;
  }
  return found;
}

std::string_view StringOf(const rapidjson::Value& value) {
  return std::string_view(value.GetString(), value.GetStringLength());
}

const char* TypeName(const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "value";
}

}  // namespace mcpgw::config
