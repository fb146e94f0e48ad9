// The settings file's keys, listed once (settings_table.cc): for each its path,
// the values it takes, when a change to it applies and where it lives in
// Settings, whose structs keep the defaults. ParseSettings reads the file
// through it and lists an object's keys from it when it refuses one;
// RestartOnlyChanges (daemon/options.h) compares the keys only a restart
// applies. A key added to the table is documented in docs/SETTINGS.md in the
// same change: a test compares the two.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/settings.h"

namespace mcpgw {

// What a key's value is, and so how the file's value is read and checked.
enum class SettingType {
  kWhole,              // a whole number from min to max
  kPath,               // an absolute path, or "" (empty_means says what it stands for)
  kLoopbackAddress,    // "" or what ParseLoopbackListen reads
  kPatterns,           // an array of policy patterns (CheckPolicyPattern)
  kNamespacePatterns,  // the same, without a "/tool" part
  kUids,               // an array of uids
  kPinningMode,        // "block", "strict" or "off"
  kLocalServers,       // "run" or "refuse"
  kConfine,            // null or a `confine` object (config/confine.h)
  kBool,               // true or false (moved as a whole number, 0 or 1)
};

// When a changed value takes effect in a running daemon.
enum class SettingApplies {
  kAtReload,   // the next reload applies it
  kAtRestart,  // it shaped what start-up made: a reload logs that it waits for a restart
};

struct SettingRule {
  SettingType type;
  uint64_t min = 0;  // kWhole: the range
  uint64_t max = 0;
  std::string_view empty_means;  // kPath: what "" stands for, as errors say it
};

// A key's value as the table moves it: a whole number as uint64_t whatever
// the type of its field.
using SettingValue = std::variant<uint64_t, std::string, std::vector<std::string>,
                                  std::vector<uid_t>, PinningMode, JsonObject>;

// Reads and writes one field of Settings.
struct SettingField {
  SettingValue (*get)(const Settings& settings);
  void (*set)(Settings& settings, SettingValue value);
};

struct SettingKey {
  std::string_view path;  // "limits.max_json_depth"; without a dot, a key of the top level
  SettingRule rule;
  SettingApplies applies;
  SettingField field;

  // The object that holds the key: "limits"; "" for a key of the top level.
  std::string_view Parent() const;
  // Its name in that object: "max_json_depth", "workers".
  std::string_view Name() const;
  // The key of the top level it is or lies in: "limits", "workers".
  std::string_view TopLevel() const;
};

// Every key, in the order errors list them.
std::span<const SettingKey> SettingKeys();

// The key `name` of the object `parent` ("" for the top level), or nullptr.
const SettingKey* FindSettingKey(std::string_view parent, std::string_view name);

// Whether `name` is an object of keys at the top level ("limits", not "workers").
bool IsSettingsObject(std::string_view name);

// "allow, deny, read_only": the keys of `parent` ("" for the top level) in
// table order, as an unknown key's error lists them.
std::string KnownSettingKeys(std::string_view parent);

}  // namespace mcpgw
