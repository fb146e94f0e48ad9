#include "config/entry.h"

#include <optional>
#include <unordered_set>
#include <utility>

#include "base/text.h"
#include "base/url.h"
#include "config/display.h"
#include "config/document.h"
#include "config/headers.h"
#include "config/host_forms.h"
#include "config/interpolate.h"

namespace mcpgw::config {
namespace {

using rapidjson::Value;

std::string Got(const Value& value) { return std::string(" (got ") + TypeName(value) + ")"; }

void Keep(std::vector<std::string>& values, std::vector<std::string>& secrets) {
  for (std::string& v : values) secrets.push_back(std::move(v));
}

// The keys that name a remote server's URL: ours, Windsurf's, Gemini CLI's.
constexpr std::string_view kUrlKeys[] = {"url", "serverUrl", "httpUrl"};
// Keys mcpgw reads in a remote entry; any other is ignored with a note.
constexpr std::string_view kRemoteKeys[] = {"url",       "serverUrl", "httpUrl", "headers", "type",
                                            "transport", "disabled",  "enabled", "oauth"};
// `type` / `transport` values that mean Streamable HTTP in some host's format.
constexpr std::string_view kHttpTypes[] = {"http", "streamable-http", "streamablehttp",
                                           "streamable_http"};

std::string Quoted(std::string_view key) { return "\"" + std::string(key) + "\""; }

// "disabled": true or "enabled": false. A value that is not a boolean refuses
// the entry too: a server the user meant to switch off is never contacted.
std::string DisabledRefusal(const Value& entry) {
  for (auto [key, off] : {std::pair{"disabled", true}, std::pair{"enabled", false}}) {
    const Value* v = FindLast(entry, key);
    if (v == nullptr || v->IsNull()) continue;
    if (!v->IsBool()) return Quoted(key) + " must be true or false" + Got(*v);
    if (v->GetBool() == off) return std::string(kDisabledRefusal);
  }
  return "";
}

// The url key the entry uses (nullptr when none); a second one is an error.
const char* UrlKey(const Value& entry, std::string& refusal) {
  const char* found = nullptr;
  for (std::string_view key : kUrlKeys) {
    if (FindLast(entry, key) == nullptr) continue;
    if (found != nullptr) {
      refusal = "entry has both " + Quoted(found) + " and " + Quoted(key) + "; keep one";
      return nullptr;
    }
    found = key.data();
  }
  return found;
}

// "type" or "transport": "sse" (any case) is the legacy transport and refused;
// values mcpgw does not know become notes.
std::string TransportRefusal(const Value& entry, std::string_view key, std::vector<Note>& notes) {
  const Value* v = FindLast(entry, key);
  if (v == nullptr) return "";
  if (!v->IsString()) {
    notes.push_back({Quoted(key) + " is not a string" + Got(*v) + "; ignored"});
    return "";
  }
  std::string_view value = StringOf(*v);
  if (base::EqualsIgnoreCase(value, "sse")) return SseRefusal(key);
  for (std::string_view known : kHttpTypes) {
    if (base::EqualsIgnoreCase(value, known)) return "";
  }
  notes.push_back({std::string(key) + " " + JsonQuote(value) +
                   " is not a transport mcpgw knows; the entry is read as Streamable HTTP"});
  return "";
}

// The checks every entry goes through before its remote fields are read.
// Sets `url_key` for a remote entry.
std::string ShapeRefusal(const Value& entry, const char*& url_key, std::vector<Note>& notes) {
  if (!entry.IsObject()) return "entry must be an object" + Got(entry);
  std::string refusal = DisabledRefusal(entry);
  if (!refusal.empty()) return refusal;
  url_key = UrlKey(entry, refusal);
  if (!refusal.empty()) return refusal;
  bool has_command = FindLast(entry, "command") != nullptr;
  if (url_key != nullptr && has_command) {
    return "entry has both " + Quoted(url_key) +
           " and \"command\"; a server is either remote (url) or local (command)";
  }
  if (url_key == nullptr && !has_command) {
    return "entry has neither \"url\" (remote server) nor \"command\" (local server)";
  }
  if (has_command) return std::string(kLocalRefusal);
  for (std::string_view key : {"type", "transport"}) {
    refusal = TransportRefusal(entry, key, notes);
    if (!refusal.empty()) return refusal;
  }
  return "";
}

// A note per other host's variable form in the string at `key`.
void NoteHostForms(std::string_view key, std::string_view text, std::vector<Note>& notes) {
  for (HostForm& form : FindHostForms(text)) {
    notes.push_back(
        {std::string(key) + ": " + form.shown + " is not expanded; " + form.advice, true});
  }
}

// One note listing the keys of a remote entry that mcpgw does not read (the
// first kMaxNamedKeys of them, and how many more).
void NoteIgnoredKeys(const Value& entry, std::vector<Note>& notes) {
  constexpr size_t kMaxNamedKeys = 20;
  std::string ignored;
  size_t count = 0;
  std::unordered_set<std::string_view> seen;
  for (const auto& member : entry.GetObject()) {
    std::string_view key = StringOf(member.name);
    bool read = false;
    for (std::string_view known : kRemoteKeys) read = read || key == known;
    if (read || !seen.insert(key).second) continue;
    if (count++ < kMaxNamedKeys) ignored += (ignored.empty() ? "" : ", ") + DisplayName(key);
  }
  if (count > kMaxNamedKeys) ignored += " and " + std::to_string(count - kMaxNamedKeys) + " more";
  if (count > 0) notes.push_back({"ignored keys: " + ignored});
}

std::string ParseUrl(std::string_view key, const Value& url, const ParseEnv& env,
                     std::vector<std::string>& secrets, RemoteServer& out,
                     std::vector<Note>& notes) {
  if (!url.IsString()) return Quoted(key) + " must be a string" + Got(url);
  NoteHostForms(key, StringOf(url), notes);
  Interpolated expanded = Interpolate(StringOf(url), env);
  Keep(expanded.env_values, secrets);
  if (!expanded.ok()) return std::string(key) + ": " + expanded.error;
  const std::optional<base::Url> parsed = base::ParseUrl(expanded.value);
  if (!parsed) {
    return std::string(key) + ": not an http:// or https:// URL with a host";
  }
  // A password written in the url is as secret as an interpolated value: kept
  // for the scrubber (with the user name, and alone) and never shown.
  if (std::string_view userinfo = parsed->userinfo; !userinfo.empty()) {
    secrets.emplace_back(userinfo);
    size_t colon = userinfo.find(':');
    if (colon != std::string_view::npos && colon + 1 < userinfo.size()) {
      secrets.emplace_back(userinfo.substr(colon + 1));
    }
  }
  out.url = Secret(std::move(expanded.value));
  out.url_redacted = base::ReplaceUserinfo(expanded.redacted, Secret::kRedacted);
  return "";
}

std::string ParseHeader(std::string_view name, const Value& value, const ParseEnv& env,
                        std::vector<std::string>& secrets, std::unordered_set<std::string>& seen,
                        std::vector<Header>& out, std::vector<Note>& notes) {
  std::string key = "headers." + DisplayName(name);
  if (!base::IsHttpToken(name)) return key + ": not a valid HTTP header name";
  if (IsClientOwnedHeader(name))
    return key + ": the client sets this header; it cannot be configured";
  std::string lower(name);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (!seen.insert(lower).second)
    return key + ": duplicate header name (names are case-insensitive)";
  if (!value.IsString()) return key + ": value must be a string" + Got(value);
  NoteHostForms(key, StringOf(value), notes);
  Interpolated expanded = Interpolate(StringOf(value), env);
  Keep(expanded.env_values, secrets);
  if (!expanded.ok()) return key + ": " + expanded.error;
  secrets.push_back(expanded.value);
  if (HasForbiddenHeaderByte(expanded.value)) return key + ": value contains CR, LF or NUL";
  out.push_back(Header{std::string(name), Secret(std::move(expanded.value))});
  return "";
}

std::string ParseHeaders(const Value* headers, const ParseEnv& env,
                         std::vector<std::string>& secrets, std::vector<Header>& out,
                         std::vector<Note>& notes) {
  if (headers == nullptr || headers->IsNull()) return "";
  if (!headers->IsObject()) return "\"headers\" must be an object" + Got(*headers);
  std::unordered_set<std::string> seen;
  for (const auto& member : headers->GetObject()) {
    std::string refusal =
        ParseHeader(StringOf(member.name), member.value, env, secrets, seen, out, notes);
    if (!refusal.empty()) return refusal;
  }
  return "";
}

// `oauth`: {"clientId", "clientSecret", "clientMetadataUrl"}, strings, each
// optional; unknown keys are ignored like unknown entry fields.
std::string ParseOAuth(const Value* oauth, const ParseEnv& env, std::vector<std::string>& secrets,
                       OAuthClient& out, std::vector<Note>& notes) {
  if (oauth == nullptr || oauth->IsNull()) return "";
  if (!oauth->IsObject()) return "\"oauth\" must be an object" + Got(*oauth);
  struct Field {
    const char* key;
    std::string* value;
  };
  std::string secret;
  for (Field f : {Field{"clientId", &out.client_id}, Field{"clientSecret", &secret},
                  Field{"clientMetadataUrl", &out.client_metadata_url}}) {
    const Value* v = FindLast(*oauth, f.key);
    if (v == nullptr || v->IsNull()) continue;
    const std::string key = std::string("oauth.") + f.key;
    if (!v->IsString()) return key + ": must be a string" + Got(*v);
    NoteHostForms(key, StringOf(*v), notes);
    Interpolated expanded = Interpolate(StringOf(*v), env);
    Keep(expanded.env_values, secrets);
    if (!expanded.ok()) return key + ": " + expanded.error;
    if (f.value == &secret) secrets.push_back(expanded.value);
    *f.value = std::move(expanded.value);
  }
  out.client_secret = Secret(std::move(secret));
  if (!out.client_secret.empty() && out.client_id.empty()) {
    return "oauth.clientSecret: needs oauth.clientId";
  }
  const std::string& cimd = out.client_metadata_url;
  const std::optional<base::Url> cimd_url = base::ParseUrl(cimd);
  if (!cimd.empty() && (!cimd_url || cimd_url->scheme != "https" || cimd_url->path == "/")) {
    return "oauth.clientMetadataUrl: must be an https:// URL with a path";
  }
  return "";
}

}  // namespace

Entry ParseEntry(std::string name, const Value& value, const ParseEnv& env,
                 std::vector<std::string>& secrets) {
  Entry entry;
  entry.name = std::move(name);
  const char* url_key = nullptr;
  entry.refusal = ShapeRefusal(value, url_key, entry.notes);
  if (!entry.refusal.empty()) return entry;
  NoteIgnoredKeys(value, entry.notes);
  RemoteServer remote;
  entry.refusal = ParseUrl(url_key, *FindLast(value, url_key), env, secrets, remote, entry.notes);
  if (entry.refusal.empty()) {
    entry.refusal =
        ParseHeaders(FindLast(value, "headers"), env, secrets, remote.headers, entry.notes);
  }
  if (entry.refusal.empty()) {
    entry.refusal = ParseOAuth(FindLast(value, "oauth"), env, secrets, remote.oauth, entry.notes);
  }
  for (const Header& h : remote.headers) {
    if (base::EqualsIgnoreCase(h.name, "authorization")) remote.oauth_allowed = false;
  }
  if (entry.refusal.empty()) entry.remote = std::move(remote);
  return entry;
}

}  // namespace mcpgw::config
