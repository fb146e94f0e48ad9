#include "daemon/auth/store.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/bounded_json.h"
#include "base/sha256.h"
#include "daemon/auth/pkce.h"

namespace mcpgw::auth {
namespace {

constexpr int kFormatVersion = 1;
constexpr size_t kMaxFileBytes = 256u << 10;

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Put(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

std::string Get(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::optional<int64_t> GetInt(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsInt64()) return std::nullopt;
  return it->value.GetInt64();
}

void PutClient(Writer& w, const ClientIdentity& c) {
  Put(w, "source", ClientSourceName(c.source));
  Put(w, "client_id", c.client_id);
  Put(w, "client_secret", c.client_secret.Reveal());
  Put(w, "auth_method", c.auth_method);
  Put(w, "redirect_uri", c.redirect_uri);
  Put(w, "issuer", c.issuer);
}

ClientIdentity GetClient(const rapidjson::Value& obj) {
  ClientIdentity c;
  const std::string source = Get(obj, "source");
  c.source = source == "configured"          ? ClientSource::kConfigured
             : source == "metadata document" ? ClientSource::kMetadataDocument
                                             : ClientSource::kRegistered;
  c.client_id = Get(obj, "client_id");
  c.client_secret = Secret(Get(obj, "client_secret"));
  c.auth_method = Get(obj, "auth_method");
  c.redirect_uri = Get(obj, "redirect_uri");
  c.issuer = Get(obj, "issuer");
  return c;
}

base::Status Damaged(const std::string& path) {
  return base::InvalidInput(path +
                            " is damaged or not mcpgw's; delete it (mcpgw logout) to start over");
}

}  // namespace

TokenStore::TokenStore(Env* env, std::string dir) : env_(env), dir_(std::move(dir)) {}

std::string TokenStore::GrantPath(std::string_view server_url) const {
  return dir_ + "/server-" + base::Sha256Hex(server_url).substr(0, 32) + ".json";
}

std::string TokenStore::ClientPath(std::string_view issuer) const {
  return dir_ + "/client-" + base::Sha256Hex(issuer).substr(0, 32) + ".json";
}

base::Status TokenStore::EnsureDir() {
  base::Status made = env_->CreateDir(dir_, 0700);
  if (made.ok()) return made;
  return base::Status(made.kind(), made.message() + "; refusing to keep tokens there");
}

base::Status TokenStore::WriteAtomically(const std::string& path, const std::string& text) {
  if (base::Status dir = EnsureDir(); !dir.ok()) return dir;
  return env_->WriteFileAtomically(path, text, 0600);
}

// Reads `path` into a JSON object whose "key" is `key`; nullopt when the file
// does not exist.
base::Result<std::optional<rapidjson::Document>> TokenStore::ReadDocument(
    const std::string& path, const std::string& key) const {
  if (!env_->FileExists(path)) return std::optional<rapidjson::Document>();
  base::Result<std::string> text = env_->ReadPrivateFile(path, kMaxFileBytes);
  if (!text.ok()) return std::move(text).status();
  rapidjson::Document doc;
  if (!base::ParseBoundedJson(*text, {kMaxFileBytes, 16}, doc).ok() || !doc.IsObject() ||
      Get(doc, "key") != key) {
    return Damaged(path);
  }
  return std::optional<rapidjson::Document>(std::move(doc));
}

base::Result<std::optional<StoredGrant>> TokenStore::LoadGrant(std::string_view server_url) const {
  const std::string path = GrantPath(server_url);
  base::Result<std::optional<rapidjson::Document>> read =
      ReadDocument(path, base::Sha256Hex(server_url));
  if (!read.ok()) return std::move(read).status();
  if (!*read) return std::optional<StoredGrant>();
  const rapidjson::Document& doc = **read;
  StoredGrant g;
  g.tokens.access_token = Secret(Get(doc, "access_token"));
  g.tokens.refresh_token = Secret(Get(doc, "refresh_token"));
  g.tokens.scope = Get(doc, "scope");
  g.tokens.expires_at = GetInt(doc, "expires_at");
  g.tokens.obtained_at = GetInt(doc, "obtained_at").value_or(0);
  g.tokens.subject = Get(doc, "subject");
  g.issuer = Get(doc, "issuer");
  g.token_endpoint = Get(doc, "token_endpoint");
  g.revocation_endpoint = Get(doc, "revocation_endpoint");
  g.resource = Get(doc, "resource");
  auto client = doc.FindMember("client");
  if (client != doc.MemberEnd() && client->value.IsObject()) g.client = GetClient(client->value);
  if (g.tokens.access_token.empty() || g.token_endpoint.empty() || g.client.client_id.empty()) {
    return Damaged(path);
  }
  return std::optional<StoredGrant>(std::move(g));
}

base::Status TokenStore::SaveGrant(std::string_view server_url, const StoredGrant& g) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("version");
  w.Int(kFormatVersion);
  Put(w, "key", base::Sha256Hex(server_url));
  Put(w, "issuer", g.issuer);
  Put(w, "token_endpoint", g.token_endpoint);
  Put(w, "revocation_endpoint", g.revocation_endpoint);
  Put(w, "resource", g.resource);
  Put(w, "access_token", g.tokens.access_token.Reveal());
  Put(w, "refresh_token", g.tokens.refresh_token.Reveal());
  Put(w, "scope", g.tokens.scope);
  if (g.tokens.expires_at) {
    w.Key("expires_at");
    w.Int64(*g.tokens.expires_at);
  }
  w.Key("obtained_at");
  w.Int64(g.tokens.obtained_at);
  Put(w, "subject", g.tokens.subject);
  w.Key("client");
  w.StartObject();
  PutClient(w, g.client);
  w.EndObject();
  w.EndObject();
  return WriteAtomically(GrantPath(server_url), std::string(buf.GetString(), buf.GetSize()) + "\n");
}

base::Status TokenStore::DeleteGrant(std::string_view server_url) {
  return env_->RemoveFile(GrantPath(server_url));
}

base::Result<std::optional<ClientIdentity>> TokenStore::LoadClient(std::string_view issuer) const {
  base::Result<std::optional<rapidjson::Document>> read =
      ReadDocument(ClientPath(issuer), base::Sha256Hex(issuer));
  if (!read.ok()) return std::move(read).status();
  if (!*read) return std::optional<ClientIdentity>();
  ClientIdentity c = GetClient(**read);
  if (c.client_id.empty()) {
    return base::InvalidInput(ClientPath(issuer) +
                              " is damaged or not mcpgw's; delete it to register again");
  }
  return std::optional<ClientIdentity>(std::move(c));
}

base::Status TokenStore::SaveClient(const ClientIdentity& c) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("version");
  w.Int(kFormatVersion);
  Put(w, "key", base::Sha256Hex(c.issuer));
  PutClient(w, c);
  w.EndObject();
  return WriteAtomically(ClientPath(c.issuer), std::string(buf.GetString(), buf.GetSize()) + "\n");
}

base::Status TokenStore::DeleteClient(std::string_view issuer) {
  return env_->RemoveFile(ClientPath(issuer));
}

std::string DefaultTokenDir(
    const std::function<std::optional<std::string>(std::string_view)>& get_env,
    std::string_view home) {
  std::optional<std::string> state = get_env("XDG_STATE_HOME");
  if (state && !state->empty() && (*state)[0] == '/') return *state + "/mcpgw/oauth";
  return std::string(home) + "/.local/state/mcpgw/oauth";
}

}  // namespace mcpgw::auth
