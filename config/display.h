// How names and keys from mcp.json appear inside reasons and the --check
// report. A name is shown bare when that is unambiguous and safe for a
// terminal; otherwise it is shown JSON-escaped in double quotes.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::config {

// True when `name` is shown bare: non-empty and free of control characters
// (C0, DEL, C1), spaces, double quotes, backslashes and colons.
bool IsPlainName(std::string_view name);

// `name` itself when IsPlainName, else `"..."` with JSON escapes
// (\" \\ \n \r \t \b \f, and \u00XX for other C0 controls, DEL and the
// C1 controls U+0080..U+009F).
std::string DisplayName(std::string_view name);

// `"..."` with the same escapes, always quoted.
std::string JsonQuote(std::string_view text);

}  // namespace mcpgw::config
