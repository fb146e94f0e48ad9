#include "client/setup/import_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/text.h"
#include "client/setup/variables.h"
#include "config/config.h"
#include "config/document.h"
#include "config/entry.h"

namespace mcpgw::setup {
namespace {

using rapidjson::Value;

// What makes two entries the same server: the url and the headers (names in any case).
std::string Identity(const std::string& url,
                     const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : headers) parts.push_back(base::ToLowerAscii(name) + ":" + value);
  std::sort(parts.begin(), parts.end());
  std::string key = url;
  for (const std::string& p : parts) key += '\n' + p;
  return key;
}

// What makes two local entries the same server: the command, the arguments in order, the
// environment (names and values, in any order) and the folder.
std::string LocalIdentity(const std::string& command, const std::vector<std::string>& args,
                          const std::vector<std::pair<std::string, std::string>>& env,
                          const std::string& cwd) {
  std::string key = "command\n" + command;
  for (const std::string& arg : args) key += '\0' + arg;
  std::vector<std::string> vars;
  for (const auto& [name, value] : env) vars.push_back(name + "=" + value);
  std::sort(vars.begin(), vars.end());
  key += "\nenv";
  for (const std::string& v : vars) key += '\0' + v;
  return key + "\ncwd\n" + cwd;
}

std::string IdentityOf(const PlannedServer& s) {
  return s.local ? LocalIdentity(s.command, s.args, s.env, s.cwd) : Identity(s.url, s.headers);
}

// An existing local entry's identity, "" when its fields are not what import writes.
std::string ExistingLocal(const Value& entry) {
  const Value* command = config::FindLast(entry, "command");
  if (command == nullptr || !command->IsString()) return "";
  std::vector<std::string> args;
  if (const Value* a = config::FindLast(entry, "args"); a != nullptr && a->IsArray()) {
    for (const Value& arg : a->GetArray()) {
      if (!arg.IsString()) return "";
      args.emplace_back(config::StringOf(arg));
    }
  }
  std::vector<std::pair<std::string, std::string>> env;
  if (const Value* e = config::FindLast(entry, "env"); e != nullptr && e->IsObject()) {
    for (const auto& m : e->GetObject()) {
      if (!m.value.IsString()) return "";
      env.emplace_back(config::StringOf(m.name), config::StringOf(m.value));
    }
  }
  std::string cwd;
  if (const Value* c = config::FindLast(entry, "cwd"); c != nullptr && c->IsString()) {
    cwd = config::StringOf(*c);
  }
  return LocalIdentity(std::string(config::StringOf(*command)), args, env, cwd);
}

struct Existing {
  std::string name;
  std::string identity;
};

// mcp.json's entries as written (nothing interpolated).
base::Status ReadExisting(const std::string& text, const std::string& path,
                          std::vector<Existing>& out) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return base::Status();
  rapidjson::Document doc;
  if (base::Status parsed = config::ParseJsonDocument(text, path, doc); !parsed.ok()) {
    return parsed;
  }
  if (!doc.IsObject()) return base::InvalidInput(path + ": the top level is not an object");
  const Value* servers = config::FindLast(doc, "mcpServers");
  if (servers == nullptr) servers = config::FindLast(doc, "servers");
  if (servers == nullptr || servers->IsNull()) return base::Status();
  if (!servers->IsObject()) {
    return base::InvalidInput(path + ": \"mcpServers\" is not an object");
  }
  for (const auto& m : servers->GetObject()) {
    Existing e{std::string(config::StringOf(m.name)), ""};
    if (m.value.IsObject() && config::FindLast(m.value, "command") != nullptr) {
      e.identity = ExistingLocal(m.value);
    } else if (m.value.IsObject()) {
      std::string url;
      for (const char* k : {"url", "serverUrl", "httpUrl"}) {
        const Value* v = config::FindLast(m.value, k);
        if (v != nullptr && v->IsString()) url = config::StringOf(*v);
      }
      std::vector<std::pair<std::string, std::string>> headers;
      const Value* h = config::FindLast(m.value, "headers");
      if (h != nullptr && h->IsObject()) {
        for (const auto& hm : h->GetObject()) {
          if (hm.value.IsString()) {
            headers.emplace_back(config::StringOf(hm.name), config::StringOf(hm.value));
          }
        }
      }
      if (!url.empty()) e.identity = Identity(url, headers);
    }
    out.push_back(std::move(e));
  }
  return base::Status();
}

Source SourceOf(const FoundServer& s) { return {s.host, s.file, s.project, s.name, s.parent}; }

// Ok when mcpgwd would take the entry, else the reason it would refuse it. Every variable
// reads as set: whether it is set for the daemon is for `mcpgw doctor` to say.
base::Status Acceptable(const PlannedServer& server) {
  rapidjson::Document entry;
  EntryJson(server, entry);
  config::ParseEnv env;
  env.get_env = [](std::string_view) { return std::optional<std::string>("x"); };
  env.home = "/";
  std::vector<std::string> secrets;
  const config::Entry parsed = config::ParseEntry(server.name, entry, env, secrets);
  return parsed.accepted() ? base::Status() : base::InvalidInput(parsed.refusal);
}

void AddUnique(std::vector<std::string>& list, const std::vector<std::string>& more) {
  for (const std::string& s : more) {
    if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
  }
}

// `text` (the value at `key`) rewritten into mcpgw's forms, its to-dos and variables added
// to `server`'s.
std::string Rewrite(const std::string& key, const std::string& text, const VariableContext& context,
                    PlannedServer& server) {
  Rewritten r = RewriteVariables(text, context);
  for (std::string& t : r.todo) t = key + ": " + t;
  AddUnique(server.todo, r.todo);
  AddUnique(server.variables, r.variables);
  return std::move(r.text);
}

// A local entry in mcp.json's forms. One from a project's file runs in the project's
// folder, where its host starts it (a relative cwd is taken from there).
void ConvertLocal(const FoundServer& found, const VariableContext& context, PlannedServer& server) {
  server.local = true;
  server.command = Rewrite("command", found.command, context, server);
  for (size_t i = 0; i < found.args.size(); ++i) {
    server.args.push_back(
        Rewrite("args[" + std::to_string(i) + "]", found.args[i], context, server));
  }
  for (const HostEnvVar& v : found.env) {
    if (!v.host_form) {  // already mcpgw's form (Codex's literal values, its env_vars)
      server.env.emplace_back(v.name, v.value);
      AddUnique(server.variables,
                RewriteVariables(v.value, {Host::kCursor, "", nullptr}).variables);
      continue;
    }
    server.env.emplace_back(v.name, Rewrite("env." + v.name, v.value, context, server));
  }
  // A relative cwd outside a project stays as written, and mcpgwd refuses it (it must be
  // absolute): the plan skips the entry with that reason.
  std::string cwd = found.cwd.empty() ? "" : Rewrite("cwd", found.cwd, context, server);
  if (!found.project.empty() && cwd.empty()) {
    cwd = found.project;
  } else if (!found.project.empty() && cwd[0] != '/' && cwd.rfind("${", 0) != 0) {
    cwd = found.project + "/" + cwd;
  }
  server.cwd = std::move(cwd);
  AddUnique(server.todo, found.todo);
}

PlannedServer Convert(const FoundServer& found, const HostRead& read) {
  PlannedServer server;
  server.name = found.name;
  const VariableContext context{found.host, found.project, &read.inputs};
  if (found.kind == FoundServer::Kind::kLocal) {
    ConvertLocal(found, context, server);
    server.sources.push_back(SourceOf(found));
    return server;
  }
  Rewritten url = RewriteVariables(found.url, context);
  server.url = url.text;
  server.todo = url.todo;
  server.variables = url.variables;
  for (const HostHeader& h : found.headers) {
    if (!h.host_form) {
      server.headers.emplace_back(h.name, h.value);
      Rewritten plain = RewriteVariables(h.value, {Host::kCursor, "", nullptr});
      AddUnique(server.variables, plain.variables);
      continue;
    }
    Rewritten value = RewriteVariables(h.value, context);
    for (std::string& t : value.todo) t = "headers." + h.name + ": " + t;
    AddUnique(server.todo, value.todo);
    AddUnique(server.variables, value.variables);
    server.headers.emplace_back(h.name, std::move(value.text));
  }
  server.sources.push_back(SourceOf(found));
  return server;
}

std::string FreeName(const std::string& wanted, Host host, const std::set<std::string>& taken) {
  if (!taken.count(wanted)) return wanted;
  const std::string base = wanted + "-" + std::string(HostName(host));
  if (!taken.count(base)) return base;
  for (int n = 2;; ++n) {
    const std::string name = base + "-" + std::to_string(n);
    if (!taken.count(name)) return name;
  }
}

}  // namespace

void EntryJson(const PlannedServer& server, rapidjson::Document& out) {
  auto& alloc = out.GetAllocator();
  out.SetObject();
  if (server.local) {
    out.AddMember("command", Value(server.command.c_str(), alloc), alloc);
    if (!server.args.empty()) {
      Value args(rapidjson::kArrayType);
      for (const std::string& arg : server.args) args.PushBack(Value(arg.c_str(), alloc), alloc);
      out.AddMember("args", args, alloc);
    }
    if (!server.env.empty()) {
      Value env(rapidjson::kObjectType);
      for (const auto& [name, value] : server.env) {
        env.AddMember(Value(name.c_str(), alloc), Value(value.c_str(), alloc), alloc);
      }
      out.AddMember("env", env, alloc);
    }
    if (!server.cwd.empty()) out.AddMember("cwd", Value(server.cwd.c_str(), alloc), alloc);
    return;
  }
  out.AddMember("url", Value(server.url.c_str(), alloc), alloc);
  if (!server.headers.empty()) {
    Value headers(rapidjson::kObjectType);
    for (const auto& [name, value] : server.headers) {
      headers.AddMember(Value(name.c_str(), alloc), Value(value.c_str(), alloc), alloc);
    }
    out.AddMember("headers", headers, alloc);
  }
}

base::Result<ImportPlan> MakeImportPlan(const std::vector<HostRead>& reads,
                                        const std::string& mcpgw_text,
                                        const std::string& mcpgw_path) {
  ImportPlan plan;
  std::vector<Existing> existing;
  if (base::Status read = ReadExisting(mcpgw_text, mcpgw_path, existing); !read.ok()) return read;
  std::set<std::string> taken;
  std::map<std::string, std::string> existing_by_identity;  // identity → its name
  for (const Existing& e : existing) {
    taken.insert(e.name);
    if (!e.identity.empty()) existing_by_identity.emplace(e.identity, e.name);
  }
  std::map<std::string, size_t> added;    // identity → index in plan.add
  std::map<std::string, size_t> present;  // identity → index in plan.present
  for (const HostRead& read : reads) {
    for (const FoundServer& found : read.servers) {
      if (found.kind == FoundServer::Kind::kLocal && RunsMcpgw(found)) {
        plan.skipped.push_back(
            {SourceOf(found), "mcpgw's own entry: the host reaches the gateway through it"});
        continue;
      }
      if (found.kind != FoundServer::Kind::kRemote && found.kind != FoundServer::Kind::kLocal) {
        plan.skipped.push_back({SourceOf(found), found.reason});
        continue;
      }
      PlannedServer server = Convert(found, read);
      if (base::Status acceptable = Acceptable(server); !acceptable.ok()) {
        plan.skipped.push_back({SourceOf(found), "mcpgw would refuse it: " + acceptable.message()});
        continue;
      }
      const std::string identity = IdentityOf(server);
      if (auto it = added.find(identity); it != added.end()) {
        plan.add[it->second].sources.push_back(SourceOf(found));
        continue;
      }
      if (auto it = present.find(identity); it != present.end()) {
        plan.present[it->second].sources.push_back(SourceOf(found));
        continue;
      }
      if (auto it = existing_by_identity.find(identity); it != existing_by_identity.end()) {
        server.name = it->second;
        present.emplace(identity, plan.present.size());
        plan.present.push_back(std::move(server));
        continue;
      }
      const std::string name = FreeName(found.name, found.host, taken);
      if (name != found.name) {
        server.renamed_because = "\"" + found.name + "\" names another server";
        server.name = name;
      }
      taken.insert(name);
      added.emplace(identity, plan.add.size());
      plan.add.push_back(std::move(server));
    }
  }
  return plan;
}

}  // namespace mcpgw::setup
