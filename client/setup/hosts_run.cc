#include "client/setup/hosts_run.h"

#include <ostream>

#include "client/setup/file_io.h"
#include "client/setup/host_scan.h"
#include "client/setup/registration.h"
#include "config/display.h"

namespace mcpgw::setup {
namespace {

std::string Describe(const FoundServer& s) {
  return "runs mcpgw as " + config::DisplayName(s.name) + " (" + s.command + " stdio)";
}

// The user file, or why it cannot be edited.
const HostRead* Editable(const HostScan& scan, const SetupEnv& env, std::ostream& out) {
  const HostRead& read = scan.reads.front();
  const std::string name(HostName(scan.host));
  if (!read.status.ok()) {
    out << name << ": " << read.status.message() << "; left alone\n";
    return nullptr;
  }
  if (!read.text.exists() && !scan.installed) {
    out << name << ": not installed here (no " << ShortPath(HostFolder(scan.host, env), env)
        << "); nothing was written\n";
    return nullptr;
  }
  if (read.text.read_only) {
    out << name << ": " << ShortPath(read.file.path, env) << " is read-only; left alone\n";
    return nullptr;
  }
  return &read;
}

int Apply(const HostScan& scan, const HostRead& read, const base::Result<HostEdit>& edit,
          const char* done, const SetupEnv& env, std::ostream& out) {
  const std::string name(HostName(scan.host));
  const std::string file = ShortPath(read.file.path, env);
  if (!edit.ok()) {
    out << name << ": " << file << ": " << edit.message() << "; left alone\n";
    return 1;
  }
  if (!edit->changed) {
    out << name << ": " << file << " " << edit->message << "; nothing to do\n";
    return 0;
  }
  const base::Result<std::string> backup = ReplaceText(read.text, edit->text, BackupStamp());
  if (!backup.ok()) {
    out << name << ": " << backup.message() << "\n";
    return 1;
  }
  out << name << ": " << done << " " << file;
  if (!backup->empty()) out << " (backup: " << ShortPath(*backup, env) << ")";
  out << "\n";
  return 0;
}

}  // namespace

int RunHostsList(const SetupEnv& env, std::ostream& out) {
  for (const HostScan& scan : ScanHosts(AllHosts(), env)) {
    const HostRead& read = scan.reads.front();
    std::string name(HostName(scan.host));
    name.resize(16, ' ');
    out << name << ShortPath(read.file.path, env) << ": ";
    if (!read.status.ok()) {
      out << read.status.message() << "\n";
    } else if (!read.text.exists()) {
      out << (scan.installed ? "no file yet; \"mcpgw hosts add " +
                                   std::string(HostName(scan.host)) + "\" makes one"
                             : std::string("not installed"))
          << "\n";
    } else if (const auto regs = Registrations(read); !regs.empty()) {
      out << Describe(*regs.front()) << "\n";
    } else {
      out << "does not run mcpgw; \"mcpgw hosts add " << HostName(scan.host) << "\" registers it\n";
    }
  }
  return 0;
}

int RunHostsAdd(Host host, const std::string& mcpgw_path, const SetupEnv& env, std::ostream& out) {
  const Host hosts[] = {host};
  const std::vector<HostScan> scans = ScanHosts(hosts, env);
  const HostRead* read = Editable(scans.front(), env, out);
  if (read == nullptr) return 1;
  return Apply(scans.front(), *read, AddRegistration(*read, mcpgw_path),
               ("registered " + mcpgw_path + " stdio in").c_str(), env, out);
}

int RunHostsRemove(Host host, const SetupEnv& env, std::ostream& out) {
  const Host hosts[] = {host};
  const std::vector<HostScan> scans = ScanHosts(hosts, env);
  const HostRead& read = scans.front().reads.front();
  if (!read.text.exists() && read.status.ok()) {
    out << HostName(host) << ": " << ShortPath(read.file.path, env)
        << " does not exist; nothing to do\n";
    return 0;
  }
  const HostRead* editable = Editable(scans.front(), env, out);
  if (editable == nullptr) return 1;
  return Apply(scans.front(), *editable, RemoveRegistration(*editable), "took mcpgw out of", env,
               out);
}

}  // namespace mcpgw::setup
