// The OAuth world of AuthManager tests, on a FakeEnv: FakeAuthServer, an
// MCP server's resource metadata and its authorization server as a scripted
// FakeHttp server (what tests/fixtures/oauth-server.mjs does over real
// sockets: dynamic registration, PKCE checks, rotating refresh tokens,
// revocation, and misbehaviour on request); FakeCallback, the loopback
// endpoint without a socket; and FakeBrowser, a user who follows the
// authorization URL to the server and its redirect to the callback. Every
// secret it issues starts with SENTINEL_, so a test can look for leaks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "base/base64.h"
#include "daemon/auth/browser.h"
#include "daemon/auth/callback_listener.h"
#include "daemon/auth/pkce.h"
#include "daemon/auth/url.h"
#include "tests/daemon/testing/fake_env.h"

namespace mcpgw::testing {

class FakeAuthServer {
 public:
  static constexpr const char* kMcpUrl = "https://mcp.example/mcp";
  static constexpr const char* kPrmUrl =
      "https://mcp.example/.well-known/oauth-protected-resource/mcp";
  static constexpr const char* kIssuer = "https://auth.example";

  explicit FakeAuthServer(FakeHttp* http) : http_(http) {
    http->server = [this](FakeTransfer& t) { return Serve(t); };
  }

  // How it behaves (the fixture's /__control).
  std::string prm = "ok";        // "ok", "malformed", "other-resource", "none" (404: no OAuth)
  std::string issuer_named;      // the issuer its metadata names ("": its own)
  std::string token = "ok";      // "ok", "html", "500", "hang" (never answers)
  std::string authorize = "ok";  // "ok", "deny", "wrong-state", "silent"
  int64_t ttl = 3600;            // lifetime of new access tokens, seconds
  bool rotate = true;            // a refresh token works once
  bool issue_refresh = true;     // token answers carry a refresh token

  std::map<std::string, int> counts;              // "prm", "register", "token_refresh" ...
  std::vector<std::string> refresh_tokens_used;   // in order
  std::vector<std::string> scopes_asked;          // at /authorize, in order
  std::vector<bool> token_requests_at_most_once;  // of each answered token request

  int Count(const std::string& what) const {
    auto it = counts.find(what);
    return it == counts.end() ? 0 : it->second;
  }
  void RevokeRefreshTokens() {
    for (auto& [t, live] : refresh_) live = false;
  }
  // Token requests sent to it, answered or still hanging.
  size_t TokenRequests() const { return http_->Started(std::string(kIssuer) + "/token"); }
  // The token request left hanging ("hang"), or null.
  FakeTransfer* PendingToken() {
    for (FakeTransfer* t : http_->Live()) {
      if (t->request.url == std::string(kIssuer) + "/token") return t;
    }
    return nullptr;
  }
  // What the authorization endpoint does with the user's visit to `url`: the
  // redirect's location, or nullopt when the user walks away ("silent").
  std::optional<std::string> Authorize(const std::string& url) {
    ++counts["authorize"];
    const auth::Params q = auth::DecodeParams(url.substr(url.find('?') + 1));
    auto get = [&](const char* k) { return auth::FindParam(q, k).value_or(""); };
    scopes_asked.push_back(get("scope"));
    if (authorize == "silent") return std::nullopt;
    auth::Params back;
    if (authorize == "deny") {
      back = {{"error", "access_denied"}, {"error_description", "the user said no"}};
    } else {
      const std::string code = "SENTINEL_CODE_" + std::to_string(++serial_);
      codes_[code] = Code{get("client_id"), get("code_challenge"), get("redirect_uri"),
                          get("scope"), get("resource")};
      back = {{"code", code}};
    }
    back.emplace_back("state", authorize == "wrong-state" ? "forged" : get("state"));
    return auth::AppendParams(get("redirect_uri"), back);
  }

 private:
  struct Code {
    std::string client, challenge, redirect, scope, resource;
  };

  bool Serve(FakeTransfer& t) {
    const std::string& url = t.request.url;
    const std::string issuer = kIssuer;
    if (url == kPrmUrl) return Prm(t);
    if (url == issuer + "/.well-known/oauth-authorization-server") return Metadata(t);
    if (url == issuer + "/register") return Register(t);
    if (url == issuer + "/token") return Token(t);
    if (url == issuer + "/revoke") {
      ++counts["revoke"];
      const auth::Params form = auth::DecodeParams(t.request.body);
      refresh_[auth::FindParam(form, "token").value_or("")] = false;
      http_->Answer(t, 200, "text/plain", "");
      return true;
    }
    http_->Answer(t, 404, "application/json", R"({"error":"not found"})");
    return true;
  }

  bool Prm(FakeTransfer& t) {
    ++counts["prm"];
    if (prm == "none") {
      http_->Answer(t, 404, "text/html", "<html>not found</html>");
      return true;
    }
    if (prm == "malformed") {
      http_->Answer(t, 200, "application/json", R"({"resource": "https://mcp.example/mcp", "a)");
      return true;
    }
    const std::string resource = prm == "other-resource" ? "https://evil.example.com/mcp" : kMcpUrl;
    http_->Answer(t, 200, "application/json",
                  R"({"resource":")" + resource + R"(","authorization_servers":[")" + kIssuer +
                      R"("],"scopes_supported":["mcp:tools"]})");
    return true;
  }

  bool Metadata(FakeTransfer& t) {
    ++counts["metadata"];
    const std::string i = kIssuer;
    http_->Answer(t, 200, "application/json",
                  R"({"issuer":")" + (issuer_named.empty() ? i : issuer_named) +
                      R"(","authorization_endpoint":")" + i + R"(/authorize","token_endpoint":")" +
                      i + R"(/token","registration_endpoint":")" + i +
                      R"(/register","revocation_endpoint":")" + i +
                      R"(/revoke","code_challenge_methods_supported":["S256"],)"
                      R"("token_endpoint_auth_methods_supported":["client_secret_post"],)"
                      R"("scopes_supported":["mcp:tools","offline_access"]})");
    return true;
  }

  bool Register(FakeTransfer& t) {
    ++counts["register"];
    rapidjson::Document meta;
    meta.Parse(t.request.body.c_str());
    std::string redirect;
    if (meta.IsObject() && meta.HasMember("redirect_uris") && meta["redirect_uris"].IsArray() &&
        !meta["redirect_uris"].Empty()) {
      redirect = meta["redirect_uris"][0].GetString();
    }
    const std::string id = "client-" + std::to_string(++serial_);
    const std::string secret = "SENTINEL_CS_" + std::to_string(serial_);
    clients_[id] = secret;
    http_->Answer(t, 201, "application/json",
                  R"({"client_id":")" + id + R"(","client_secret":")" + secret +
                      R"(","token_endpoint_auth_method":"client_secret_post","redirect_uris":[")" +
                      redirect + R"("]})");
    return true;
  }

  bool Token(FakeTransfer& t) {
    if (token == "hang") return false;
    token_requests_at_most_once.push_back(t.request.at_most_once);
    if (token == "html" || token == "500") {
      http_->Answer(t, token == "html" ? 200 : 500, "text/html", "<html><body>no</body></html>");
      return true;
    }
    const auth::Params form = auth::DecodeParams(t.request.body);
    auto get = [&](const char* k) { return auth::FindParam(form, k).value_or(""); };
    auto it = clients_.find(get("client_id"));
    if (it == clients_.end() || it->second != get("client_secret")) {
      return Error(t, 401, "invalid_client", "unknown client or wrong secret");
    }
    if (get("grant_type") == "authorization_code") {
      ++counts["token_code"];
      auto code = codes_.find(get("code"));
      if (code == codes_.end() ||
          auth::CodeChallengeS256(get("code_verifier")) != code->second.challenge ||
          code->second.redirect != get("redirect_uri") ||
          code->second.resource != get("resource")) {
        return Error(t, 400, "invalid_grant", "bad code or verifier");
      }
      const std::string scope = code->second.scope;
      codes_.erase(code);
      return Tokens(t, scope);
    }
    ++counts["token_refresh"];
    const std::string used = get("refresh_token");
    refresh_tokens_used.push_back(used);
    auto rt = refresh_.find(used);
    if (rt == refresh_.end() || !rt->second) {
      ++counts["invalid_grant"];
      return Error(t, 400, "invalid_grant", "the refresh token is not valid");
    }
    if (rotate) rt->second = false;
    return Tokens(t, "mcp:tools offline_access");
  }

  bool Tokens(FakeTransfer& t, const std::string& scope) {
    const int n = ++serial_;
    // JWT-shaped so the manager can show a subject; the signature is not real.
    const std::string access =
        "SENTINEL_AT_" + std::to_string(n) + "." +
        base::Base64Url(R"({"sub":"alice","jti":")" + std::to_string(n) + R"("})") + ".sig";
    std::string body = R"({"access_token":")" + access +
                       R"(","token_type":"Bearer","expires_in":)" + std::to_string(ttl);
    if (issue_refresh) {
      const std::string rt = "SENTINEL_RT_" + std::to_string(n);
      refresh_[rt] = true;
      body += R"(,"refresh_token":")" + rt + "\"";
    }
    if (!scope.empty()) body += R"(,"scope":")" + scope + "\"";
    http_->Answer(t, 200, "application/json", body + "}");
    return true;
  }

  bool Error(FakeTransfer& t, int status, const std::string& error, const std::string& desc) {
    http_->Answer(t, status, "application/json",
                  R"({"error":")" + error + R"(","error_description":")" + desc + "\"}");
    return true;
  }

  FakeHttp* http_;
  int serial_ = 0;
  std::map<std::string, std::string> clients_;  // id → secret
  std::map<std::string, Code> codes_;
  std::map<std::string, bool> refresh_;  // token → live
};

// The loopback endpoint, without a socket: a test (or FakeBrowser) delivers
// the redirect.
class FakeCallback : public auth::CallbackEndpoint {
 public:
  base::Result<int> Open(int preferred_port, Handler handler) override {
    if (refuse) return base::IoError("cannot listen on 127.0.0.1: address already in use");
    handler_ = std::move(handler);
    if (port_ == 0) port_ = preferred_port > 0 ? preferred_port : 41234;
    ++opened;
    return port_;
  }
  void Close() override {
    handler_ = nullptr;
    port_ = 0;
  }
  bool open() const { return handler_ != nullptr; }

  // A browser arriving at `location`: the page it gets, or nullopt when
  // nothing listens there (closed, or another port).
  std::optional<Page> Deliver(const std::string& location) {
    const std::string prefix = "http://127.0.0.1:" + std::to_string(port_) + "/callback?";
    if (!handler_ || location.rfind(prefix, 0) != 0) return std::nullopt;
    const Handler handler = handler_;  // it may close the endpoint
    return handler(location.substr(prefix.size()));
  }

  bool refuse = false;  // Open fails
  int opened = 0;

 private:
  Handler handler_;
  int port_ = 0;
};

// The user's browser: records what it was asked to open and, as `mode`
// says, follows it to the authorization server and back to the callback
// (on the next turn of the loop, as a real browser answers later), never
// gets to it, or cannot run at all.
class FakeBrowser : public auth::BrowserLauncher {
 public:
  enum class Mode { kFollow, kIgnore, kFail };

  FakeBrowser(FakeEnv* env, FakeAuthServer* as, FakeCallback* callback)
      : env_(env), as_(as), callback_(callback) {}

  void Launch(const auth::BrowserChoice& browser, const std::string& url, Done done) override {
    opened.push_back(url);
    programs.push_back(browser.program);
    if (mode == Mode::kFail) {
      env_->Post([done] { done(base::IoError("the browser program exited with status 1")); });
      return;
    }
    env_->Post([done] { done(base::Status()); });
    if (mode == Mode::kFollow) env_->Post([this, url] { Follow(url); });
  }

  // What a browser does with an authorization URL.
  void Follow(const std::string& url) {
    std::optional<std::string> location = as_->Authorize(url);
    if (!location) return;
    if (std::optional<auth::CallbackEndpoint::Page> page = callback_->Deliver(*location)) {
      pages.push_back(*page);
    }
  }

  Mode mode = Mode::kFollow;
  std::vector<std::string> opened;                  // authorization URLs, in order
  std::vector<std::string> programs;                // the program each was opened with
  std::vector<auth::CallbackEndpoint::Page> pages;  // what the user saw after a redirect

 private:
  FakeEnv* env_;
  FakeAuthServer* as_;
  FakeCallback* callback_;
};

}  // namespace mcpgw::testing
