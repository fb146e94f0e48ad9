// Values for the keys of the settings table (config/settings_table.h) in
// tests: a value as the settings file writes it, and a value a key takes that
// is not its default.
#pragma once

#include <string>
#include <type_traits>
#include <variant>

#include "base/json_text.h"
#include "config/settings_table.h"

namespace mcpgw::testing {

// `value` as JSON: 5, "text", ["a", "b"], [7], "block".
inline std::string AsJson(const SettingValue& value) {
  return std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        std::string out;
        if constexpr (std::is_same_v<T, uint64_t>) {
          out = std::to_string(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          base::AppendJsonString(&out, v);
        } else if constexpr (std::is_same_v<T, JsonObject>) {
          out = v.text.empty() ? "null" : v.text;
        } else if constexpr (std::is_same_v<T, PinningMode>) {
          base::AppendJsonString(&out, PinningModeName(v));
        } else {
          out = "[";
          for (const auto& item : v) {
            if (out.size() > 1) out += ", ";
            if constexpr (std::is_same_v<T, std::vector<std::string>>) {
              base::AppendJsonString(&out, item);
            } else {
              out += std::to_string(item);
            }
          }
          out += "]";
        }
        return out;
      },
      value);
}

// `value` of `key` as the settings file writes it: as AsJson, a switch as
// true or false.
inline std::string AsJson(const SettingKey& key, const SettingValue& value) {
  if (key.rule.type == SettingType::kBool) return std::get<uint64_t>(value) ? "true" : "false";
  return AsJson(value);
}

// A value `key` accepts that differs from its default.
inline SettingValue OtherThanDefault(const SettingKey& key) {
  switch (key.rule.type) {
    case SettingType::kWhole: {
      const SettingValue initial = key.field.get(Settings{});
      const uint64_t* number = std::get_if<uint64_t>(&initial);
      return number != nullptr && *number == key.rule.max ? key.rule.min : key.rule.max;
    }
    case SettingType::kPath:
      return std::string("/etc/mcpgw/other");
    case SettingType::kLoopbackAddress:
      return std::string("127.0.0.1:9464");
    case SettingType::kPatterns:
      return std::vector<std::string>{"github/*", "docs"};
    case SettingType::kNamespacePatterns:
      return std::vector<std::string>{"dev-*"};
    case SettingType::kUids:
      return std::vector<uid_t>{7, 1001};
    case SettingType::kPinningMode:
      return PinningMode::kOff;
    case SettingType::kLocalServers:
      return std::string("refuse");
    case SettingType::kConfine:
      return JsonObject{R"({"read":["/usr/share"],"network":false})"};
    case SettingType::kBool: {
      const SettingValue initial = key.field.get(Settings{});
      return uint64_t{std::get<uint64_t>(initial) == 0 ? 1u : 0u};
    }
  }
  return {};
}

// A settings file that gives `key` the value `json` and nothing else.
inline std::string FileWith(const SettingKey& key, const std::string& json) {
  const std::string member = "\"" + std::string(key.Name()) + "\": " + json;
  if (key.Parent().empty()) return "{" + member + "}";
  return "{\"" + std::string(key.Parent()) + "\": {" + member + "}}";
}

}  // namespace mcpgw::testing
