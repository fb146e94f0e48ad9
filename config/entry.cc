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
// Keys mcpgw reads in a local entry.
constexpr std::string_view kLocalKeys[] = {
    "command",         "args",     "env",     "cwd",     "type",
    "transport",       "disabled", "enabled", "confine", "limits",
    "confine_required"};
// `type` / `transport` values that mean Streamable HTTP in some host's format.
constexpr std::string_view kHttpTypes[] = {"http", "streamable-http", "streamablehttp",
                                           "streamable_http"};

std::string Quoted(std::string_view key) { return "\"" + std::string(key) + "\""; }

// "disabled": true or "enabled": false. A value that is not a boolean refuses
// the entry too: a server the user meant to switch off is never contacted.
base::Status DisabledRefusal(const Value& entry) {
  for (auto [key, off] : {std::pair{"disabled", true}, std::pair{"enabled", false}}) {
    const Value* v = FindLast(entry, key);
    if (v == nullptr || v->IsNull()) continue;
    if (!v->IsBool()) return base::InvalidInput(Quoted(key) + " must be true or false" + Got(*v));
    if (v->GetBool() == off) return base::InvalidInput(std::string(kDisabledRefusal));
  }
  return base::Status();
}

// The url key the entry uses (nullptr when none); a second one is an error.
base::Result<const char*> UrlKey(const Value& entry) {
  const char* found = nullptr;
  for (std::string_view key : kUrlKeys) {
    if (FindLast(entry, key) == nullptr) continue;
    if (found != nullptr) {
      return base::InvalidInput("entry has both " + Quoted(found) + " and " + Quoted(key) +
                                "; keep one");
    }
    found = key.data();
  }
  return found;
}

// "type" or "transport": "sse" (any case) is the legacy transport and refused;
// values mcpgw does not know become notes.
base::Status TransportRefusal(const Value& entry, std::string_view key, std::vector<Note>& notes) {
  const Value* v = FindLast(entry, key);
  if (v == nullptr) return base::Status();
  if (!v->IsString()) {
    notes.push_back({Quoted(key) + " is not a string" + Got(*v) + "; ignored"});
    return base::Status();
  }
  std::string_view value = StringOf(*v);
  if (base::EqualsIgnoreCase(value, "sse")) return base::InvalidInput(SseRefusal(key));
  for (std::string_view known : kHttpTypes) {
    if (base::EqualsIgnoreCase(value, known)) return base::Status();
  }
  notes.push_back({std::string(key) + " " + JsonQuote(value) +
                   " is not a transport mcpgw knows; the entry is read as Streamable HTTP"});
  return base::Status();
}

// `type` / `transport` of a local entry: "stdio" or absent; "sse" is a remote
// transport and refused; anything else is a note.
base::Status LocalTransportRefusal(const Value& entry, std::vector<Note>& notes) {
  for (std::string_view key : {"type", "transport"}) {
    const Value* v = FindLast(entry, key);
    if (v == nullptr || !v->IsString()) continue;
    std::string_view value = StringOf(*v);
    if (base::EqualsIgnoreCase(value, "stdio")) continue;
    if (base::EqualsIgnoreCase(value, "sse")) return base::InvalidInput(SseRefusal(key));
    notes.push_back({std::string(key) + " " + JsonQuote(value) +
                     " is not a transport mcpgw knows; the entry is run as a local server"});
  }
  return base::Status();
}

// The checks every entry goes through before its remote fields are read.
// Sets `url_key` for a remote entry; a local one keeps it null.
base::Status ShapeRefusal(const Value& entry, const char*& url_key, std::vector<Note>& notes) {
  if (!entry.IsObject()) return base::InvalidInput("entry must be an object" + Got(entry));
  if (base::Status disabled = DisabledRefusal(entry); !disabled.ok()) return disabled;
  base::Result<const char*> key = UrlKey(entry);
  if (!key.ok()) return key.status();
  url_key = *key;
  bool has_command = FindLast(entry, "command") != nullptr;
  if (url_key != nullptr && has_command) {
    return base::InvalidInput(
        "entry has both " + Quoted(url_key) +
        " and \"command\"; a server is either remote (url) or local (command)");
  }
  if (url_key == nullptr && !has_command) {
    return base::InvalidInput(
        "entry has neither \"url\" (remote server) nor \"command\" (local server)");
  }
  if (has_command) return LocalTransportRefusal(entry, notes);
  for (std::string_view transport_key : {"type", "transport"}) {
    base::Status refused = TransportRefusal(entry, transport_key, notes);
    if (!refused.ok()) return refused;
  }
  return base::Status();
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
template <size_t N>
void NoteIgnoredKeys(const Value& entry, const std::string_view (&known_keys)[N],
                     std::vector<Note>& notes) {
  constexpr size_t kMaxNamedKeys = 20;
  std::string ignored;
  size_t count = 0;
  std::unordered_set<std::string_view> seen;
  for (const auto& member : entry.GetObject()) {
    std::string_view key = StringOf(member.name);
    bool read = false;
    for (std::string_view known : known_keys) read = read || key == known;
    if (read || !seen.insert(key).second) continue;
    if (count++ < kMaxNamedKeys) ignored += (ignored.empty() ? "" : ", ") + DisplayName(key);
  }
  if (count > kMaxNamedKeys) ignored += " and " + std::to_string(count - kMaxNamedKeys) + " more";
  if (count > 0) notes.push_back({"ignored keys: " + ignored});
}

base::Status ParseUrl(std::string_view key, const Value& url, const ParseEnv& env,
                      std::vector<std::string>& secrets, RemoteServer& out,
                      std::vector<Note>& notes) {
  if (!url.IsString()) return base::InvalidInput(Quoted(key) + " must be a string" + Got(url));
  NoteHostForms(key, StringOf(url), notes);
  Interpolated expanded;
  base::Status interpolated = Interpolate(StringOf(url), env, &expanded);
  Keep(expanded.env_values, secrets);
  if (!interpolated.ok()) return std::move(interpolated).Prefixed(std::string(key) + ": ");
  const std::optional<base::Url> parsed = base::ParseUrl(expanded.value);
  if (!parsed) {
    return base::InvalidInput(std::string(key) + ": not an http:// or https:// URL with a host");
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
  return base::Status();
}

base::Status ParseHeader(std::string_view name, const Value& value, const ParseEnv& env,
                         std::vector<std::string>& secrets, std::unordered_set<std::string>& seen,
                         std::vector<Header>& out, std::vector<Note>& notes) {
  std::string key = "headers." + DisplayName(name);
  if (!base::IsHttpToken(name)) return base::InvalidInput(key + ": not a valid HTTP header name");
  if (IsClientOwnedHeader(name))
    return base::InvalidInput(key + ": the client sets this header; it cannot be configured");
  std::string lower(name);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (!seen.insert(lower).second)
    return base::InvalidInput(key + ": duplicate header name (names are case-insensitive)");
  if (!value.IsString()) return base::InvalidInput(key + ": value must be a string" + Got(value));
  NoteHostForms(key, StringOf(value), notes);
  Interpolated expanded;
  base::Status interpolated = Interpolate(StringOf(value), env, &expanded);
  Keep(expanded.env_values, secrets);
  if (!interpolated.ok()) return std::move(interpolated).Prefixed(key + ": ");
  secrets.push_back(expanded.value);
  if (HasForbiddenHeaderByte(expanded.value))
    return base::InvalidInput(key + ": value contains CR, LF or NUL");
  out.push_back(Header{std::string(name), Secret(std::move(expanded.value))});
  return base::Status();
}

base::Status ParseHeaders(const Value* headers, const ParseEnv& env,
                          std::vector<std::string>& secrets, std::vector<Header>& out,
                          std::vector<Note>& notes) {
  if (headers == nullptr || headers->IsNull()) return base::Status();
  if (!headers->IsObject())
    return base::InvalidInput("\"headers\" must be an object" + Got(*headers));
  std::unordered_set<std::string> seen;
  for (const auto& member : headers->GetObject()) {
    base::Status refused =
        ParseHeader(StringOf(member.name), member.value, env, secrets, seen, out, notes);
    if (!refused.ok()) return refused;
  }
  return base::Status();
}

// `oauth`: {"clientId", "clientSecret", "clientMetadataUrl"}, strings, each
// optional; unknown keys are ignored like unknown entry fields.
base::Status ParseOAuth(const Value* oauth, const ParseEnv& env, std::vector<std::string>& secrets,
                        OAuthClient& out, std::vector<Note>& notes) {
  if (oauth == nullptr || oauth->IsNull()) return base::Status();
  if (!oauth->IsObject()) return base::InvalidInput("\"oauth\" must be an object" + Got(*oauth));
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
    if (!v->IsString()) return base::InvalidInput(key + ": must be a string" + Got(*v));
    NoteHostForms(key, StringOf(*v), notes);
    Interpolated expanded;
    base::Status interpolated = Interpolate(StringOf(*v), env, &expanded);
    Keep(expanded.env_values, secrets);
    if (!interpolated.ok()) return std::move(interpolated).Prefixed(key + ": ");
    if (f.value == &secret) secrets.push_back(expanded.value);
    *f.value = std::move(expanded.value);
  }
  out.client_secret = Secret(std::move(secret));
  if (!out.client_secret.empty() && out.client_id.empty()) {
    return base::InvalidInput("oauth.clientSecret: needs oauth.clientId");
  }
  const std::string& cimd = out.client_metadata_url;
  const std::optional<base::Url> cimd_url = base::ParseUrl(cimd);
  if (!cimd.empty() && (!cimd_url || cimd_url->scheme != "https" || cimd_url->path == "/")) {
    return base::InvalidInput("oauth.clientMetadataUrl: must be an https:// URL with a path");
  }
  return base::Status();
}

// One string of a local entry, interpolated; its environment values go to
// `secrets`. A NUL cannot be passed to a program.
base::Status LocalString(std::string_view key, const Value& value, const ParseEnv& env,
                         std::vector<std::string>& secrets, Interpolated& out,
                         std::vector<Note>& notes) {
  if (!value.IsString())
    return base::InvalidInput(std::string(key) + " must be a string" + Got(value));
  NoteHostForms(key, StringOf(value), notes);
  base::Status interpolated = Interpolate(StringOf(value), env, &out);
  Keep(out.env_values, secrets);
  if (!interpolated.ok()) return std::move(interpolated).Prefixed(std::string(key) + ": ");
  if (out.value.find('\0') != std::string::npos) {
    return base::InvalidInput(std::string(key) + ": contains a NUL byte");
  }
  return base::Status();
}

base::Status ParseArgs(const Value* args, const ParseEnv& env, std::vector<std::string>& secrets,
                       LocalServer& out, std::vector<Note>& notes) {
  if (args == nullptr || args->IsNull()) return base::Status();
  if (!args->IsArray())
    return base::InvalidInput("\"args\" must be an array of strings" + Got(*args));
  for (rapidjson::SizeType i = 0; i < args->Size(); ++i) {
    Interpolated expanded;
    const std::string key = "args[" + std::to_string(i) + "]";
    base::Status refused = LocalString(key, (*args)[i], env, secrets, expanded, notes);
    if (!refused.ok()) return refused;
    out.args.push_back(std::move(expanded.value));
    out.shown += " " + expanded.redacted;
  }
  return base::Status();
}

// A variable name a process environment can hold: not empty, no '=' or NUL.
bool ValidEnvName(std::string_view name) {
  return !name.empty() && name.find('=') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

base::Status ParseEnvObject(const Value* object, const ParseEnv& env,
                            std::vector<std::string>& secrets, LocalServer& out,
                            std::vector<Note>& notes) {
  if (object == nullptr || object->IsNull()) return base::Status();
  if (!object->IsObject()) return base::InvalidInput("\"env\" must be an object" + Got(*object));
  for (const auto& member : object->GetObject()) {
    std::string_view name = StringOf(member.name);
    const std::string key = "env." + DisplayName(name);
    if (!ValidEnvName(name)) return base::InvalidInput(key + ": not a valid variable name");
    Interpolated expanded;
    base::Status refused = LocalString(key, member.value, env, secrets, expanded, notes);
    if (!refused.ok()) return refused;
    // Hosts keep API keys here: every value is as secret as an interpolated one.
    secrets.push_back(expanded.value);
    std::erase_if(out.env, [&](const EnvVar& v) { return v.name == name; });
    out.env.push_back(EnvVar{std::string(name), Secret(std::move(expanded.value))});
  }
  return base::Status();
}

// `confine`, `confine_required` and `limits` (BEHAVIOR.md §18).
base::Status ParseConfinement(const Value& entry, const ParseEnv& env,
                              std::vector<std::string>& secrets, LocalServer& out) {
  if (const Value* confine = FindLast(entry, "confine"); confine != nullptr && !confine->IsNull()) {
    if (confine->IsBool() && !confine->GetBool()) {
      out.unconfined = true;
    } else {
      base::Status bad = ParseConfine(*confine, "confine", &env, secrets, out.confine.emplace());
      if (!bad.ok()) return bad;
    }
  }
  if (const Value* required = FindLast(entry, "confine_required");
      required != nullptr && !required->IsNull()) {
    if (!required->IsBool()) {
      return base::InvalidInput("\"confine_required\" must be true or false" + Got(*required));
    }
    out.confine_required = required->GetBool();
  }
  if (const Value* limits = FindLast(entry, "limits"); limits != nullptr && !limits->IsNull()) {
    return ParseLimits(*limits, out.limits);
  }
  return base::Status();
}

base::Status ParseLocal(const Value& entry, const ParseEnv& env, std::vector<std::string>& secrets,
                        LocalServer& out, std::vector<Note>& notes) {
  Interpolated command;
  base::Status refused =
      LocalString("command", *FindLast(entry, "command"), env, secrets, command, notes);
  if (!refused.ok()) return refused;
  if (command.value.empty()) return base::InvalidInput("\"command\" is empty");
  out.command = std::move(command.value);
  out.shown = command.redacted;
  refused = ParseArgs(FindLast(entry, "args"), env, secrets, out, notes);
  if (refused.ok()) refused = ParseEnvObject(FindLast(entry, "env"), env, secrets, out, notes);
  if (!refused.ok()) return refused;
  if (const Value* cwd = FindLast(entry, "cwd"); cwd != nullptr && !cwd->IsNull()) {
    Interpolated expanded;
    refused = LocalString("cwd", *cwd, env, secrets, expanded, notes);
    if (!refused.ok()) return refused;
    if (expanded.value.empty() || expanded.value[0] != '/') {
      return base::InvalidInput("cwd: must be an absolute path");
    }
    out.cwd = std::move(expanded.value);
  }
  return ParseConfinement(entry, env, secrets, out);
}

}  // namespace

Entry ParseEntry(std::string name, const Value& value, const ParseEnv& env,
                 std::vector<std::string>& secrets) {
  Entry entry;
  entry.name = std::move(name);
  entry.names_command = value.IsObject() && FindLast(value, "command") != nullptr;
  const char* url_key = nullptr;
  if (base::Status shape = ShapeRefusal(value, url_key, entry.notes); !shape.ok()) {
    entry.refusal = shape.message();
    return entry;
  }
  if (url_key == nullptr) {
    NoteIgnoredKeys(value, kLocalKeys, entry.notes);
    LocalServer local;
    base::Status refused = ParseLocal(value, env, secrets, local, entry.notes);
    if (refused.ok()) {
      entry.local = std::move(local);
    } else {
      entry.refusal = refused.message();
    }
    return entry;
  }
  NoteIgnoredKeys(value, kRemoteKeys, entry.notes);
  RemoteServer remote;
  base::Status refused =
      ParseUrl(url_key, *FindLast(value, url_key), env, secrets, remote, entry.notes);
  if (refused.ok()) {
    refused = ParseHeaders(FindLast(value, "headers"), env, secrets, remote.headers, entry.notes);
  }
  if (refused.ok()) {
    refused = ParseOAuth(FindLast(value, "oauth"), env, secrets, remote.oauth, entry.notes);
  }
  for (const Header& h : remote.headers) {
    if (base::EqualsIgnoreCase(h.name, "authorization")) remote.oauth_allowed = false;
  }
  if (refused.ok()) {
    entry.remote = std::move(remote);
  } else {
    entry.refusal = refused.message();
  }
  return entry;
}

}  // namespace mcpgw::config
