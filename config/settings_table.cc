// The table of the settings file's keys (see settings_table.h).
#include "config/settings_table.h"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "proto/proto.h"

namespace mcpgw {
namespace {

template <typename T>
SettingValue ToValue(const T& field) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<uint64_t>(field);
  } else {
    return field;
  }
}

// The parse checked the value against the key's rule, so a whole number fits
// its field.
template <typename T>
void FromValue(SettingValue value, T& field) {
  if constexpr (std::is_integral_v<T>) {
    field = static_cast<T>(std::get<uint64_t>(value));
  } else {
    field = std::get<T>(std::move(value));
  }
}

// The field `kMember` of the object `kObject` of Settings.
template <auto kObject, auto kMember>
constexpr SettingField In() {
  return {[](const Settings& s) { return ToValue((s.*kObject).*kMember); },
          [](Settings& s, SettingValue v) { FromValue(std::move(v), (s.*kObject).*kMember); }};
}

// The field `kMember` of Settings itself.
template <auto kMember>
constexpr SettingField Top() {
  return {[](const Settings& s) { return ToValue(s.*kMember); },
          [](Settings& s, SettingValue v) { FromValue(std::move(v), s.*kMember); }};
}

constexpr SettingRule Whole(uint64_t min, uint64_t max) {
  return {SettingType::kWhole, min, max, {}};
}
constexpr SettingRule Path(std::string_view empty_means) {
  return {SettingType::kPath, 0, 0, empty_means};
}
constexpr SettingRule Rule(SettingType type) { return {type, 0, 0, {}}; }

constexpr auto kReload = SettingApplies::kAtReload;
constexpr auto kRestart = SettingApplies::kAtRestart;
using S = Settings;

// The defaults are those of the structs in settings.h; docs/SETTINGS.md
// documents every row.
constexpr SettingKey kKeys[] = {
    {"limits.max_response_bytes", Whole(1024, uint64_t{1} << 30), kRestart,
     In<&S::limits, &LimitsSettings::max_response_bytes>()},
    {"limits.max_json_depth", Whole(2, 1024), kRestart,
     In<&S::limits, &LimitsSettings::max_json_depth>()},
    {"limits.call_timeout_s", Whole(1, 86400), kRestart,
     In<&S::limits, &LimitsSettings::call_timeout_s>()},
    {"limits.listing_timeout_s", Whole(1, 86400), kRestart,
     In<&S::limits, &LimitsSettings::listing_timeout_s>()},
    {"limits.max_tools_per_server", Whole(1, 1000000), kRestart,
     In<&S::limits, &LimitsSettings::max_tools_per_server>()},
    {"limits.max_list_pages", Whole(1, 100000), kRestart,
     In<&S::limits, &LimitsSettings::max_list_pages>()},
    {"limits.max_sse_event_bytes", Whole(1024, uint64_t{1} << 30), kRestart,
     In<&S::limits, &LimitsSettings::max_sse_event_bytes>()},
    {"limits.max_connections_per_server", Whole(1, 65536), kRestart,
     In<&S::limits, &LimitsSettings::max_connections_per_server>()},

    {"ipc.allowed_uids", Rule(SettingType::kUids), kRestart,
     In<&S::ipc, &IpcSettings::allowed_uids>()},
    {"ipc.max_connections_per_uid", Whole(1, 65536), kRestart,
     In<&S::ipc, &IpcSettings::max_connections_per_uid>()},
    {"ipc.max_in_flight_per_connection", Whole(1, 1000000), kRestart,
     In<&S::ipc, &IpcSettings::max_in_flight_per_connection>()},
    {"ipc.max_frame_bytes", Whole(1024, proto::kMaxFrameBytes), kRestart,
     In<&S::ipc, &IpcSettings::max_frame_bytes>()},

    {"workers", Whole(0, 1024), kRestart, Top<&S::workers>()},

    {"call_log.path", Path("no call log"), kRestart, In<&S::call_log, &CallLogSettings::path>()},
    {"call_log.max_bytes", Whole(4096, uint64_t{1} << 40), kRestart,
     In<&S::call_log, &CallLogSettings::max_bytes>()},
    {"call_log.keep", Whole(0, 100), kRestart, In<&S::call_log, &CallLogSettings::keep>()},

    {"policy.allow", Rule(SettingType::kPatterns), kReload,
     In<&S::policy, &PolicySettings::allow>()},
    {"policy.deny", Rule(SettingType::kPatterns), kReload, In<&S::policy, &PolicySettings::deny>()},
    {"policy.read_only", Rule(SettingType::kPatterns), kReload,
     In<&S::policy, &PolicySettings::read_only>()},

    {"tls.ca_file", Path("none"), kReload, In<&S::tls, &TlsSettings::ca_file>()},
    {"tls.ca_dir", Path("none"), kReload, In<&S::tls, &TlsSettings::ca_dir>()},

    {"results.max_text_bytes", Whole(0, proto::kMaxTextBytesBound), kReload,
     In<&S::results, &ResultsSettings::max_text_bytes>()},
    {"results.stdio_max_text_bytes", Whole(0, proto::kMaxTextBytesBound), kReload,
     In<&S::results, &ResultsSettings::stdio_max_text_bytes>()},
    {"results.spill_max_mb", Whole(0, uint64_t{1} << 20), kReload,
     In<&S::results, &ResultsSettings::spill_max_mb>()},

    {"pinning", Rule(SettingType::kPinningMode), kReload,
     In<&S::pinning, &PinningSettings::mode>()},
    {"pinning_exempt", Rule(SettingType::kNamespacePatterns), kReload,
     In<&S::pinning, &PinningSettings::exempt>()},

    {"local_servers", Rule(SettingType::kLocalServers), kRestart, Top<&S::local_servers>()},
    {"local_servers_confine", Rule(SettingType::kConfine), kRestart,
     Top<&S::local_servers_confine>()},

    {"search.learn", Rule(SettingType::kBool), kReload, In<&S::search, &SearchSettings::learn>()},

    {"metrics.listen", Rule(SettingType::kLoopbackAddress), kRestart,
     In<&S::metrics, &MetricsSettings::listen>()},
};

}  // namespace

std::string_view SettingKey::Parent() const {
  const size_t dot = path.find('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}

std::string_view SettingKey::Name() const {
  const size_t dot = path.find('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

std::string_view SettingKey::TopLevel() const { return path.substr(0, path.find('.')); }

std::span<const SettingKey> SettingKeys() { return kKeys; }

const SettingKey* FindSettingKey(std::string_view parent, std::string_view name) {
  for (const SettingKey& key : kKeys) {
    if (key.Parent() == parent && key.Name() == name) return &key;
  }
  return nullptr;
}

bool IsSettingsObject(std::string_view name) {
  for (const SettingKey& key : kKeys) {
    if (!key.Parent().empty() && key.Parent() == name) return true;
  }
  return false;
}

std::string KnownSettingKeys(std::string_view parent) {
  std::vector<std::string_view> listed;
  for (const SettingKey& key : kKeys) {
    if (!parent.empty() && key.Parent() != parent) continue;
    // At the top level an object's keys stand for the object, listed once.
    const std::string_view name = parent.empty() ? key.TopLevel() : key.Name();
    if (std::find(listed.begin(), listed.end(), name) == listed.end()) listed.push_back(name);
  }
  std::string out;
  for (std::string_view name : listed) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace mcpgw
