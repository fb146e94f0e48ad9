// The token store on disk: round trips, permissions, atomic replacement,
// damaged files.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "daemon/auth/store.h"
#include "daemon/runtime/worker.h"

namespace mcpgw::auth {
namespace {

// The real file system, through the Env the daemon uses (never started: its
// file operations need no loop).
Env& RealFiles() {
  static Worker worker("store-test");
  return worker;
}

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/mcpgw-store-test.XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    path = tmpl;
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
};

mode_t Mode(const std::string& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  REQUIRE(d);
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  closedir(d);
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StoredGrant Grant() {
  StoredGrant g;
  g.tokens.access_token = Secret("access-1");
  g.tokens.refresh_token = Secret("refresh-1");
  g.tokens.scope = "a b";
  g.tokens.expires_at = 1700000000;
  g.tokens.obtained_at = 1699990000;
  g.tokens.subject = "alice";
  g.client.source = ClientSource::kRegistered;
  g.client.client_id = "client-1";
  g.client.client_secret = Secret("client-secret-1");
  g.client.auth_method = "client_secret_post";
  g.issuer = "https://as";
  g.token_endpoint = "https://as/token";
  g.resource = "https://mcp/mcp";
  return g;
}

TEST_CASE("grants survive a round trip in a private directory", "[auth][store]") {
  TempDir tmp;
  const std::string dir = tmp.path + "/state/mcpgw/oauth";
  TokenStore store(&RealFiles(), dir);
  const std::string url = "https://mcp.example/mcp?key=SECRETKEY";
  const base::Result<std::optional<StoredGrant>> none = store.LoadGrant(url);
  REQUIRE(none.ok());  // no file: no grant, and no error
  CHECK_FALSE(*none);
  REQUIRE(store.SaveGrant(url, Grant()).ok());
  CHECK(Mode(dir) == 0700);
  CHECK(Mode(tmp.path + "/state/mcpgw") == 0700);
  CHECK(Mode(store.GrantPath(url)) == 0600);
  // The file name never shows the url (it may hold a secret).
  for (const std::string& n : Names(dir)) CHECK(n.find("SECRETKEY") == std::string::npos);
  base::Result<std::optional<StoredGrant>> loaded = store.LoadGrant(url);
  REQUIRE(loaded.ok());
  const std::optional<StoredGrant>& g = *loaded;
  REQUIRE(g);
  CHECK(g->tokens.access_token.Reveal() == "access-1");
  CHECK(g->tokens.refresh_token.Reveal() == "refresh-1");
  CHECK(g->tokens.expires_at == 1700000000);
  CHECK(g->tokens.subject == "alice");
  CHECK(g->client.client_secret.Reveal() == "client-secret-1");
  CHECK(g->client.auth_method == "client_secret_post");
  CHECK(g->token_endpoint == "https://as/token");
  // Another server's url has its own file.
  const base::Result<std::optional<StoredGrant>> other = store.LoadGrant("https://mcp.example/mcp");
  REQUIRE(other.ok());
  CHECK_FALSE(*other);
}

TEST_CASE("saving replaces the file atomically and leaves no temporary file", "[auth][store]") {
  TempDir tmp;
  TokenStore store(&RealFiles(), tmp.path + "/oauth");
  const std::string url = "https://mcp/x";
  REQUIRE(store.SaveGrant(url, Grant()).ok());
  StoredGrant next = Grant();
  next.tokens.refresh_token = Secret("refresh-2");
  REQUIRE(store.SaveGrant(url, next).ok());
  CHECK(Names(tmp.path + "/oauth").size() == 1);
  const base::Result<std::optional<StoredGrant>> replaced = store.LoadGrant(url);
  REQUIRE((replaced.ok() && *replaced));
  CHECK((*replaced)->tokens.refresh_token.Reveal() == "refresh-2");
  REQUIRE(store.DeleteGrant(url).ok());
  CHECK(Names(tmp.path + "/oauth").empty());
  CHECK(store.DeleteGrant(url).ok());  // already gone: fine
}

TEST_CASE("a directory others could read is made private", "[auth][store]") {
  TempDir tmp;
  const std::string dir = tmp.path + "/oauth";
  REQUIRE(mkdir(dir.c_str(), 0755) == 0);
  TokenStore store(&RealFiles(), dir);
  REQUIRE(store.SaveGrant("https://mcp/x", Grant()).ok());
  CHECK(Mode(dir) == 0700);
}

TEST_CASE("a token directory that is a link is refused", "[auth][store]") {
  TempDir tmp;
  const std::string elsewhere = tmp.path + "/elsewhere";
  REQUIRE(mkdir(elsewhere.c_str(), 0755) == 0);
  const std::string dir = tmp.path + "/oauth";
  REQUIRE(symlink(elsewhere.c_str(), dir.c_str()) == 0);
  TokenStore store(&RealFiles(), dir);
  const base::Status error = store.SaveGrant("https://mcp/x", Grant());
  CHECK(error.message().find(dir + " is not a directory") == 0);
  CHECK(error.message().find("; refusing to keep tokens there") != std::string::npos);
  CHECK(Names(elsewhere).empty());
  CHECK(Mode(elsewhere) == 0755);  // untouched
}

TEST_CASE("a damaged or foreign file is an error, not a crash", "[auth][store]") {
  TempDir tmp;
  TokenStore store(&RealFiles(), tmp.path);
  const std::string url = "https://mcp/x";
  REQUIRE(store.SaveGrant(url, Grant()).ok());
  std::ofstream(store.GrantPath(url)) << "{not json";
  const base::Result<std::optional<StoredGrant>> damaged = store.LoadGrant(url);
  CHECK_FALSE(damaged.ok());
  CHECK(damaged.message().find("is damaged") != std::string::npos);
  CHECK(damaged.message().find("access-1") == std::string::npos);
  // A file holding another key (copied from another server) is refused too.
  REQUIRE(store.SaveGrant("https://other/y", Grant()).ok());
  REQUIRE(std::rename(store.GrantPath("https://other/y").c_str(), store.GrantPath(url).c_str()) ==
          0);
  CHECK_FALSE(store.LoadGrant(url).ok());
}

TEST_CASE("registrations are kept per issuer", "[auth][store]") {
  TempDir tmp;
  TokenStore store(&RealFiles(), tmp.path);
  ClientIdentity c;
  c.client_id = "reg";
  c.client_secret = Secret("regsecret");
  c.auth_method = "client_secret_basic";
  c.redirect_uri = "http://127.0.0.1:5000/callback";
  c.issuer = "https://as/tenant";
  REQUIRE(store.SaveClient(c).ok());
  CHECK(Mode(store.ClientPath("https://as/tenant")) == 0600);
  base::Result<std::optional<ClientIdentity>> loaded = store.LoadClient("https://as/tenant");
  REQUIRE(loaded.ok());
  const std::optional<ClientIdentity>& back = *loaded;
  REQUIRE(back);
  CHECK(back->client_id == "reg");
  CHECK(back->client_secret.Reveal() == "regsecret");
  CHECK(back->redirect_uri == "http://127.0.0.1:5000/callback");
  const base::Result<std::optional<ClientIdentity>> other = store.LoadClient("https://as");
  REQUIRE(other.ok());
  CHECK_FALSE(*other);
  CHECK(Slurp(store.ClientPath("https://as/tenant")).find("\"key\"") != std::string::npos);
}

TEST_CASE("the token directory follows XDG_STATE_HOME", "[auth][store]") {
  auto env = [](std::optional<std::string> v) { return [v](std::string_view) { return v; }; };
  CHECK(DefaultTokenDir(env("/x/state"), "/home/u") == "/x/state/mcpgw/oauth");
  CHECK(DefaultTokenDir(env(std::nullopt), "/home/u") == "/home/u/.local/state/mcpgw/oauth");
  CHECK(DefaultTokenDir(env("relative"), "/home/u") == "/home/u/.local/state/mcpgw/oauth");
}

}  // namespace
}  // namespace mcpgw::auth
