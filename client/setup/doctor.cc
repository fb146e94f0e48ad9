#include "client/setup/doctor.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <ostream>

#include <rapidjson/document.h>

#include "base/command_path.h"
#include "client/setup/file_io.h"
#include "client/setup/host_scan.h"
#include "client/setup/registration.h"
#include "config/config.h"
#include "config/display.h"
#include "config/document.h"
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
                      const std::string& oauth_state, const std::string& config_path) {
  const std::string shown = config::DisplayName(name);
  if (oauth_state == "login required" || oauth_state == "failed" ||
      oauth_state == "not authorized") {
    return "mcpgw login " + shown;
  }
  if (reason.find("environment variable") != std::string::npos) {
    return "set the variable in ~/.config/mcpgw/environment, then systemctl --user restart "
           "mcpgwd (docs/SERVICE.md)";
  }
  if (reason == config::kDisabledRefusal) return "remove it from mcp.json if it is not wanted";
  if (reason == config::kLocalRefusal) {
    return "the settings refuse local servers (local_servers: \"refuse\"); set it to \"run\" "
           "and restart mcpgwd, or remove the entry from mcp.json";
  }
  if (reason.rfind("local servers run only from an mcp.json", 0) == 0) {
    return "chmod 600 " + config_path + ", then systemctl --user reload mcpgwd";
  }
  if (reason.find("command ") != std::string::npos &&
      (reason.find("not found") != std::string::npos ||
       reason.find("not an executable") != std::string::npos)) {
    return "write the command's absolute path as \"command\" in mcp.json, or add its folder to "
           "PATH in your login shell's start-up file and restart mcpgwd";
  }
  return "mcpgw status shows its last error; mcpgwd --check checks mcp.json";
}

// What the daemon can confine local servers with (BEHAVIOR.md §18), as it
// sees its kernel: a failure only when an entry asks for what is missing.
void ConfinementCheck(const rapidjson::Document& doc, std::vector<Check>& checks) {
  const Value* c = doc["daemon"].IsObject() && doc["daemon"].HasMember("confinement")
                       ? &doc["daemon"]["confinement"]
                       : nullptr;
  if (c == nullptr || !c->IsObject()) return;
  const std::string summary = "local-server confinement: " + Str(*c, "summary");
  if (Int(*c, "landlock_abi") > 0) {
    checks.push_back({true, summary, ""});
    return;
  }
  bool refused = false;
  if (doc.HasMember("servers") && doc["servers"].IsArray()) {
    for (const Value& server : doc["servers"].GetArray()) {
      refused = refused || (server.IsObject() && Str(server, "reason").find("Landlock") !=
                                                      std::string::npos);
    }
  }
  checks.push_back({!refused, summary,
                    refused ? "a server's confine needs Landlock: Linux 5.13 or later with "
                              "landlock in the kernel's lsm= list; or give the entry "
                              "\"confine_required\": false (docs/SECURITY.md)"
                            : ""});
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
  ConfinementCheck(doc, checks);
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

// The mcp.json the daemon serves, else the default one.
std::string ConfigPath(const SetupEnv& env, const Value* d) {
  std::string config = d != nullptr ? Str(*d, "config") : "";
  return config.empty() ? DefaultConfigPath(env) : config;
}

void FileChecks(const SetupEnv& env, const Value* d, std::vector<Check>& checks) {
  const std::string config = ConfigPath(env, d);
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

void ServerChecks(const Value& doc, const std::string& config_path, std::vector<Check>& checks) {
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
                        ServerFix(name, why, oauth, config_path)});
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

// What restarts the daemon, so that it reads the login shell's PATH again.
std::string RestartCommand(const SetupEnv& env) {
  return env.platform == Platform::kMacos ? "launchctl kickstart -k gui/$(id -u)/com.mcpgw.mcpgwd"
                                          : "systemctl --user restart mcpgwd";
}

// `text` with ${userHome} and ${env:NAME} expanded as the daemon expands them (from this
// process's environment, which is close to the daemon's); nullopt when a variable is not
// set here. `read_variable` tells whether any ${env:} was read.
std::optional<std::string> Expand(std::string_view text, const SetupEnv& env, bool& read_variable) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find("${", i);
    const size_t close = open == std::string_view::npos ? open : text.find('}', open + 2);
    if (close == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, open - i));
    const std::string_view body = text.substr(open + 2, close - open - 2);
    if (body == "userHome") {
      out += env.home;
    } else if (body.substr(0, 4) == "env:") {
      read_variable = true;
      const std::optional<std::string> value = env.Env(body.substr(4));
      if (!value) return std::nullopt;
      out += *value;
    } else {
      out.append(text.substr(open, close + 1 - open));
    }
    i = close + 1;
  }
  return out;
}

bool IsFolder(const std::string& path) {
  struct stat st = {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The servers object of mcp.json as mcpgwd reads it: mcpServers, else servers.
const Value* ServersOf(const Value& doc) {
  if (!doc.IsObject()) return nullptr;
  const Value* servers = config::FindLast(doc, "mcpServers");
  if (servers == nullptr) servers = config::FindLast(doc, "servers");
  return servers != nullptr && servers->IsObject() ? servers : nullptr;
}

bool SwitchedOff(const Value& entry) {
  const Value* disabled = config::FindLast(entry, "disabled");
  const Value* enabled = config::FindLast(entry, "enabled");
  return (disabled != nullptr && disabled->IsBool() && disabled->GetBool()) ||
         (enabled != nullptr && enabled->IsBool() && !enabled->GetBool());
}

// Fails when mcp.json can be written by other users (mcpgwd then runs none of its local
// servers) or, holding local servers' env, read by them.
void ModeCheck(const std::string& config_path, const SetupEnv& env, bool holds_env,
               std::vector<Check>& checks) {
  struct stat st = {};
  if (stat(config_path.c_str(), &st) != 0) return;
  const std::string shown = ShortPath(config_path, env);
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  if ((st.st_mode & 022) != 0) {
    checks.push_back({false,
                      "config: " + shown + " can be written by other users (mode " + mode +
                          "), so mcpgwd runs none of its local servers",
                      "chmod 600 " + config_path});
  } else if (holds_env && (st.st_mode & 044) != 0) {
    checks.push_back({false,
                      "config: " + shown + " can be read by other users (mode " + mode +
                          ") and holds local servers' env",
                      "chmod 600 " + config_path});
  }
}

// The folders the daemon searches for a bare command, asked for once, when first needed.
class SearchPath {
 public:
  explicit SearchPath(const CommandPaths& paths) : paths_(paths) {}
  const std::vector<std::string>& dirs() {
    if (!asked_) {
      const std::string login = paths_.login_path ? paths_.login_path() : "";
      login_known_ = !login.empty();
      dirs_ = base::SearchDirs(login, paths_.service_path ? paths_.service_path() : "");
      asked_ = true;
    }
    return dirs_;
  }
  // The folders, said for a person: whose PATH they came from.
  std::string Described() {
    return base::DescribeDirs(dirs()) +
           (login_known_ ? " (your login shell's PATH, then the service's)"
                         : " (the service's PATH; your login shell's could not be read)");
  }

 private:
  const CommandPaths& paths_;
  bool asked_ = false;
  bool login_known_ = false;
  std::vector<std::string> dirs_;
};

// The check of one local entry named `name`: its cwd a folder, its command found.
Check LocalCheck(std::string_view name, const Value& entry, const std::string& config_path,
                 const SetupEnv& env, SearchPath& search) {
  const std::string what = "local server " + config::DisplayName(name);
  const std::string file = ShortPath(config_path, env);
  const std::string written(config::StringOf(*config::FindLast(entry, "command")));
  bool read_variable = false;
  std::string cwd;
  if (const Value* c = config::FindLast(entry, "cwd"); c != nullptr && c->IsString()) {
    const std::optional<std::string> expanded = Expand(config::StringOf(*c), env, read_variable);
    if (!expanded)
      return {true, what + ": cwd reads a variable that is not set here; not checked", ""};
    cwd = *expanded;
    if (!cwd.empty() && !IsFolder(cwd)) {
      return {false,
              what + ": cwd " + (read_variable ? std::string(config::StringOf(*c)) : cwd) +
                  " is not a folder",
              "create the folder, or correct \"cwd\" in " + file};
    }
  }
  read_variable = false;
  const std::optional<std::string> program = Expand(written, env, read_variable);
  if (!program) {
    return {true,
            what + ": command " + written + " reads a variable that is not set here; not checked",
            ""};
  }
  const bool bare = program->find('/') == std::string::npos;
  // Without a cwd the daemon runs the server in the home directory.
  const base::Result<std::string> found = base::FindCommand(
      *program, bare ? search.dirs() : std::vector<std::string>{}, cwd.empty() ? env.home : cwd);
  if (found.ok()) {
    // A path read from a variable is not shown: doctor prints no variable's value.
    return {true,
            what + ": command " + written +
                (read_variable || !bare ? std::string(" is an executable file") : " is " + *found),
            ""};
  }
  if (bare) {
    return {false, what + ": command " + written + " not found in " + search.Described(),
            "write its absolute path as \"command\" in " + file + " (\"command -v " + written +
                "\" in your terminal shows it), or add its folder to PATH in your login shell's "
                "start-up file (~/.profile, ~/.bashrc or ~/.zshrc), then " +
                RestartCommand(env)};
  }
  const char* from = (*program)[0] == '/' ? ""
                     : cwd.empty()        ? " (from the home directory)"
                                          : " (from its cwd)";
  return {false, what + ": command " + written + " is not an executable file" + from,
          "point \"command\" in " + file + " at an executable file, by its absolute path"};
}

}  // namespace

std::vector<Check> LocalServerChecks(const std::string& config_path, const SetupEnv& env,
                                     const CommandPaths& paths) {
  std::vector<Check> checks;
  const base::Result<FileText> file = ReadText(config_path);
  if (!file.ok() || !file->exists()) return checks;
  rapidjson::Document doc;
  if (!config::ParseJsonDocument(file->text, config_path, doc).ok()) return checks;
  const Value* servers = ServersOf(doc);
  if (servers == nullptr) return checks;
  std::vector<std::pair<std::string_view, const Value*>> local;
  bool holds_env = false;
  for (const auto& m : servers->GetObject()) {
    if (!m.value.IsObject()) continue;
    const Value* command = config::FindLast(m.value, "command");
    if (command == nullptr) continue;
    const Value* e = config::FindLast(m.value, "env");
    holds_env = holds_env || (e != nullptr && e->IsObject() && e->MemberCount() > 0);
    // One switched off is never started; a command that is not a string mcpgwd refuses,
    // and the server's check says why.
    if (!SwitchedOff(m.value) && command->IsString() && command->GetStringLength() > 0) {
      local.emplace_back(config::StringOf(m.name), &m.value);
    }
  }
  if (holds_env || !local.empty()) ModeCheck(config_path, env, holds_env, checks);
  SearchPath search(paths);
  for (const auto& [name, entry] : local) {
    checks.push_back(LocalCheck(name, *entry, config_path, env, search));
  }
  return checks;
}

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

std::vector<Check> RunChecks(const SetupEnv& env, const DaemonProbe& daemon,
                             const CommandPaths& paths) {
  std::vector<Check> checks;
  rapidjson::Document status;
  DaemonChecks(daemon, checks, status);
  checks.push_back(ServiceCheck(env, SystemUnitDirs()));
  const Value* d = status.IsObject() && status.HasMember("daemon") ? &status["daemon"] : nullptr;
  FileChecks(env, d, checks);
  ServerChecks(status, ConfigPath(env, d), checks);
  for (Check& c : LocalServerChecks(ConfigPath(env, d), env, paths)) {
    checks.push_back(std::move(c));
  }
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
