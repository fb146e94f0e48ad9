// The JSON hosts' readers; Codex's TOML is read in codex_servers.cc.
#include "client/setup/host_servers.h"

#include <algorithm>

#include <rapidjson/document.h>

#include "base/text.h"
#include "config/document.h"

namespace mcpgw::setup {

namespace {

using config::FindLast;
using config::StringOf;
using rapidjson::Value;

bool IsTrue(const Value* v) { return v != nullptr && v->IsBool() && v->GetBool(); }
bool IsFalse(const Value* v) { return v != nullptr && v->IsBool() && !v->GetBool(); }

std::string StringMember(const Value& object, std::string_view key) {
  const Value* v = FindLast(object, key);
  return v != nullptr && v->IsString() ? std::string(StringOf(*v)) : std::string();
}

// The url key of a remote entry: `url`, Windsurf's `serverUrl`, Gemini CLI's `httpUrl`.
const Value* UrlOf(const Value& entry, std::string* key) {
  for (const char* k : {"url", "serverUrl", "httpUrl"}) {
    if (const Value* v = FindLast(entry, k)) {
      *key = k;
      return v;
    }
  }
  return nullptr;
}

bool IsSse(const Value& entry) {
  for (const char* k : {"type", "transport"}) {
    const Value* v = FindLast(entry, k);
    if (v != nullptr && v->IsString() && base::EqualsIgnoreCase(StringOf(*v), "sse")) return true;
  }
  return false;
}

// A local entry's command, args, env and cwd into `s`; "" when they can be carried to
// mcp.json, else why not (naming keys, never values).
std::string ReadLocal(const Value& entry, FoundServer& s) {
  const Value* command = FindLast(entry, "command");
  if (!command->IsString()) {
    return std::string("\"command\" is not a string (it is ") + config::TypeName(*command) + ")";
  }
  if (command->GetStringLength() == 0) return "\"command\" is empty";
  if (const Value* args = FindLast(entry, "args"); args != nullptr && !args->IsNull()) {
    if (!args->IsArray()) return "\"args\" is not an array";
    for (const Value& arg : args->GetArray()) {
      if (!arg.IsString()) {
        return "args[" + std::to_string(s.args.size()) + "] is not a string";
      }
      s.args.emplace_back(StringOf(arg));
    }
  }
  if (const Value* env = FindLast(entry, "env"); env != nullptr && !env->IsNull()) {
    if (!env->IsObject()) return "\"env\" is not an object";
    for (const auto& m : env->GetObject()) {
      const std::string name(StringOf(m.name));
      if (!m.value.IsString()) return "env." + name + " is not a string";
      // A name written twice: the last value holds, in the first one's place, as hosts
      // read JSON.
      auto same = std::find_if(s.env.begin(), s.env.end(),
                               [&](const HostEnvVar& v) { return v.name == name; });
      if (same != s.env.end()) {
        same->value = StringOf(m.value);
      } else {
        s.env.push_back({name, std::string(StringOf(m.value)), true});
      }
    }
  }
  if (const Value* cwd = FindLast(entry, "cwd"); cwd != nullptr && !cwd->IsNull()) {
    if (!cwd->IsString()) return "\"cwd\" is not a string";
    s.cwd = StringOf(*cwd);
  }
  if (const Value* env_file = FindLast(entry, "envFile"); env_file != nullptr) {
    s.todo.push_back(
        "envFile is not read by mcpgw: put the variables it sets in the entry's \"env\" in "
        "mcp.json, or in ~/.config/mcpgw/environment (docs/SERVICE.md)");
  }
  return "";
}

// One entry of a servers object, judged as mcpgw judges an mcp.json entry (docs/CONFIG.md),
// with the reasons said for a person deciding what to move.
FoundServer Classify(const HostFile& file, std::string name, const Value& entry,
                     std::vector<std::string> parent, const std::string& switched_off) {
  FoundServer s;
  s.host = file.host;
  s.file = file.path;
  s.project = file.project;
  s.name = std::move(name);
  s.parent = std::move(parent);
  if (!entry.IsObject()) {
    s.reason = std::string("the entry is not an object (it is ") + config::TypeName(entry) + ")";
    return s;
  }
  s.command = StringMember(entry, "command");
  if (const Value* args = FindLast(entry, "args");
      args != nullptr && args->IsArray() && !args->Empty() && (*args)[0].IsString()) {
    s.first_arg = StringOf((*args)[0]);
  }
  std::string url_key;
  const Value* url = UrlOf(entry, &url_key);
  std::string how = switched_off;
  if (IsTrue(FindLast(entry, "disabled"))) how = "\"disabled\": true";
  if (IsFalse(FindLast(entry, "enabled"))) how = "\"enabled\": false";
  if (!how.empty()) {
    s.kind = FoundServer::Kind::kOff;
    s.reason = "switched off in " + std::string(HostName(file.host)) + " (" + how + ")";
    return s;
  }
  if (FindLast(entry, "command") != nullptr) {
    if (url != nullptr) {
      s.reason = "the entry has both \"" + url_key + "\" and \"command\"";
      return s;
    }
    s.reason = ReadLocal(entry, s);
    if (s.reason.empty()) s.kind = FoundServer::Kind::kLocal;
    return s;
  }
  if (url == nullptr) {
    s.reason = "the entry has neither a url nor a command";
    return s;
  }
  if (!url->IsString()) {
    s.reason = "\"" + url_key + "\" is not a string";
    return s;
  }
  if (IsSse(entry)) {
    s.reason =
        "uses the legacy SSE transport, which mcpgw does not speak; if the server also offers "
        "Streamable HTTP, add its url to mcp.json by hand";
    return s;
  }
  s.url = StringOf(*url);
  if (const Value* headers = FindLast(entry, "headers"); headers != nullptr && !headers->IsNull()) {
    if (!headers->IsObject()) {
      s.reason = "\"headers\" is not an object";
      return s;
    }
    for (const auto& h : headers->GetObject()) {
      if (!h.value.IsString()) {
        s.reason = "headers." + std::string(StringOf(h.name)) + " is not a string";
        return s;
      }
      s.headers.push_back({std::string(StringOf(h.name)), std::string(StringOf(h.value)), true});
    }
  }
  s.kind = FoundServer::Kind::kRemote;
  return s;
}

// How a host compares a name with its lists of switched-off servers: Gemini CLI in lower
// case, without surrounding blanks; Claude Code as written.
std::string ListName(Host host, std::string_view name) {
  if (host != Host::kGemini) return std::string(name);
  const size_t first = name.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos) return "";
  const size_t last = name.find_last_not_of(" \t\n\r");
  return base::ToLowerAscii(name.substr(first, last - first + 1));
}

std::set<std::string> NameList(const Value& object, std::string_view key) {
  std::set<std::string> names;
  const Value* list = FindLast(object, key);
  if (list == nullptr || !list->IsArray()) return names;
  for (const Value& v : list->GetArray()) {
    if (v.IsString()) names.insert(std::string(StringOf(v)));
  }
  return names;
}

void ReadServersObject(HostRead& read, const Value& holder, std::string_view key,
                       std::vector<std::string> parent, const std::set<std::string>& off,
                       const std::string& how) {
  const Value* servers = FindLast(holder, key);
  if (servers == nullptr || !servers->IsObject()) return;
  parent.emplace_back(key);
  for (const auto& m : servers->GetObject()) {
    std::string name(StringOf(m.name));
    const std::string switched_off = off.count(ListName(read.file.host, name)) > 0 ? how : "";
    read.servers.push_back(Classify(read.file, std::move(name), m.value, parent, switched_off));
  }
}

void ReadClaudeJson(HostRead& read, const Value& root) {
  ReadServersObject(read, root, "mcpServers", {}, {}, "");
  const Value* projects = FindLast(root, "projects");
  if (projects == nullptr || !projects->IsObject()) return;
  for (const auto& p : projects->GetObject()) {
    const std::string dir(StringOf(p.name));
    read.claude_projects.push_back(dir);
    if (!p.value.IsObject()) continue;
    HostFile scoped = read.file;
    scoped.project = dir;
    HostRead part;
    part.file = scoped;
    ReadServersObject(part, p.value, "mcpServers", {"projects", dir},
                      NameList(p.value, "disabledMcpServers"), "the project's disabledMcpServers");
    for (FoundServer& s : part.servers) read.servers.push_back(std::move(s));
  }
}

void ReadVsCodeInputs(HostRead& read, const Value& root) {
  const Value* inputs = FindLast(root, "inputs");
  if (inputs == nullptr || !inputs->IsArray()) return;
  for (const Value& input : inputs->GetArray()) {
    if (!input.IsObject()) continue;
    const std::string id = StringMember(input, "id");
    if (!id.empty()) read.inputs[id] = StringMember(input, "description");
  }
}

}  // namespace

HostRead ReadHostServers(const HostFile& file, const base::Result<FileText>& text,
                         const HostContext& context) {
  if (file.format == Format::kToml) return ReadCodexServers(file, text);
  HostRead read;
  read.file = file;
  read.text.path = file.path;
  if (!text.ok()) {
    read.status = text.status();
    return read;
  }
  read.text = *text;
  if (!read.text.exists()) return read;
  rapidjson::Document doc;
  read.status = config::ParseJsonDocument(read.text.text, file.path, doc);
  if (!read.status.ok()) return read;
  if (!doc.IsObject()) {
    read.status = base::InvalidInput(file.path + ": the top level is not an object");
    return read;
  }
  const bool claude_json = file.host == Host::kClaudeCode && file.project.empty();
  if (claude_json) {
    ReadClaudeJson(read, doc);
    return read;
  }
  std::set<std::string> off;
  std::string how;
  if (file.host == Host::kClaudeCode) {
    auto it = context.claude_disabled_json.find(file.project);
    if (it != context.claude_disabled_json.end()) off = it->second;
    how = "disabledMcpjsonServers in ~/.claude.json";
  } else if (file.host == Host::kGemini) {
    off = context.gemini_disabled;
    if (const Value* mcp = FindLast(doc, "mcp"); mcp != nullptr && mcp->IsObject()) {
      for (const std::string& name : NameList(*mcp, "excluded")) {
        off.insert(ListName(Host::kGemini, name));
      }
    }
    how = "gemini mcp disable, or mcp.excluded";
  }
  ReadServersObject(read, doc, ServersKey(file.host), {}, off, how);
  if (file.host == Host::kVsCode) ReadVsCodeInputs(read, doc);
  return read;
}

bool RunsMcpgw(const FoundServer& s) {
  if (s.command.empty() || s.first_arg != "stdio") return false;
  const size_t slash = s.command.rfind('/');
  const std::string base = slash == std::string::npos ? s.command : s.command.substr(slash + 1);
  return base == "mcpgw";
}

HostContext MakeHostContext(const HostRead* claude, std::string_view gemini_enablement) {
  HostContext context;
  if (claude != nullptr && claude->text.exists()) {
    rapidjson::Document doc;
    if (config::ParseJsonDocument(claude->text.text, claude->file.path, doc).ok() &&
        doc.IsObject()) {
      if (const Value* projects = FindLast(doc, "projects");
          projects != nullptr && projects->IsObject()) {
        for (const auto& p : projects->GetObject()) {
          if (!p.value.IsObject()) continue;
          const std::string dir(StringOf(p.name));
          context.claude_disabled[dir] = NameList(p.value, "disabledMcpServers");
          context.claude_disabled_json[dir] = NameList(p.value, "disabledMcpjsonServers");
        }
      }
    }
  }
  rapidjson::Document enablement;
  if (!gemini_enablement.empty() &&
      config::ParseJsonDocument(gemini_enablement, "", enablement).ok() && enablement.IsObject()) {
    for (const auto& m : enablement.GetObject()) {
      if (m.value.IsObject() && IsFalse(FindLast(m.value, "enabled"))) {
        context.gemini_disabled.insert(ListName(Host::kGemini, StringOf(m.name)));
      }
    }
  }
  return context;
}

std::string GeminiEnablementPath(const SetupEnv& env) {
  const std::string home = env.Env("GEMINI_CLI_HOME").value_or(env.home);
  return home + "/.gemini/mcp-server-enablement.json";
}

}  // namespace mcpgw::setup
