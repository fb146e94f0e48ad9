#include "client/setup/host_scan.h"

namespace mcpgw::setup {

std::vector<HostScan> ScanHosts(std::span<const Host> hosts, const SetupEnv& env) {
  // What other files say about switched-off servers, read first.
  const HostFile claude_file = UserFile(Host::kClaudeCode, env);
  const HostRead claude = ReadHostServers(claude_file, ReadText(claude_file.path), {});
  const base::Result<FileText> enablement = ReadText(GeminiEnablementPath(env));
  const HostContext context =
      MakeHostContext(&claude, enablement.ok() && enablement->exists() ? enablement->text : "");

  std::vector<HostScan> scans;
  for (Host host : hosts) {
    HostScan scan;
    scan.host = host;
    scan.installed = IsDirectory(HostFolder(host, env));
    const std::vector<std::string> projects =
        host == Host::kClaudeCode ? claude.claude_projects : std::vector<std::string>{};
    for (const HostFile& file : ImportFiles(host, env, projects)) {
      const base::Result<FileText> text = ReadText(file.path);
      if (!file.project.empty() && text.ok() && !text->exists()) {
        continue;  // a project without its own file: nothing to say
      }
      scan.reads.push_back(ReadHostServers(file, text, context));
    }
    scans.push_back(std::move(scan));
  }
  return scans;
}

std::string DefaultConfigPath(const SetupEnv& env) {
  if (auto xdg = env.Env("XDG_CONFIG_HOME")) return *xdg + "/mcpgw/mcp.json";
  return env.home + "/.config/mcpgw/mcp.json";
}

}  // namespace mcpgw::setup
