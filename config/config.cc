#include "config/config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "config/document.h"
#include "config/entry.h"

namespace mcpgw::config {
namespace {

using rapidjson::Value;

// Servers in file order; a repeated name keeps its first position and its
// last value, as JSON.parse does.
std::vector<std::pair<std::string, const Value*>> UniqueServers(const Value& servers) {
  std::vector<std::pair<std::string, const Value*>> order;
  std::unordered_map<std::string, size_t> index;
  for (const auto& member : servers.GetObject()) {
    std::string name(StringOf(member.name));
    auto [it, inserted] = index.emplace(name, order.size());
    if (inserted) {
      order.emplace_back(std::move(name), &member.value);
    } else {
      order[it->second].second = &member.value;
    }
  }
  return order;
}

std::vector<Secret> UniqueSecrets(std::vector<std::string> values) {
  std::vector<Secret> secrets;
  std::unordered_set<std::string> seen;
  for (std::string& value : values) {
    if (value.empty() || !seen.insert(value).second) continue;
    secrets.emplace_back(std::move(value));
  }
  return secrets;
}

std::string ErrnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

base::Status Unreadable(const std::string& path, int err) {
  return base::Status(err == ENOENT ? base::ErrorKind::kNotFound : base::ErrorKind::kIo,
                      "cannot read " + path + ": " + ErrnoText(err));
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Reads at most kMaxConfigBytes + 1 bytes, so an oversized file is caught by
// the size check without reading all of it.
base::Status ReadFile(const std::string& path, std::string& text) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) return Unreadable(path, errno);
  char buf[65536];
  while (text.size() <= kMaxConfigBytes) {
    size_t n = std::fread(buf, 1, sizeof buf, file.get());
    text.append(buf, n);
    if (n < sizeof buf) break;
  }
  if (std::ferror(file.get())) return Unreadable(path, errno);
  return base::Status();
}

}  // namespace

ParseResult Parse(std::string_view text, std::string_view path, const ParseEnv& env) {
  rapidjson::Document doc;
  if (base::Status parsed = ParseJsonDocument(text, path, doc); !parsed.ok()) return parsed;
  if (!doc.IsObject()) {
    return base::InvalidInput(std::string(path) + ": the top level must be a JSON object (got " +
                              TypeName(doc) + ")");
  }
  Config config;
  // `mcpServers`; VS Code's `servers` only when `mcpServers` is absent.
  const char* key = "mcpServers";
  const Value* servers = FindLast(doc, key);
  const Value* vscode = FindLast(doc, "servers");
  if (servers == nullptr && vscode != nullptr) {
    key = "servers";
    servers = vscode;
  } else if (servers != nullptr && vscode != nullptr) {
    config.notes.push_back({"\"servers\" is ignored: \"mcpServers\" is present"});
  }
  if (servers == nullptr || servers->IsNull()) return config;
  if (!servers->IsObject()) {
    return base::InvalidInput(std::string(path) + ": \"" + key + "\" must be an object (got " +
                              TypeName(*servers) + ")");
  }
  std::vector<std::string> secrets;
  for (auto& [name, value] : UniqueServers(*servers)) {
    config.entries.push_back(ParseEntry(std::move(name), *value, env, secrets));
  }
  config.secrets = UniqueSecrets(std::move(secrets));
  return config;
}

ParseResult ParseFile(const std::string& path, const ParseEnv& env) {
  std::string text;
  if (base::Status read = ReadFile(path, text); !read.ok()) return read;
  ParseResult parsed = Parse(text, path, env);
  struct stat st {};
  if (parsed.ok() && stat(path.c_str(), &st) == 0) {
    RefuseLocalUnlessPrivate(*parsed, path, st.st_uid, st.st_mode, getuid());
  }
  return parsed;
}

}  // namespace mcpgw::config

namespace mcpgw::config {

void RefuseLocalUnlessPrivate(Config& config, std::string_view path, unsigned uid, unsigned mode,
                              unsigned own_uid) {
  std::string reason;
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", mode & 07777u);
  if (uid != own_uid) {
    reason = "local servers run only from an mcp.json you own; " + std::string(path) +
             " belongs to another user (uid " + std::to_string(uid) + ")";
  } else if ((mode & 022u) != 0) {
    reason = "local servers run only from an mcp.json no one else can write; " + std::string(path) +
             " has mode " + octal + " (chmod go-w " + std::string(path) + ")";
  } else {
    return;
  }
  for (Entry& entry : config.entries) {
    if (entry.local) entry.Refuse(reason);
  }
}

void RefuseLocal(Config& config) {
  for (Entry& entry : config.entries) {
    if (entry.local) entry.Refuse(std::string(kLocalRefusal));
  }
}

}  // namespace mcpgw::config
