// The JSON layer under the mcp.json parser: reads text into a RapidJSON
// document with the limits a config file needs (size cap, no recursion depth,
// strict UTF-8) and turns parse errors into `path:line:column` messages.
// Also the small lookups the entry parser shares. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "base/status.h"

namespace mcpgw::config {

// A larger mcp.json is refused before parsing.
inline constexpr size_t kMaxConfigBytes = size_t{64} * 1024 * 1024;

struct LineColumn {
  size_t line = 1;    // 1-based
  size_t column = 1;  // 1-based, in characters (UTF-8 code points)
};

// Where byte `offset` of `text` sits.
LineColumn LineColumnAt(std::string_view text, size_t offset);

// Parses `text` (a leading UTF-8 byte order mark is skipped; comments and
// trailing commas are allowed, as in VS Code's JSONC) into `doc`.
// An error (invalid_input) names `path`, with line:column when the text is
// not valid JSON. Invalid UTF-8 and NUL bytes are errors. Nesting depth is
// not limited and cannot exhaust the stack.
base::Status ParseJsonDocument(std::string_view text, std::string_view path,
                               rapidjson::Document& doc);

// The value of the last member named `key` (as JSON.parse keeps the last of
// duplicate keys), or nullptr. `object` must be an object.
const rapidjson::Value* FindLast(const rapidjson::Value& object, std::string_view key);

// A string value's bytes, including any NUL escaped as \u0000.
std::string_view StringOf(const rapidjson::Value& value);

// "null", "boolean", "number", "string", "array" or "object".
const char* TypeName(const rapidjson::Value& value);

}  // namespace mcpgw::config
