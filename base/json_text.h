// JSON text: the one string encoder (a string literal that is valid JSON
// whatever bytes it is given) and the one nesting-depth scan (a bound checked
// before any parser recurses). Pure functions over bytes; no JSON library.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::base {

// Appends `s` as a JSON string literal, quotes included. Ill-formed UTF-8
// becomes U+FFFD (base/utf8.h); control characters are escaped, and so are
// U+2028 and U+2029 (valid JSON, but line ends to JavaScript).
void AppendJsonString(std::string* out, std::string_view s);
std::string JsonString(std::string_view s);

// The deepest nesting of arrays and objects in the JSON text `text`, counting
// no further than one past `limit` (so a hostile text costs one scan).
// Brackets inside strings do not count. The text need not be valid JSON.
int JsonNestingDepth(std::string_view text, int limit);

}  // namespace mcpgw::base
