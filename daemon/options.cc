// Settings → DaemonOptions (see options.h).
#include "daemon/options.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "daemon/auth/store.h"
#include "daemon/guard/pins.h"
#include "daemon/guard/policy.h"
#include "proto/socket_path.h"

namespace mcpgw {

DaemonOptions MakeOptions(const CommandLine& command_line, const Settings& settings,
                          unsigned cores) {
  DaemonOptions o;
  o.config_path = command_line.config_path;
  o.settings_path = command_line.settings_path;
  o.socket_path = command_line.socket_path;
  if (command_line.workers > 0) {
    o.workers = command_line.workers;
  } else if (settings.workers > 0) {
    o.workers = static_cast<unsigned>(settings.workers);
  } else {
    o.workers = std::max(1u, cores);
  }

  const LimitsSettings& limits = settings.limits;
  o.limits.max_response_bytes = limits.max_response_bytes;
  o.limits.max_json_depth = limits.max_json_depth;
  o.limits.max_sse_event_bytes = limits.max_sse_event_bytes;
  o.limits.max_tools = limits.max_tools_per_server;
  o.limits.max_list_pages = limits.max_list_pages;
  o.max_connections_per_server = limits.max_connections_per_server;
  o.limits.call_deadline = std::chrono::seconds(limits.call_timeout_s);
  // A first attempt's handshake and listing, and every later listing request,
  // share the one listing budget.
  o.limits.first_attempt_deadline = std::chrono::seconds(limits.listing_timeout_s);
  o.limits.request_deadline = std::chrono::seconds(limits.listing_timeout_s);

  o.ipc.allowed_uids = settings.ipc.allowed_uids;
  o.ipc.max_connections_per_uid = settings.ipc.max_connections_per_uid;
  o.ipc.max_in_flight_per_connection = settings.ipc.max_in_flight_per_connection;
  o.ipc.max_frame_bytes = settings.ipc.max_frame_bytes;

  o.call_log = settings.call_log;
  o.results = settings.results;
  o.pinning = settings.pinning;
  o.metrics = settings.metrics;
  o.record_path = command_line.record_path;
  o.replay_path = command_line.replay_path;
  o.replay_forward = command_line.replay_forward;
  o.policy = std::make_shared<const Policy>(settings.policy);
  o.settings = settings;
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
  SettingsResult loaded = LoadSettingsFile(path);
  result.file_missing = loaded.missing;
  if (loaded.ok && loaded.missing && command_line.settings_named) {
    // A deny policy never silently vanishes with its file.
    result.settings_error = path + ": no such file (named by --settings)";
    return result;
  }
  if (!loaded.ok) {
    result.settings_error = loaded.error;
    return result;
  }
  const unsigned cores = std::thread::hardware_concurrency();
  result.options = MakeOptions(command_line, loaded.settings, cores);
  result.options.socket_path = proto::ResolveSocketPath(command_line.socket_path);
  result.options.token_dir = auth::DefaultTokenDir(get_env, get_env("HOME").value_or(""));
  result.options.results_dir = ResultsDir(get_env, result.options.socket_path);
  result.options.pins_dir =
      DefaultPinsDir(get_env("XDG_STATE_HOME").value_or(""), get_env("HOME").value_or(""));
  http::TlsTrust::Result trust = http::TlsTrust::Load(loaded.settings.tls, get_env);
  if (!trust.trust) result.trust_error = path + ": " + trust.error;
  result.options.trust = std::move(trust.trust);
  return result;
}

std::vector<std::string_view> RestartOnlyChanges(const DaemonOptions& running,
                                                 const DaemonOptions& read) {
  std::vector<std::string_view> changed;
  if (!(running.settings.limits == read.settings.limits)) changed.push_back("limits");
  if (!(running.settings.ipc == read.settings.ipc)) changed.push_back("ipc");
  if (running.workers != read.workers) changed.push_back("workers");
  if (!(running.settings.call_log == read.settings.call_log)) changed.push_back("call_log");
  if (!(running.settings.metrics == read.settings.metrics)) changed.push_back("metrics");
  return changed;
}

}  // namespace mcpgw
