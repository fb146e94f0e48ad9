// The gateway's error messages are written for a model: they say "call
// get_dynamic_tools with {"namespace":"demo"}". A person at a terminal runs
// commands instead, so `mcpgw tools` and `mcpgw call` rewrite those hints into
// the command that does the same (`mcpgw tools demo`) before printing. Pure.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::cli {

// `message` with every "call get_dynamic_tools with <args>" turned into
// run "mcpgw tools [NAMESPACE [TOOL]]" and every other "get_dynamic_tools with
// <args>" into "mcpgw tools [...]"; <args> is "no arguments" or a JSON object
// with "namespace" and "toolName", or "query" and "limit" (`--query TEXT
// --limit N`). Anything else is left as it is.
std::string PersonHints(std::string_view message);

// `word` as one shell word: bare when it is made of characters no shell treats
// specially, else in single quotes ('' for the empty word).
std::string ShellQuote(std::string_view word);

}  // namespace mcpgw::cli
