// What a host file holds: each server it names, read without contacting any (docs/SETUP.md).
// A remote server comes with its url and headers, a local one with its command, args, env
// and cwd, as the host wrote them (in the host's own variable forms; variables.h rewrites
// them); one switched off (`disabled`, `enabled = false`, Claude Code's and Gemini CLI's own
// lists) or one mcpgw cannot serve is listed with the reason. Header and env values are
// secrets: they are carried to the new mcp.json, never printed. Driven by the import plan
// and `mcpgw hosts`. Pure.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "client/setup/file_io.h"
#include "client/setup/hosts.h"

namespace mcpgw::setup {

struct HostHeader {
  std::string name;
  std::string value;      // a secret
  bool host_form = true;  // in the host's variable forms; false: already mcpgw's (Codex)
};

// One variable of a local server's environment.
struct HostEnvVar {
  std::string name;
  std::string value;      // a secret
  bool host_form = true;  // in the host's variable forms; false: already mcpgw's (Codex)
};

struct FoundServer {
  enum class Kind { kRemote, kLocal, kOff, kUnusable };
  Host host = Host::kCursor;
  std::string file;
  std::string project;  // the project folder the entry belongs to; "" for the user's own
  std::string name;
  Kind kind = Kind::kUnusable;
  std::string reason;  // kOff, kUnusable: why it is not imported (no values)
  std::string url;     // kRemote: as written
  std::vector<HostHeader> headers;
  // kLocal: the program and its arguments, environment and folder, as written. `cwd` is
  // empty when the entry names none.
  std::vector<std::string> args;
  std::vector<HostEnvVar> env;
  std::string cwd;
  // kLocal: what the entry says that mcp.json cannot (VS Code's and Cursor's envFile); for
  // the plan's "To do", naming keys only.
  std::vector<std::string> todo;
  // Where the entry is, for removing it: the object holding it (JSON), e.g. {"mcpServers"}
  // or {"projects", "/p", "mcpServers"}; empty for Codex's [mcp_servers.NAME].
  std::vector<std::string> parent;
  // A local entry's command and first argument (also read from entries that are switched
  // off or unusable), for recognising mcpgw's own registration.
  std::string command;
  std::string first_arg;
};

// True when the entry runs mcpgw's stdio bridge (`mcpgw hosts add` registers it): its command
// is a program named mcpgw and its first argument is "stdio", whatever the entry's name. Such
// an entry is how the host reaches the gateway; it is never imported.
bool RunsMcpgw(const FoundServer& server);

// What other files say about a host's servers: Claude Code's per-project lists of switched
// off servers (in ~/.claude.json), Gemini CLI's mcp-server-enablement.json.
struct HostContext {
  std::map<std::string, std::set<std::string>> claude_disabled;       // project → names
  std::map<std::string, std::set<std::string>> claude_disabled_json;  // project → .mcp.json names
  std::set<std::string> gemini_disabled;
};

struct HostRead {
  HostFile file;
  FileText text;        // as read (kMissing when it could not be)
  base::Status status;  // the file is unusable: not JSON/TOML (with line:column), not readable
  std::vector<FoundServer> servers;
  std::map<std::string, std::string> inputs;  // VS Code: input id → its description
  std::vector<std::string> claude_projects;   // ~/.claude.json: the projects it knows
};

// Reads one file's servers from its text as ReadText gave it (an error there makes the read's
// status). A missing file reads as no servers and no error.
HostRead ReadHostServers(const HostFile& file, const base::Result<FileText>& text,
                         const HostContext& context);

// The same for Codex's config.toml (codex_servers.cc); ReadHostServers calls it for TOML.
HostRead ReadCodexServers(const HostFile& file, const base::Result<FileText>& text);

// The context for reading project files: what ~/.claude.json (read as `claude`) and Gemini
// CLI's enablement file (its text, "" when absent) say.
HostContext MakeHostContext(const HostRead* claude, std::string_view gemini_enablement);

// Gemini CLI's list of switched-off servers: ~/.gemini/mcp-server-enablement.json.
std::string GeminiEnablementPath(const SetupEnv& env);

}  // namespace mcpgw::setup
