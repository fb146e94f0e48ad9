// Codex's servers: the [mcp_servers.NAME] tables of config.toml, read with toml++: remote
// ones (url) and local ones (command, args, env, env_vars, cwd). Codex has no variables
// inside strings; a header from the environment is written as
// `bearer_token_env_var = "VAR"` (Authorization: Bearer ...) or `env_http_headers`
// (header = "VAR"), which become ${env:VAR} here. `http_headers` are literal values.
#include <algorithm>

#include <toml++/toml.h>

#include "client/setup/host_servers.h"
#include "client/setup/toml_edit.h"

namespace mcpgw::setup {
namespace {

// A local server's command, args, env, env_vars and cwd into `s`; "" when they can be
// carried to mcp.json, else why not (naming keys, never values). Codex expands no variables:
// its values are literal. `env_vars` names variables Codex passes on from its own
// environment; each becomes NAME = ${env:NAME}.
std::string ReadCodexLocal(const toml::table& t, FoundServer& s) {
  const auto* command = t.get_as<std::string>("command");
  if (command == nullptr) return "\"command\" is not a string";
  if (command->get().empty()) return "\"command\" is empty";
  if (const toml::node* args = t.get("args")) {
    const toml::array* list = args->as_array();
    if (list == nullptr) return "\"args\" is not an array";
    for (const toml::node& arg : *list) {
      const auto* text = arg.as_string();
      if (text == nullptr) return "args[" + std::to_string(s.args.size()) + "] is not a string";
      s.args.push_back(text->get());
    }
  }
  if (const toml::node* env = t.get("env")) {
    const toml::table* table = env->as_table();
    if (table == nullptr) return "\"env\" is not a table";
    for (const auto& [key, value] : *table) {
      const auto* text = value.as_string();
      if (text == nullptr) return "env." + std::string(key.str()) + " is not a string";
      s.env.push_back({std::string(key.str()), text->get(), false});
    }
  }
  if (const toml::node* vars = t.get("env_vars")) {
    const toml::array* list = vars->as_array();
    if (list == nullptr) return "\"env_vars\" is not an array";
    for (const toml::node& var : *list) {
      const auto* name = var.as_string();
      if (name == nullptr) return "env_vars holds a value that is not a string";
      const bool set = std::any_of(s.env.begin(), s.env.end(),
                                   [&](const HostEnvVar& v) { return v.name == name->get(); });
      if (!set) s.env.push_back({name->get(), "${env:" + name->get() + "}", false});
    }
  }
  if (const toml::node* cwd = t.get("cwd")) {
    const auto* text = cwd->as_string();
    if (text == nullptr) return "\"cwd\" is not a string";
    s.cwd = text->get();
  }
  return "";
}

FoundServer ClassifyCodex(const HostFile& file, const std::string& name, const toml::node& node) {
  FoundServer s;
  s.host = file.host;
  s.file = file.path;
  s.project = file.project;
  s.name = name;
  const toml::table* t = node.as_table();
  if (t == nullptr) {
    s.reason = "the entry is not a table";
    return s;
  }
  s.command = t->get_as<std::string>("command") ? **t->get_as<std::string>("command") : "";
  if (const toml::array* args = t->get_as<toml::array>("args"); args && !args->empty()) {
    if (const auto* first = args->get(0)->as_string()) s.first_arg = first->get();
  }
  if (const auto* enabled = t->get_as<bool>("enabled"); enabled && !enabled->get()) {
    s.kind = FoundServer::Kind::kOff;
    s.reason = "switched off in codex (enabled = false)";
    return s;
  }
  if (t->contains("command")) {
    if (t->contains("url")) {
      s.reason = "the entry has both \"url\" and \"command\"";
      return s;
    }
    s.reason = ReadCodexLocal(*t, s);
    if (s.reason.empty()) s.kind = FoundServer::Kind::kLocal;
    return s;
  }
  const auto* url = t->get_as<std::string>("url");
  if (url == nullptr) {
    s.reason = t->contains("url") ? "\"url\" is not a string"
                                  : "the entry has neither a url nor a command";
    return s;
  }
  s.url = url->get();
  if (t->contains("bearer_token")) {
    s.reason =
        "bearer_token is written in the file, which codex refuses; use "
        "bearer_token_env_var";
    return s;
  }
  if (const auto* var = t->get_as<std::string>("bearer_token_env_var")) {
    s.headers.push_back({"Authorization", "Bearer ${env:" + var->get() + "}", false});
  }
  if (const toml::table* literal = t->get_as<toml::table>("http_headers")) {
    for (const auto& [key, value] : *literal) {
      if (!value.is_string()) {
        s.reason = "http_headers." + std::string(key.str()) + " is not a string";
        return s;
      }
      s.headers.push_back({std::string(key.str()), *value.value<std::string>(), false});
    }
  }
  if (const toml::table* from_env = t->get_as<toml::table>("env_http_headers")) {
    for (const auto& [key, value] : *from_env) {
      if (!value.is_string()) {
        s.reason = "env_http_headers." + std::string(key.str()) + " is not a string";
        return s;
      }
      s.headers.push_back(
          {std::string(key.str()), "${env:" + *value.value<std::string>() + "}", false});
    }
  }
  s.kind = FoundServer::Kind::kRemote;
  return s;
}

}  // namespace

HostRead ReadCodexServers(const HostFile& file, const base::Result<FileText>& text) {
  HostRead read;
  read.file = file;
  read.text.path = file.path;
  if (!text.ok()) {
    read.status = text.status();
    return read;
  }
  read.text = *text;
  if (!read.text.exists()) return read;
  read.status = CheckToml(read.text.text, file.path);
  if (!read.status.ok()) return read;
  const toml::table doc = toml::parse(read.text.text, file.path);
  const toml::table* servers = doc["mcp_servers"].as_table();
  if (servers == nullptr) return read;
  for (const auto& [key, node] : *servers) {
    read.servers.push_back(ClassifyCodex(file, std::string(key.str()), node));
  }
  return read;
}

}  // namespace mcpgw::setup
