// Settings → DaemonOptions (see options.h).
#include "daemon/options.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "config/settings_table.h"
#include "daemon/auth/store.h"
#include "daemon/guard/pins.h"
#include "daemon/guard/policy.h"
#include "proto/socket_path.h"

namespace mcpgw {
namespace {

// The sessions' bounds, in the units a session counts in.
mcp::SessionLimits SessionLimitsFrom(const LimitsSettings& limits) {
  mcp::SessionLimits session;
  session.max_response_bytes = limits.max_response_bytes;
  session.max_json_depth = limits.max_json_depth;
  session.max_sse_event_bytes = limits.max_sse_event_bytes;
  session.max_tools = limits.max_tools_per_server;
  session.max_list_pages = limits.max_list_pages;
  session.call_deadline = std::chrono::seconds(limits.call_timeout_s);
  // A first attempt's handshake and listing, and every later listing request,
  // share the one listing budget.
  session.first_attempt_deadline = std::chrono::seconds(limits.listing_timeout_s);
  session.request_deadline = std::chrono::seconds(limits.listing_timeout_s);
  return session;
}

}  // namespace

DaemonOptions MakeOptions(const CommandLine& command_line, const Settings& settings,
                          unsigned cores) {
  DaemonOptions o;
  o.settings = settings;
  if (command_line.workers > 0) {
    o.settings.workers = static_cast<int>(command_line.workers);
  } else if (settings.workers == 0) {
    o.settings.workers = static_cast<int>(std::max(1u, cores));
  }
  o.policy = std::make_shared<const Policy>(settings.policy);
  o.gateway.config_path = command_line.config_path;
  o.gateway.settings_path = command_line.settings_path;
  o.gateway.socket_path = command_line.socket_path;
  o.gateway.limits = SessionLimitsFrom(settings.limits);
  o.gateway.record_path = command_line.record_path;
  o.gateway.replay_path = command_line.replay_path;
  o.gateway.replay_forward = command_line.replay_forward;
  return o;
}

std::string ResultsDir(const GetEnv& get_env, const std::string& socket_path) {
  if (auto runtime = get_env("XDG_RUNTIME_DIR");
      runtime && !runtime->empty() && runtime->front() == '/') {
    return *runtime + "/mcpgw/results";
  }
  const size_t slash = socket_path.find_last_of('/');
  if (slash == std::string::npos) return "results";
  return socket_path.substr(0, slash == 0 ? 1 : slash) + (slash == 0 ? "" : "/") + "results";
}

OptionsResult LoadOptions(const CommandLine& command_line, const GetEnv& get_env) {
  OptionsResult result;
  const std::string& path = command_line.settings_path;
  base::Result<LoadedSettings> loaded = LoadSettingsFile(path);
  if (!loaded.ok()) {
    result.settings_error = std::move(loaded).status();
    return result;
  }
  result.file_missing = loaded->missing;
  if (loaded->missing && command_line.settings_named) {
    // A deny policy never silently vanishes with its file.
    result.settings_error = base::NotFound(path + ": no such file (named by --settings)");
    return result;
  }
  const unsigned cores = std::thread::hardware_concurrency();
  result.options = MakeOptions(command_line, loaded->settings, cores);
  GatewayOptions& gateway = result.options.gateway;
  gateway.socket_path = proto::ResolveSocketPath(command_line.socket_path);
  gateway.pins_dir =
      DefaultPinsDir(get_env("XDG_STATE_HOME").value_or(""), get_env("HOME").value_or(""));
  gateway.learned_path = gateway.pins_dir.substr(0, gateway.pins_dir.rfind('/')) + "/learned.json";
  result.options.token_dir = auth::DefaultTokenDir(get_env, get_env("HOME").value_or(""));
  result.options.results_dir = ResultsDir(get_env, gateway.socket_path);
  base::Result<std::shared_ptr<const http::TlsTrust>> trust =
      http::TlsTrust::Load(loaded->settings.tls, get_env);
  if (trust.ok()) {
    result.options.trust = std::move(*trust);
  } else {
    result.trust_error = std::move(trust).status().Prefixed(path + ": ");
  }
  return result;
}

std::vector<std::string_view> RestartOnlyChanges(const DaemonOptions& running,
                                                 const DaemonOptions& read) {
  std::vector<std::string_view> changed;
  for (const SettingKey& key : SettingKeys()) {
    if (key.applies != SettingApplies::kAtRestart) continue;
    if (key.field.get(running.settings) == key.field.get(read.settings)) continue;
    if (std::find(changed.begin(), changed.end(), key.TopLevel()) == changed.end()) {
      changed.push_back(key.TopLevel());
    }
  }
  return changed;
}

}  // namespace mcpgw
