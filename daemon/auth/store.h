// TokenStore: where the OAuth client keeps what must survive a restart
// (BEHAVIOR.md §9): per server URL, the tokens and how to refresh them; per issuer,
// the client registered there. One JSON file each, named by the SHA-256 of
// its key (so a URL holding a secret never becomes a file name), mode 0600 in
// a 0700 directory, written atomically (temporary file, fsync, rename). Every
// file operation goes through the Env (daemon/runtime/env.h), so tests keep
// the files in memory. Used on the daemon's main loop; files are small and
// writes rare.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "base/status.h"
#include "daemon/auth/registration.h"
#include "daemon/auth/token.h"
#include "daemon/runtime/env.h"

namespace mcpgw::auth {

// Everything needed to use and refresh one server's tokens without
// rediscovery.
struct StoredGrant {
  Tokens tokens;
  ClientIdentity client;  // the client the tokens were issued to
  std::string issuer;
  std::string token_endpoint;
  std::string revocation_endpoint;  // "" when the server has none
  std::string resource;             // the RFC 8707 resource they were asked for
};

class TokenStore {
 public:
  // `env` outlives the store.
  TokenStore(Env* env, std::string dir);
  TokenStore(const TokenStore&) = delete;
  TokenStore& operator=(const TokenStore&) = delete;

  const std::string& dir() const { return dir_; }

  // An error names the file, never a value. A missing file loads as
  // nullopt: no grant is not a failure.
  base::Result<std::optional<StoredGrant>> LoadGrant(std::string_view server_url) const;
  base::Status SaveGrant(std::string_view server_url, const StoredGrant& grant);
  base::Status DeleteGrant(std::string_view server_url);

  base::Result<std::optional<ClientIdentity>> LoadClient(std::string_view issuer) const;
  base::Status SaveClient(const ClientIdentity& client);
  base::Status DeleteClient(std::string_view issuer);

  std::string GrantPath(std::string_view server_url) const;
  std::string ClientPath(std::string_view issuer) const;

 private:
  // Creates the directory (0700, parents too) or tightens its mode.
  base::Status EnsureDir();
  base::Status WriteAtomically(const std::string& path, const std::string& text);
  base::Result<std::optional<rapidjson::Document>> ReadDocument(const std::string& path,
                                                                const std::string& key) const;

  Env* env_;
  std::string dir_;
};

// $XDG_STATE_HOME/mcpgw/oauth, else <home>/.local/state/mcpgw/oauth.
std::string DefaultTokenDir(
    const std::function<std::optional<std::string>(std::string_view)>& get_env,
    std::string_view home);

}  // namespace mcpgw::auth
