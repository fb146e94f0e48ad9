// One mcpServers entry → an accepted remote server or a refusal (SPEC §2).
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

// Parses the entry `value` named `name`. Every value read from the environment
// and every header value is appended to `secrets`, whether or not the entry
// is accepted.
Entry ParseEntry(std::string name, const rapidjson::Value& value, const ParseEnv& env,
                 std::vector<std::string>& secrets);

}  // namespace mcpgw::config
