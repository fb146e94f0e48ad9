// `mcpgw import` decides here (docs/SETUP.md): from what the hosts' files hold and what
// mcpgw's mcp.json already has, which servers (remote and local) to add and under which
// names, which are there already, which are skipped and why, and — with --move — which host
// entries to take out. The same server (url and headers, or command, args, env and cwd,
// after the variable rewrite) found in several hosts is added once; a name already taken by
// a different server gets the host's name as a suffix. mcpgw's own entry in a host (the
// stdio bridge) is never imported. Every added entry is checked the way mcpgwd will read it.
// Pure: no file is read or written here.
#pragma once

#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "base/status.h"
#include "client/setup/host_servers.h"

namespace mcpgw::setup {

// Where a server was found.
struct Source {
  Host host = Host::kCursor;
  std::string file;
  std::string project;
  std::string name;                 // its name there
  std::vector<std::string> parent;  // FoundServer::parent
};

struct PlannedServer {
  std::string name;    // in mcp.json
  bool local = false;  // a local server (command), else a remote one (url)
  std::string url;     // as it will be written (${env:...} forms; may hold a literal url)
  std::vector<std::pair<std::string, std::string>> headers;  // values are secrets
  // A local server, as it will be written: the program, its arguments, its environment
  // (values are secrets) and its folder ("" for none). A server from a project's file runs
  // in that project's folder, as its host runs it.
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;
  std::vector<Source> sources;         // every host entry that is this server
  std::string renamed_because;         // when the name differs from the first source's
  std::vector<std::string> todo;       // what the user must still do (no values)
  std::vector<std::string> variables;  // environment variables it reads
};

struct SkippedServer {
  Source source;
  std::string reason;
};

struct ImportPlan {
  std::vector<PlannedServer> add;      // new entries for mcp.json, in the order found
  std::vector<PlannedServer> present;  // already in mcp.json (name there in .name)
  std::vector<SkippedServer> skipped;
};

// `mcpgw_text` is mcp.json's text ("" when it does not exist yet). An error when mcp.json
// itself cannot be used: nothing can be planned.
base::Result<ImportPlan> MakeImportPlan(const std::vector<HostRead>& reads,
                                        const std::string& mcpgw_text,
                                        const std::string& mcpgw_path);

// The entry written to mcp.json for `server`: {"url": ..., "headers": {...}}, or for a
// local one {"command": ..., "args": [...], "env": {...}, "cwd": ...} (args, env and cwd
// only when there are any).
void EntryJson(const PlannedServer& server, rapidjson::Document& out);

}  // namespace mcpgw::setup
