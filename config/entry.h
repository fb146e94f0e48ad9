// One mcpServers entry → an accepted remote server or a refusal (BEHAVIOR.md §2).
// Driven by Parse once per server name; each entry is judged on its own, so a
// bad entry never affects another. Reasons name keys, never values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "config/config.h"

namespace mcpgw::config {

// The refusal for `"type": "sse"` (any case).
inline constexpr std::string_view kSseRefusal =
    "legacy HTTP+SSE transport (type \"sse\") is not supported; use Streamable HTTP";

// The refusal for `"<key>": "sse"`, key being "type" or "transport".
inline std::string SseRefusal(std::string_view key) {
  return "legacy HTTP+SSE transport (" + std::string(key) +
         " \"sse\") is not supported; use Streamable HTTP";
}

// Parses the entry `value` named `name`. Every value read from the environment
// and every header value is appended to `secrets`, whether or not the entry
// is accepted. Checks, in order: the shape (object, disabled, url key or
// command, type and transport), the url, each header. Notes (other hosts'
// variable forms, unknown types, ignored keys) go to the entry's notes.
Entry ParseEntry(std::string name, const rapidjson::Value& value, const ParseEnv& env,
                 std::vector<std::string>& secrets);

}  // namespace mcpgw::config
