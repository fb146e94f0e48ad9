// JSON text: the one string encoder (a string literal that is valid JSON
// whatever bytes it is given). Pure functions over bytes; no JSON library.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::base {

// Appends `s` as a JSON string literal, quotes included. Ill-formed UTF-8
// becomes U+FFFD (base/utf8.h); control characters are escaped, and so are
// U+2028 and U+2029 (valid JSON, but line ends to JavaScript).
void AppendJsonString(std::string* out, std::string_view s);
std::string JsonString(std::string_view s);

}  // namespace mcpgw::base
