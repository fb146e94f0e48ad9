#include "client/setup/registration.h"

#include <rapidjson/document.h>

#include "client/setup/json_edit.h"
#include "client/setup/toml_edit.h"

namespace mcpgw::setup {
namespace {

using rapidjson::Value;

base::Status Refused(std::string message) { return base::InvalidInput(std::move(message)); }

// The file as it was read could not be used: nothing is edited.
base::Status Unusable(const HostRead& read) {
  return base::Status(read.status.kind(), read.status.message() + "; left alone");
}

HostEdit Unchanged(std::string message) {
  HostEdit edit;
  edit.message = std::move(message);
  return edit;
}

HostEdit Changed(std::string text) {
  HostEdit edit;
  edit.changed = true;
  edit.text = std::move(text);
  return edit;
}

// The entry in the host's own form: what the host's own `mcp add` writes.
void EntryFor(Host host, const std::string& path, rapidjson::Document& doc) {
  auto& alloc = doc.GetAllocator();
  doc.SetObject();
  if (host == Host::kClaudeCode || host == Host::kVsCode) doc.AddMember("type", "stdio", alloc);
  doc.AddMember("command", Value(path.c_str(), alloc), alloc);
  Value args(rapidjson::kArrayType);
  args.PushBack("stdio", alloc);
  doc.AddMember("args", args, alloc);
  if (host == Host::kClaudeCode) doc.AddMember("env", Value(rapidjson::kObjectType), alloc);
}

const FoundServer* Named(const HostRead& read, std::string_view name) {
  for (const FoundServer& s : read.servers) {
    if (s.name == name && s.parent.size() <= 1) return &s;
  }
  return nullptr;
}

}  // namespace

std::vector<const FoundServer*> Registrations(const HostRead& read) {
  std::vector<const FoundServer*> found;
  for (const FoundServer& s : read.servers) {
    if (RunsMcpgw(s) && s.project.empty()) found.push_back(&s);
  }
  return found;
}

base::Result<HostEdit> AddRegistration(const HostRead& read, const std::string& mcpgw_path) {
  if (!read.status.ok()) return Unusable(read);
  // Registered under a name of the user's own: that is enough.
  for (const FoundServer* s : Registrations(read)) {
    if (s->name != kEntryName && s->command == mcpgw_path) {
      return Unchanged("already runs " + mcpgw_path + " stdio as \"" + s->name + "\"");
    }
  }
  if (const FoundServer* existing = Named(read, kEntryName)) {
    if (!RunsMcpgw(*existing)) {
      return Refused(
          "an entry named \"mcpgw\" is there and runs something else; rename or "
          "remove it first");
    }
    if (existing->command == mcpgw_path && existing->kind == FoundServer::Kind::kLocal) {
      return Unchanged("already runs " + mcpgw_path + " stdio");
    }
  }
  const std::string& text = read.text.text;
  if (read.file.format == Format::kToml) {
    base::Result<std::string> edited = SetServerTable(
        text, kEntryName, {{"command", TomlString(mcpgw_path)}, {"args", "[\"stdio\"]"}});
    if (!edited.ok()) return edited.status();
    return Changed(*std::move(edited));
  }
  rapidjson::Document entry;
  EntryFor(read.file.host, mcpgw_path, entry);
  base::Result<std::string> edited =
      SetMember(text, {std::string(ServersKey(read.file.host))}, kEntryName, entry);
  if (!edited.ok()) return edited.status();
  return Changed(*std::move(edited));
}

base::Result<HostEdit> RemoveRegistration(const HostRead& read) {
  if (!read.status.ok()) return Unusable(read);
  std::vector<std::pair<std::vector<std::string>, std::string>> entries;
  for (const FoundServer* s : Registrations(read)) entries.emplace_back(s->parent, s->name);
  if (entries.empty()) return Unchanged("does not run mcpgw");
  return RemoveEntries(read, entries);
}

base::Result<HostEdit> RemoveEntries(
    const HostRead& read,
    const std::vector<std::pair<std::vector<std::string>, std::string>>& entries) {
  if (!read.status.ok()) return Unusable(read);
  std::string text = read.text.text;
  for (const auto& [parent, name] : entries) {
    base::Result<std::string> edited = read.file.format == Format::kToml
                                           ? RemoveServerTable(text, name)
                                           : RemoveMember(text, parent, name);
    if (!edited.ok()) return edited.status();
    text = *std::move(edited);
  }
  if (text == read.text.text) return Unchanged("nothing to remove");
  return Changed(std::move(text));
}

}  // namespace mcpgw::setup
