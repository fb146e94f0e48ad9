// Helpers shared by the config tests: a fake environment and one-entry
// parsing, so each test states only the JSON it is about.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "config/config.h"

namespace mcpgw::config::testing {

// An environment holding exactly `vars`; home is /home/tester.
inline ParseEnv FakeEnv(std::map<std::string, std::string, std::less<>> vars = {}) {
  ParseEnv env;
  env.get_env = [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  env.home = "/home/tester";
  return env;
}

// Parses {"mcpServers":{"s": <entry_json>}} and returns the result.
inline ParseResult ParseEntryJson(std::string_view entry_json, const ParseEnv& env = FakeEnv()) {
  std::string text = "{\"mcpServers\":{\"s\":" + std::string(entry_json) + "}}";
  return Parse(text, "mcp.json", env);
}

// The single entry of ParseEntryJson; fails the test when there is not one.
inline Entry OnlyEntry(std::string_view entry_json, const ParseEnv& env = FakeEnv()) {
  ParseResult result = ParseEntryJson(entry_json, env);
  if (!result.ok() || result->entries.size() != 1)
    return Entry{"<parse failed>", {}, {}, result.message(), {}};
  return result->entries[0];
}

}  // namespace mcpgw::config::testing
