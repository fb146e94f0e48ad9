#include "config/confine.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "config/config.h"
#include "config/document.h"
#include "config/interpolate.h"

namespace mcpgw::config {
namespace {

using rapidjson::Value;

std::string Got(const Value& value) { return std::string(" (got ") + TypeName(value) + ")"; }
std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Every key of `object` must be one of `known`.
base::Status UnknownKey(const Value& object, std::string_view key,
                        std::initializer_list<std::string_view> known) {
  for (const auto& member : object.GetObject()) {
    const std::string_view name = StringOf(member.name);
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return base::InvalidInput(std::string(key) + ": unknown key " + Quoted(name) +
                              " (known keys: " + list + ")");
  }
  return base::Status();
}

// One string, interpolated when `env` is given.
base::Status Expand(const Value& value, const std::string& at, const ParseEnv* env,
                    std::vector<std::string>& secrets, Interpolated& out) {
  if (!value.IsString()) return base::InvalidInput(at + ": must be a string" + Got(value));
  if (env == nullptr) {
    out.value = out.redacted = std::string(StringOf(value));
  } else {
    base::Status expanded = Interpolate(StringOf(value), *env, &out);
    for (std::string& v : out.env_values) secrets.push_back(std::move(v));
    if (!expanded.ok()) return std::move(expanded).Prefixed(at + ": ");
  }
  if (out.value.find('\0') != std::string::npos) {
    return base::InvalidInput(at + ": contains a NUL byte");
  }
  return base::Status();
}

base::Status Paths(const Value* list, const std::string& at, const ParseEnv* env,
                   std::vector<std::string>& secrets, std::vector<ConfinePath>& out) {
  if (list == nullptr || list->IsNull()) return base::Status();
  if (!list->IsArray()) return base::InvalidInput(at + ": must be an array of paths" + Got(*list));
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const std::string item = at + "[" + std::to_string(i) + "]";
    Interpolated path;
    if (base::Status bad = Expand((*list)[i], item, env, secrets, path); !bad.ok()) return bad;
    // The settings file's form check cannot know what ${userHome} is yet.
    const bool unexpanded = env == nullptr && path.value.rfind("${", 0) == 0;
    if (!unexpanded && (path.value.empty() || path.value[0] != '/')) {
      return base::InvalidInput(item + ": " + Quoted(path.redacted) + " is not an absolute path");
    }
    while (path.value.size() > 1 && path.value.back() == '/') path.value.pop_back();
    while (path.redacted.size() > 1 && path.redacted.back() == '/') path.redacted.pop_back();
    if (env != nullptr && env->path_exists && !env->path_exists(path.value)) {
      return base::InvalidInput(item + ": " + Quoted(path.redacted) + " does not exist");
    }
    out.push_back(ConfinePath{std::move(path.value), std::move(path.redacted)});
  }
  return base::Status();
}

// "host:port" or "[v6]:port"; `redacted` is the same text as it may be
// shown (every ${env:..} value as <redacted>).
base::Status Endpoint(std::string_view text, std::string_view redacted, const std::string& at,
                      ConfineEndpoint& out) {
  const size_t colon = text.rfind(':');
  const std::string shown = Quoted(redacted);
  if (colon == std::string_view::npos || colon == 0) {
    return base::InvalidInput(at + ": " + shown + " is not host:port");
  }
  const std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (host.find(':') != std::string_view::npos && !(host.front() == '[' && host.back() == ']')) {
    return base::InvalidInput(at + ": " + shown + ": an IPv6 address goes in brackets ([::1]:443)");
  }
  int number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size()) {
    return base::InvalidInput(at + ": " + shown + ": the port is not a number");
  }
  if (number < 1 || number > 65535) {
    return base::InvalidInput(at + ": " + shown + ": port " + std::to_string(number) +
                              " is out of range (1-65535)");
  }
  out.host = std::string(host);
  out.port = number;
  out.text = std::string(redacted);
  return base::Status();
}

base::Status Network(const Value* value, const std::string& at, const ParseEnv* env,
                     std::vector<std::string>& secrets, Confine& out) {
  if (value == nullptr || value->IsNull()) return base::Status();
  if (value->IsBool()) {
    out.network = value->GetBool() ? ConfineNetwork::kAll : ConfineNetwork::kNone;
    return base::Status();
  }
  if (!value->IsArray()) {
    return base::InvalidInput(at + ": must be true, false or an array of \"host:port\"" +
                              Got(*value));
  }
  out.network = ConfineNetwork::kPorts;
  for (rapidjson::SizeType i = 0; i < value->Size(); ++i) {
    const std::string item = at + "[" + std::to_string(i) + "]";
    Interpolated text;
    if (base::Status bad = Expand((*value)[i], item, env, secrets, text); !bad.ok()) return bad;
    // The settings file's form check cannot know what ${env:..} holds yet.
    if (env == nullptr && text.value.find("${") != std::string::npos) continue;
    ConfineEndpoint endpoint;
    if (base::Status bad = Endpoint(text.value, text.redacted, item, endpoint); !bad.ok()) {
      return bad;
    }
    out.connect.push_back(std::move(endpoint));
  }
  return base::Status();
}

base::Status Whole(const Value& object, std::string_view name, uint64_t max, uint64_t& out) {
  const Value* v = FindLast(object, name);
  if (v == nullptr || v->IsNull()) return base::Status();
  const std::string at = "limits." + std::string(name);
  if (!v->IsUint64() || v->GetUint64() < 1 || v->GetUint64() > max) {
    return base::InvalidInput(at + ": must be a whole number from 1 to " + std::to_string(max));
  }
  out = v->GetUint64();
  return base::Status();
}

}  // namespace

std::vector<int> Confine::Ports() const {
  std::vector<int> ports;
  for (const ConfineEndpoint& e : connect) ports.push_back(e.port);
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  return ports;
}

base::Status ParseConfine(const Value& value, std::string_view key, const ParseEnv* env,
                          std::vector<std::string>& secrets, Confine& out) {
  const std::string at(key);
  if (!value.IsObject()) {
    return base::InvalidInput(at + ": must be an object or false" + Got(value));
  }
  if (base::Status bad = UnknownKey(value, at, {"read", "write", "network"}); !bad.ok()) return bad;
  base::Status bad = Paths(FindLast(value, "read"), at + ".read", env, secrets, out.read);
  if (bad.ok()) bad = Paths(FindLast(value, "write"), at + ".write", env, secrets, out.write);
  if (bad.ok()) bad = Network(FindLast(value, "network"), at + ".network", env, secrets, out);
  return bad;
}

base::Status ParseLimits(const Value& value, Limits& out) {
  if (!value.IsObject()) return base::InvalidInput("limits: must be an object" + Got(value));
  if (base::Status bad = UnknownKey(value, "limits", {"memory_mb", "open_files", "processes"});
      !bad.ok()) {
    return bad;
  }
  base::Status bad = Whole(value, "memory_mb", uint64_t{1} << 24, out.memory_mb);
  if (bad.ok()) bad = Whole(value, "open_files", uint64_t{1} << 20, out.open_files);
  if (bad.ok()) bad = Whole(value, "processes", uint64_t{1} << 22, out.processes);
  return bad;
}

void ApplyConfineDefault(Config& config, std::string_view json, const ParseEnv& env) {
  if (json.empty()) return;
  rapidjson::Document doc;
  if (!ParseJsonDocument(json, "local_servers_confine", doc).ok()) return;
  std::vector<std::string> secrets;
  for (Entry& entry : config.entries) {
    if (!entry.local || entry.local->confine || entry.local->unconfined) continue;
    Confine confine;
    base::Status bad = ParseConfine(doc, "local_servers_confine", &env, secrets, confine);
    if (!bad.ok()) {
      entry.Refuse("the settings default " + bad.message());
      continue;
    }
    confine.from_settings = true;
    entry.local->confine = std::move(confine);
  }
  for (std::string& s : secrets) {
    if (s.empty()) continue;
    Secret secret(std::move(s));
    if (std::find(config.secrets.begin(), config.secrets.end(), secret) == config.secrets.end()) {
      config.secrets.push_back(std::move(secret));
    }
  }
}

}  // namespace mcpgw::config
