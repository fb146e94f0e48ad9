#include "client/setup/doctor.h"

#include <unistd.h>

#include <ostream>

#include <rapidjson/document.h>

#include "client/setup/file_io.h"
#include "client/setup/host_scan.h"
#include "client/setup/registration.h"
#include "config/config.h"
#include "config/display.h"
#include "config/settings.h"

namespace mcpgw::setup {
namespace {

using rapidjson::Value;

std::string Str(const Value& object, const char* key) {
  if (!object.IsObject()) return "";
  auto it = object.FindMember(key);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

long long Int(const Value& object, const char* key) {
  if (!object.IsObject()) return 0;
  auto it = object.FindMember(key);
  return it != object.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// What to type for a server that is not ready, from its reason.
std::string ServerFix(const std::string& name, const std::string& reason,
                      const std::string& oauth_state) {
  const std::string shown = config::DisplayName(name);
  if (oauth_state == "login required" || oauth_state == "failed" ||
      oauth_state == "not authorized") {
    return "mcpgw login " + shown;
  }
  if (reason.find("environment variable") != std::string::npos) {
    return "set the variable in ~/.config/mcpgw/environment, then systemctl --user restart "
           "mcpgwd (docs/SERVICE.md)";
  }
  if (reason == config::kLocalRefusal || reason == config::kDisabledRefusal) {
    return "remove it from mcp.json if it is not wanted";
  }
  return "mcpgw status shows its last error; mcpgwd --check checks mcp.json";
}

void DaemonChecks(const DaemonProbe& daemon, std::vector<Check>& checks, rapidjson::Document& doc) {
  const base::Result<std::string> status = daemon.status();
  if (!status.ok()) {
    checks.push_back({false, "daemon: not reachable (" + status.message() + ")",
                      "systemctl --user enable --now mcpgwd.socket (docs/SERVICE.md)"});
    return;
  }
  doc.Parse(status->c_str(), status->size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("daemon")) {
    checks.push_back({false, "daemon: answered a status mcpgw cannot read",
                      "install mcpgw and mcpgwd of the same version"});
    doc.SetNull();
    return;
  }
  const Value& d = doc["daemon"];
  const long long pid = Int(d, "pid");
  checks.push_back({true,
                    "daemon: mcpgwd " + Str(d, "version") + " (pid " + std::to_string(pid) +
                        ") answers on " + Str(d, "socket"),
                    ""});
  std::string socket;
  const base::Result<std::string> stripped = daemon.stripped_status(&socket);
  rapidjson::Document other;
  if (stripped.ok()) other.Parse(stripped->c_str(), stripped->size());
  const bool same = stripped.ok() && !other.HasParseError() && other.IsObject() &&
                    other.HasMember("daemon") && Int(other["daemon"], "pid") == pid;
  if (same) {
    checks.push_back({true, "hosts' socket: " + socket + " (no XDG_RUNTIME_DIR) reaches it", ""});
  } else {
    checks.push_back(
        {false,
         "hosts' socket: " + socket +
             " (what mcpgw stdio finds without XDG_RUNTIME_DIR and "
             "MCPGW_SOCKET) " +
             (stripped.ok() ? "reaches another daemon"
                            : "reaches no daemon (" + stripped.message() + ")"),
         "run mcpgwd on its default socket (systemctl --user enable --now mcpgwd.socket), or add "
         "\"env\": {\"MCPGW_SOCKET\": \"" +
             Str(d, "socket") + "\"} to each host's mcpgw entry"});
  }
}

void FileChecks(const SetupEnv& env, const Value* d, std::vector<Check>& checks) {
  std::string config = d != nullptr ? Str(*d, "config") : "";
  if (config.empty()) config = DefaultConfigPath(env);
  std::string settings = d != nullptr ? Str(*d, "settings") : "";
  if (settings.empty()) settings = DefaultSettingsPath(env.get_env, env.home);
  const config::ParseResult parsed = config::ParseFile(config, config::SystemParseEnv());
  const std::string reload_error = d != nullptr ? Str(*d, "reload_error") : "";
  if (!parsed.ok()) {
    checks.push_back(
        {false, "config: " + parsed.message(), "mcpgwd --config " + config + " --check"});
  } else if (!reload_error.empty()) {
    checks.push_back({false, "config: the daemon refused its last reload: " + reload_error,
                      "mcpgwd --config " + config + " --check"});
  } else {
    checks.push_back({true,
                      "config: " + ShortPath(config, env) + " is usable (" +
                          std::to_string(parsed->entries.size()) + " servers)",
                      ""});
  }
  const base::Result<LoadedSettings> s = LoadSettingsFile(settings);
  const std::string settings_error = d != nullptr ? Str(*d, "settings_error") : "";
  if (!s.ok()) {
    checks.push_back({false, "settings: " + s.message(), "fix the key named (docs/SETTINGS.md)"});
  } else if (!settings_error.empty()) {
    checks.push_back({false, "settings: the daemon could not use them: " + settings_error,
                      "fix the key named (docs/SETTINGS.md)"});
  } else {
    checks.push_back({true,
                      "settings: " + (s->missing ? std::string("none; the defaults apply")
                                                 : ShortPath(settings, env) + " is usable"),
                      ""});
  }
}

void ServerChecks(const Value& doc, std::vector<Check>& checks) {
  if (!doc.IsObject() || !doc.HasMember("servers") || !doc["servers"].IsArray()) return;
  std::vector<Check> logins;
  for (const Value& s : doc["servers"].GetArray()) {
    const std::string name = Str(s, "namespace");
    const std::string status = Str(s, "status");
    const std::string reason = Str(s, "reason");
    const std::string oauth = s.HasMember("oauth") ? Str(s["oauth"], "state") : "";
    const std::string shown = config::DisplayName(name);
    if (status == "ready") {
      checks.push_back(
          {true, "server " + shown + ": ready, " + std::to_string(Int(s, "tools")) + " tools", ""});
    } else if (reason == config::kDisabledRefusal) {
      checks.push_back({true, "server " + shown + ": switched off in mcp.json", ""});
    } else {
      std::string why = reason.empty() ? Str(s, "last_error") : reason;
      checks.push_back({false, "server " + shown + ": " + status + (why.empty() ? "" : ": " + why),
                        ServerFix(name, why, oauth)});
    }
    if (oauth == "login required" || oauth == "failed" || oauth == "not authorized" ||
        oauth == "waiting for consent") {
      logins.push_back({false, "login " + shown + ": " + oauth, "mcpgw login " + shown});
    }
  }
  if (logins.empty()) logins.push_back({true, "logins: none pending", ""});
  checks.insert(checks.end(), logins.begin(), logins.end());
}

void HostChecks(const SetupEnv& env, std::vector<Check>& checks) {
  for (const HostScan& scan : ScanHosts(AllHosts(), env)) {
    const HostRead& read = scan.reads.front();
    const std::string name(HostName(scan.host));
    if (!scan.installed && !read.text.exists() && read.status.ok()) continue;
    if (!read.status.ok()) {
      checks.push_back(
          {false, "host " + name + ": " + read.status.message(), "fix the file by hand"});
      continue;
    }
    const auto regs = Registrations(read);
    if (regs.empty()) {
      checks.push_back({false, "host " + name + ": does not run mcpgw", "mcpgw hosts add " + name});
    } else if (access(regs.front()->command.c_str(), X_OK) != 0) {
      checks.push_back(
          {false,
           "host " + name + ": runs " + regs.front()->command + ", which is not an executable",
           "mcpgw hosts add " + name});
    } else {
      checks.push_back({true,
                        "host " + name + ": runs " + regs.front()->command + " stdio (" +
                            ShortPath(read.file.path, env) + ")",
                        ""});
    }
  }
}

}  // namespace

std::vector<std::string> SystemUnitDirs() {
  return {"/etc/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user",
          "/lib/systemd/user"};
}

Check ServiceCheck(const SetupEnv& env, const std::vector<std::string>& unit_dirs) {
  if (env.platform == Platform::kMacos) {
    const std::string plist = env.home + "/Library/LaunchAgents/com.mcpgw.mcpgwd.plist";
    if (Exists(plist)) return {true, "service: launchd agent " + ShortPath(plist, env), ""};
    return {false, "service: no launchd agent", "install it as docs/SERVICE.md (launchd) says"};
  }
  const std::string user =
      env.Env("XDG_CONFIG_HOME").value_or(env.home + "/.config") + "/systemd/user";
  std::vector<std::string> dirs = {user};
  dirs.insert(dirs.end(), unit_dirs.begin(), unit_dirs.end());
  std::string unit;
  for (const std::string& dir : dirs) {
    if (unit.empty() && Exists(dir + "/mcpgwd.socket")) unit = dir + "/mcpgwd.socket";
  }
  if (unit.empty()) {
    return {false,
            "service: the systemd user units mcpgwd.socket and mcpgwd.service are not installed",
            "cmake --install build --prefix ~/.local, then systemctl --user link "
            "~/.local/lib/systemd/user/mcpgwd.{socket,service} (docs/SERVICE.md)"};
  }
  for (const std::string& dir : {user, std::string("/etc/systemd/user")}) {
    for (const char* wants :
         {"/sockets.target.wants/mcpgwd.socket", "/default.target.wants/mcpgwd.service"}) {
      if (Exists(dir + wants)) {
        return {true, "service: " + ShortPath(unit, env) + " installed and enabled", ""};
      }
    }
  }
  return {false, "service: " + ShortPath(unit, env) + " installed but not enabled",
          "systemctl --user enable --now mcpgwd.socket"};
}

std::vector<Check> RunChecks(const SetupEnv& env, const DaemonProbe& daemon) {
  std::vector<Check> checks;
  rapidjson::Document status;
  DaemonChecks(daemon, checks, status);
  checks.push_back(ServiceCheck(env, SystemUnitDirs()));
  const Value* d = status.IsObject() && status.HasMember("daemon") ? &status["daemon"] : nullptr;
  FileChecks(env, d, checks);
  ServerChecks(status, checks);
  HostChecks(env, checks);
  return checks;
}

int PrintChecks(const std::vector<Check>& checks, std::ostream& out) {
  bool all = true;
  for (const Check& c : checks) {
    out << (c.ok ? "✓ " : "✗ ") << c.what << "\n";
    if (!c.ok) out << "    fix: " << c.fix << "\n";
    all = all && c.ok;
  }
  return all ? 0 : 1;
}

}  // namespace mcpgw::setup
