#include "client/setup/import_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <ostream>
#include <set>

#include <rapidjson/document.h>

#include "base/url.h"
#include "client/setup/file_io.h"
#include "client/setup/host_scan.h"
#include "client/setup/json_edit.h"
#include "client/setup/registration.h"
#include "config/display.h"
#include "config/document.h"

namespace mcpgw::setup {
namespace {

using config::DisplayName;

std::string Count(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string Where(const Source& s, const SetupEnv& env) {
  std::string where(HostName(s.host));
  where += " " + ShortPath(s.file, env);
  if (!s.project.empty() && s.parent.size() > 1)
    where += " (project " + ShortPath(s.project, env) + ")";
  return where;
}

void PrintReads(const std::vector<HostScan>& scans, const SetupEnv& env, std::ostream& out) {
  out << "Read:\n";
  for (const HostScan& scan : scans) {
    for (const HostRead& read : scan.reads) {
      std::string host(HostName(scan.host));
      host.resize(16, ' ');
      out << "  " << host << ShortPath(read.file.path, env) << ": ";
      if (!read.status.ok()) {
        out << read.status.message() << "; left alone\n";
      } else if (!read.text.exists()) {
        out << (scan.installed ? "not found" : "not found (not installed)") << "\n";
      } else {
        out << Count(read.servers.size(), "server", "servers") << "\n";
      }
    }
  }
}

// A local server as the plan shows it: the command, how many arguments (they may hold a
// token), the names of its environment variables (never their values) and its folder.
void PrintLocal(const PlannedServer& s, const SetupEnv& env, std::ostream& out) {
  out << s.command;
  std::string details;
  if (!s.args.empty()) details = Count(s.args.size(), "arg", "args");
  if (!s.env.empty()) {
    details += std::string(details.empty() ? "" : "; ") + "env";
    const char* sep = " ";
    for (const auto& [name, value] : s.env) {
      details += sep + DisplayName(name);
      sep = ", ";
    }
  }
  if (!details.empty()) out << " (" << details << ")";
  if (!s.cwd.empty()) out << " in " << ShortPath(s.cwd, env);
}

void PrintServer(const PlannedServer& s, char mark, const SetupEnv& env, std::ostream& out) {
  out << "  " << mark << " " << DisplayName(s.name) << "  ";
  if (s.local) {
    PrintLocal(s, env, out);
  } else {
    out << base::ReplaceUserinfo(s.url, "<redacted>");
    if (!s.headers.empty()) out << " (" << Count(s.headers.size(), "header", "headers") << ")";
  }
  out << "\n      from " << Where(s.sources[0], env);
  if (s.sources[0].name != s.name) out << " as " << DisplayName(s.sources[0].name);
  for (size_t i = 1; i < s.sources.size(); ++i) out << "; also " << Where(s.sources[i], env);
  out << "\n";
  if (!s.renamed_because.empty()) out << "      renamed: " << s.renamed_because << "\n";
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa = {}, sb = {};
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return a == b;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// The servers object mcpgwd reads in this file: mcpServers, else VS Code's servers.
std::string ServersObject(const std::string& text) {
  rapidjson::Document doc;
  if (config::ParseJsonDocument(text, "", doc).ok() && doc.IsObject() &&
      config::FindLast(doc, "mcpServers") == nullptr &&
      config::FindLast(doc, "servers") != nullptr) {
    return "servers";
  }
  return "mcpServers";
}

void MakeFolders(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    mkdir(path.substr(0, slash).c_str(), 0700);
  }
}

std::string Octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// mcpgw's own folder (that of the default mcp.json) is the user's alone: 0700, as import
// makes it. One that others may enter and that is the user's is closed, and the output says
// so; a folder given with --config is the user's choice and left as it is.
void KeepFolderPrivate(const std::string& path, const SetupEnv& env, std::ostream& out) {
  const std::string folder = path.substr(0, path.rfind('/'));
  struct stat st = {};
  if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 077) == 0) {
    return;
  }
  if (chmod(folder.c_str(), 0700) == 0) {
    out << "  " << ShortPath(folder, env) << " was open to other users (mode " << Octal(st.st_mode)
        << "); it is now 0700\n";
  }
}

// Polls the daemon until it serves every added server, and says what it did.
void ReportDaemon(const DaemonProbe& daemon, const std::string& path,
                  const std::vector<PlannedServer>& added, std::ostream& out) {
  bool signalled = false;
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (attempt > 0) daemon.sleep(0.1);
    const base::Result<std::string> status = daemon.status();
    if (!status.ok()) {
      out << "mcpgwd is not running (" << status.message()
          << "); start it: systemctl --user enable --now mcpgwd.socket (docs/SERVICE.md)\n";
      return;
    }
    rapidjson::Document doc;
    doc.Parse(status->c_str(), status->size());
    if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("daemon") ||
        !doc["daemon"].IsObject()) {
      out << "mcpgwd answered a status mcpgw cannot read\n";
      return;
    }
    const rapidjson::Value& d = doc["daemon"];
    const std::string config =
        d.HasMember("config") && d["config"].IsString() ? d["config"].GetString() : "";
    const long pid =
        d.HasMember("pid") && d["pid"].IsInt64() ? static_cast<long>(d["pid"].GetInt64()) : 0;
    if (!SameFile(config, path)) {
      out << "the running mcpgwd (pid " << pid << ") serves " << config << ", not " << path
          << ": restart it without --config to serve this file\n";
      return;
    }
    std::map<std::string, std::string> states;
    if (doc.HasMember("servers") && doc["servers"].IsArray()) {
      for (const auto& s : doc["servers"].GetArray()) {
        if (s.IsObject() && s.HasMember("namespace") && s["namespace"].IsString() &&
            s.HasMember("status") && s["status"].IsString()) {
          states[s["namespace"].GetString()] = s["status"].GetString();
        }
      }
    }
    bool all = true;
    for (const PlannedServer& s : added) all = all && states.count(s.name) > 0;
    if (all) {
      out << "the running mcpgwd (pid " << pid << ") "
          << (signalled ? "reloaded (SIGHUP)" : "picked up") << " mcp.json:";
      const char* sep = " ";
      for (const PlannedServer& s : added) {
        out << sep << DisplayName(s.name) << " " << states[s.name];
        sep = ", ";
      }
      out << "\n";
      return;
    }
    // The daemon reloads when the file is saved; after 2 s without it, ask once.
    if (attempt == 20 && daemon.reload && pid > 0) signalled = daemon.reload(pid);
    if (attempt >= 30 && d.HasMember("reload_error") && d["reload_error"].IsString()) {
      out << "the running mcpgwd (pid " << pid
          << ") refused the new mcp.json: " << d["reload_error"].GetString() << "\n";
      return;
    }
  }
  out << "the running mcpgwd has not reloaded mcp.json yet: systemctl --user reload mcpgwd\n";
}

// Takes every imported entry out of its host's file; `moved` gets the hosts that lost one.
// Returns false when one could not be.
bool Move(const ImportPlan& plan, const std::vector<HostScan>& scans, const std::string& stamp,
          const SetupEnv& env, std::set<Host>& moved, std::ostream& out) {
  std::map<std::string, std::vector<std::pair<std::vector<std::string>, std::string>>> by_file;
  for (const auto* list : {&plan.add, &plan.present}) {
    for (const PlannedServer& s : *list) {
      for (const Source& src : s.sources) by_file[src.file].emplace_back(src.parent, src.name);
    }
  }
  bool ok = true;
  for (const HostScan& scan : scans) {
    for (const HostRead& read : scan.reads) {
      auto it = by_file.find(read.file.path);
      if (it == by_file.end()) continue;
      const base::Result<HostEdit> edit = RemoveEntries(read, it->second);
      const std::string file = ShortPath(read.file.path, env);
      if (!edit.ok()) {
        out << "  " << file << ": " << edit.message() << "; left alone\n";
        ok = false;
        continue;
      }
      if (!edit->changed) continue;
      const base::Result<std::string> backup = ReplaceText(read.text, edit->text, stamp);
      if (!backup.ok()) {
        out << "  " << backup.message() << "\n";
        ok = false;
        continue;
      }
      out << "  removed " << Count(it->second.size(), "entry", "entries") << " from " << file
          << " (backup: " << ShortPath(*backup, env) << ")\n";
      moved.insert(read.file.host);
      by_file.erase(it);
    }
  }
  return ok;
}

// The hosts found that do not run mcpgw yet, as the commands that register it; a host whose
// servers --move took out reaches them only once it does.
void PrintNext(const std::vector<HostScan>& scans, const std::set<Host>& moved, std::ostream& out) {
  std::string todo;
  for (const HostScan& scan : scans) {
    const HostRead& user = scan.reads.front();
    if (!user.status.ok() || !(scan.installed || user.text.exists())) continue;
    if (!Registrations(user).empty()) continue;
    todo += "  mcpgw hosts add " + std::string(HostName(scan.host));
    if (moved.count(scan.host) > 0) todo += "  (until then it has none of the servers moved)";
    todo += "\n";
  }
  if (!todo.empty()) out << "Next, so that each host reaches the gateway:\n" << todo;
  out << "Then \"mcpgw doctor\" checks everything.\n";
}

}  // namespace

void PrintPlan(const ImportPlan& plan, const std::string& config_path, const SetupEnv& env,
               std::ostream& out) {
  const std::string file = ShortPath(config_path, env);
  if (plan.add.empty()) {
    out << "Nothing new to add to " << file << ".\n";
  } else {
    out << "Add to " << file << ":\n";
    for (const PlannedServer& s : plan.add) PrintServer(s, '+', env, out);
  }
  if (!plan.present.empty()) {
    out << "Already in " << file << ":\n";
    for (const PlannedServer& s : plan.present) PrintServer(s, '=', env, out);
  }
  if (!plan.skipped.empty()) {
    out << "Skipped:\n";
    for (const SkippedServer& s : plan.skipped) {
      out << "  - " << DisplayName(s.source.name) << "  " << Where(s.source, env) << ": "
          << s.reason << "\n";
    }
  }
  bool todo = false;
  for (const PlannedServer& s : plan.add) {
    for (const std::string& t : s.todo) {
      if (!todo) out << "To do:\n";
      todo = true;
      out << "  ! " << DisplayName(s.name) << ": " << t << "\n";
    }
  }
}

int RunImport(const ImportOptions& options, const SetupEnv& env, const DaemonProbe& daemon,
              std::ostream& out) {
  const std::string path =
      options.config_path.empty() ? DefaultConfigPath(env) : options.config_path;
  const std::vector<Host> hosts =
      options.from.empty() ? std::vector<Host>(AllHosts().begin(), AllHosts().end()) : options.from;
  const std::vector<HostScan> scans = ScanHosts(hosts, env);
  int code = 0;
  std::vector<HostRead> reads;
  for (const HostScan& scan : scans) {
    for (const HostRead& read : scan.reads) {
      if (!read.status.ok()) code = 1;
      reads.push_back(read);
    }
  }
  PrintReads(scans, env, out);
  const base::Result<FileText> read_config = ReadText(path);
  if (!read_config.ok()) {
    out << read_config.message() << "\n";
    return 1;
  }
  const FileText& config = *read_config;
  const base::Result<ImportPlan> planned = MakeImportPlan(reads, config.text, path);
  if (!planned.ok()) {
    out << planned.message()
        << "\nmcpgw import changes nothing until mcp.json is fixed (mcpgwd --check "
        << "shows why)\n";
    return 1;
  }
  const ImportPlan& plan = *planned;
  PrintPlan(plan, path, env, out);
  if (options.dry_run) {
    out << "Dry run: no file was changed.\n";
    return code;
  }
  const std::string stamp = BackupStamp();
  if (!plan.add.empty()) {
    std::string text = config.text;
    const std::string servers = ServersObject(text);
    for (const PlannedServer& s : plan.add) {
      rapidjson::Document entry;
      EntryJson(s, entry);
      base::Result<std::string> edited = SetMember(text, {servers}, s.name, entry);
      if (!edited.ok()) {
        out << path << ": " << edited.message() << "; nothing was written\n";
        return 1;
      }
      text = *std::move(edited);
    }
    if (!config.exists()) MakeFolders(path);
    // mcp.json holds what the hosts held: literal header and env values (API keys). It is
    // the daemon's private file: 0600, and so is its backup.
    FileText before = config;
    before.mode = 0600;
    const base::Result<std::string> backup = ReplaceText(before, text, stamp);
    if (!backup.ok()) {
      out << backup.message() << "\n";
      return 1;
    }
    out << "Wrote " << ShortPath(path, env);
    if (!backup->empty()) out << " (backup: " << ShortPath(*backup, env) << ")";
    out << ".\n";
    if (config.exists() && (config.mode & 077) != 0) {
      out << "  " << ShortPath(path, env) << " was open to other users (mode " << Octal(config.mode)
          << "); it is now 0600, as it holds the servers' keys\n";
    }
    if (path == DefaultConfigPath(env)) KeepFolderPrivate(path, env, out);
    ReportDaemon(daemon, path, plan.add, out);
  }
  std::set<Host> moved;
  if (options.move && !(plan.add.empty() && plan.present.empty())) {
    out << "Moved out of the hosts' files:\n";
    if (!Move(plan, scans, stamp, env, moved, out)) code = 1;
  }
  PrintNext(scans, moved, out);
  return code;
}

}  // namespace mcpgw::setup
