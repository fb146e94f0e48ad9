// mcp.json → a list of server entries (BEHAVIOR.md §2): the `mcpServers` object, or
// VS Code's `servers` when `mcpServers` is absent; JSONC is accepted. Pure: the text, the
// environment lookup and the home directory are inputs; no global reads, no
// network. Each entry is parsed on its own: a bad entry becomes a refused
// entry with a reason, never a failure of the whole file.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/confine.h"
#include "config/secret.h"

namespace mcpgw::config {

// What interpolation may read. Tests pass fakes; the daemon passes getenv/$HOME.
struct ParseEnv {
  std::function<std::optional<std::string>(std::string_view name)> get_env;
  std::string home;  // value of ${userHome}
  // Whether a path exists, for `confine` (BEHAVIOR.md §18); unset: not checked.
  std::function<bool(const std::string& path)> path_exists;
};

// A header from the entry's `headers` object. The name is not secret; the
// value always is.
struct Header {
  std::string name;
  Secret value;

  friend bool operator==(const Header&, const Header&) = default;
};

// The entry's `oauth` object (BEHAVIOR.md §9): how the daemon identifies itself to
// the server's authorization server. Every field is optional.
struct OAuthClient {
  std::string client_id;            // a client registered by the user
  Secret client_secret;             // its secret, if it has one
  std::string client_metadata_url;  // a Client ID Metadata Document (https)

  friend bool operator==(const OAuthClient&, const OAuthClient&) = default;
};

// A remote (Streamable HTTP) server.
struct RemoteServer {
  Secret url;                // the real url, after interpolation
  std::string url_redacted;  // the url with every interpolated ${env:..} value
                             // replaced by "<redacted>": safe to print
  std::vector<Header> headers;
  OAuthClient oauth;
  // False when the entry configures an Authorization header: the user
  // manages auth for that server and the daemon never runs OAuth for it.
  bool oauth_allowed = true;

  friend bool operator==(const RemoteServer&, const RemoteServer&) = default;
};

// An environment variable the entry's `env` gives a local server. The value
// is always secret: hosts keep API keys there.
struct EnvVar {
  std::string name;
  Secret value;

  friend bool operator==(const EnvVar&, const EnvVar&) = default;
};

// A local server (BEHAVIOR.md §17): a command the daemon runs, speaking MCP
// on its stdin and stdout.
struct LocalServer {
  std::string command;            // as written, after interpolation
  std::vector<std::string> args;  // after interpolation (env values are in Config::secrets)
  std::vector<EnvVar> env;        // in file order; a repeated name keeps the last value
  std::string cwd;                // empty: the user's home
  // The command and its arguments as safe to print: every ${env:..} value
  // replaced by "<redacted>", arguments separated by spaces.
  std::string shown;
  // What it may touch (BEHAVIOR.md §18): unset, it runs with the user's rights
  // (or the settings default, when `unconfined` is false).
  std::optional<Confine> confine;
  bool unconfined = false;  // `"confine": false`: no settings default either
  // What the kernel cannot enforce refuses the entry; false: it runs, and
  // status says what is not enforced.
  bool confine_required = true;
  Limits limits;

  friend bool operator==(const LocalServer&, const LocalServer&) = default;
};

// Something `mcpgwd --check` and the start-up log point out without refusing
// anything: another host's ${VAR} form, a `type` mcpgw does not know, keys it
// ignores. Names keys and forms, never values.
struct Note {
  std::string text;
  bool likely_mistake = false;  // another host's variable form: logged as a warning

  friend bool operator==(const Note&, const Note&) = default;
};

// One entry of mcpServers (or `servers`), in file order.
struct Entry {
  std::string name;                    // the namespace, exactly as written
  std::optional<RemoteServer> remote;  // set when accepted as a remote server
  std::optional<LocalServer> local;    // set when accepted as a local server
  std::string refusal;                 // set when refused: a reason without secrets
  std::vector<Note> notes;
  // The entry names a command (a local server), whether or not it was accepted.
  bool names_command = false;

  bool accepted() const { return remote.has_value() || local.has_value(); }
  // Refuses an accepted entry after the fact (a setting, the file's mode).
  void Refuse(std::string reason) {
    remote.reset();
    local.reset();
    refusal = std::move(reason);
  }
};

// The result of parsing one mcp.json text.
struct Config {
  std::vector<Entry> entries;
  std::vector<Note> notes;  // about the file as a whole
  // Every value that came from ${env:...} or a header value, for the
  // last-line-of-defence scrub of outgoing strings. Never printed.
  std::vector<Secret> secrets;
};

// The parsed file, or why it cannot be used (invalid_input, not_found, io):
// the message names the file, and line:column for JSON errors.
using ParseResult = base::Result<Config>;

// Parses `text` (the contents of `path`; the path only labels messages).
ParseResult Parse(std::string_view text, std::string_view path, const ParseEnv& env);

// Reads and parses a file. A missing or unreadable file is an error naming it.
ParseResult ParseFile(const std::string& path, const ParseEnv& env);

// The process's real environment: getenv and $HOME (or the passwd entry).
ParseEnv SystemParseEnv();

// Local servers run only from an mcp.json its user owns and no one else can
// write (BEHAVIOR.md §17): every local entry of `config` is refused otherwise,
// with a reason naming the file's mode. `uid` and `mode` are the file's.
void RefuseLocalUnlessPrivate(Config& config, std::string_view path, unsigned uid, unsigned mode,
                              unsigned own_uid);
// `local_servers: "refuse"`: every local entry is refused with kLocalRefusal.
void RefuseLocal(Config& config);

// The exact refusal text for local (command) entries under the setting
// `local_servers: "refuse"`.
inline constexpr std::string_view kLocalRefusal =
    "local MCP servers (command) are not supported yet";
// The exact refusal text for `"disabled": true` and `"enabled": false`.
inline constexpr std::string_view kDisabledRefusal = "disabled in the configuration";

}  // namespace mcpgw::config
