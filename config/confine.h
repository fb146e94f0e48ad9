// What a local server may touch (BEHAVIOR.md §18): the `confine`, `limits`
// and `confine_required` keys of a local entry, and the settings default
// `local_servers_confine`. Parsing only: what the kernel can enforce is
// decided by the daemon (daemon/runtime/confine.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "base/status.h"

namespace mcpgw::config {

struct Config;
struct ParseEnv;
struct Note;

// A path of `read` or `write`: absolute, after interpolation.
struct ConfinePath {
  std::string path;   // may hold an interpolated value: used, never shown
  std::string shown;  // every ${env:..} value as "<redacted>"

  friend bool operator==(const ConfinePath&, const ConfinePath&) = default;
};

// One `host:port` of `network`. Only the port can be enforced (Landlock
// rules name ports, not hosts).
struct ConfineEndpoint {
  std::string host;  // a name or an address, as written ("[::1]" keeps its brackets)
  int port = 0;      // 1..65535
  std::string text;  // "host:port" as shown: every ${env:..} value as "<redacted>"

  friend bool operator==(const ConfineEndpoint&, const ConfineEndpoint&) = default;
};

enum class ConfineNetwork {
  kNone,   // `false`: no network at all
  kAll,    // `true`: no restriction
  kPorts,  // a list: TCP connections to those ports only
};

struct Confine {
  std::vector<ConfinePath> read;
  std::vector<ConfinePath> write;
  ConfineNetwork network = ConfineNetwork::kNone;
  std::vector<ConfineEndpoint> connect;  // kPorts: the list as written
  bool from_settings = false;            // the settings default, not the entry, said it

  // The distinct ports of `connect`, ascending.
  std::vector<int> Ports() const;

  friend bool operator==(const Confine&, const Confine&) = default;
};

// `limits`: 0 is "not bounded".
struct Limits {
  uint64_t memory_mb = 0;   // each process's data (RLIMIT_DATA)
  uint64_t open_files = 0;  // descriptors per process (RLIMIT_NOFILE)
  uint64_t processes = 0;   // the user's tasks, as the kernel counts RLIMIT_NPROC

  bool any() const { return memory_mb != 0 || open_files != 0 || processes != 0; }
  friend bool operator==(const Limits&, const Limits&) = default;
};

// Reads a `confine` object. `key` names it in reasons ("confine",
// "local_servers_confine"). With `env`, strings are interpolated (their
// environment values appended to `secrets`) and every path must exist
// (env->path_exists, when set); without it only the form is checked, as the
// settings file is before it is applied.
base::Status ParseConfine(const rapidjson::Value& value, std::string_view key, const ParseEnv* env,
                          std::vector<std::string>& secrets, Confine& out);

// Reads a `limits` object.
base::Status ParseLimits(const rapidjson::Value& value, Limits& out);

// Gives every local entry of `config` that says nothing of `confine` the
// settings default (`json`, the object's text; "" for none). An entry the
// default cannot be applied to (a path missing) is refused with the reason.
void ApplyConfineDefault(Config& config, std::string_view json, const ParseEnv& env);

}  // namespace mcpgw::config
