// Glob matching for policy patterns: `*` matches any run of characters (none
// included), `?` matches exactly one character (one UTF-8 sequence), every
// other byte matches itself. Pure; used by Policy and by settings validation.
#pragma once

#include <string_view>

namespace mcpgw {

// True when `pattern` matches the whole of `text`. Linear in practice: a `*`
// never makes matching exponential (the last star is the only backtrack point).
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace mcpgw
