// An AuthManager on a fake clock, for manager_test.cc and
// manager_refresh_test.cc: FakeEnv (files in memory, scripted HTTP), the
// fake authorization server, the fake browser and callback endpoint, and a
// SessionLink that records what the manager tells the server's session.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/auth/manager.h"
#include "daemon/auth/store.h"
#include "tests/daemon/testing/fake_oauth.h"

namespace mcpgw::testing {

// What the manager tells the session of server 1.
struct RecordingLink : auth::SessionLink {
  std::vector<std::string> authorization;  // every SetAuthorization value
  int authorized = 0;
  std::vector<std::string> failures;
  std::vector<std::string> secrets;
  void SetAuthorization(uint64_t, const Secret& v) override { authorization.push_back(v.Reveal()); }
  void Authorized(uint64_t) override { ++authorized; }
  void AuthorizationFailed(uint64_t, const std::string& reason) override {
    failures.push_back(reason);
  }
  void LearnSecret(const Secret& v) override { secrets.push_back(v.Reveal()); }
  std::string Current() const { return authorization.empty() ? "" : authorization.back(); }
};

inline const std::string kTokenDir = "/home/u/.local/state/mcpgw/oauth";

inline std::string Challenge(const std::string& extra = "") {
  return "Bearer error=\"invalid_token\", resource_metadata=\"" +
         std::string(FakeAuthServer::kPrmUrl) + "\"" + extra;
}

struct ManagerRig {
  FakeWorld world;
  FakeEnv env{&world};
  FakeAuthServer as{&env.http()};
  RecordingLink link;
  std::map<std::string, std::string> environment{{"MCPGW_BROWSER", "/usr/bin/test-browser"}};
  auth::AuthManagerOptions options;
  FakeCallback* callback = nullptr;  // owned by the manager
  FakeBrowser* browser = nullptr;    // likewise
  std::unique_ptr<auth::AuthManager> manager;

  ManagerRig() {
    options.token_dir = kTokenDir;
    options.get_env = [this](std::string_view name) -> std::optional<std::string> {
      auto it = environment.find(std::string(name));
      if (it == environment.end()) return std::nullopt;
      return it->second;
    };
    Start();
  }
  ~ManagerRig() { manager.reset(); }

  // A new manager on the same files and servers: the daemon restarted.
  void Start() {
    if (manager) world.Settle();  // the browser's pending steps need the old manager
    manager.reset();
    auto cb = std::make_unique<FakeCallback>();
    callback = cb.get();
    auto br = std::make_unique<FakeBrowser>(&env, &as, callback);
    browser = br.get();
    manager = std::make_unique<auth::AuthManager>(auth::AuthIo{&env, std::move(cb), std::move(br)},
                                                  &link, options);
  }

  config::RemoteServer Server() const {
    config::RemoteServer r;
    r.url = Secret(FakeAuthServer::kMcpUrl);
    r.url_redacted = FakeAuthServer::kMcpUrl;
    return r;
  }
  std::string Add() { return manager->AddServer(1, "prot", Server()).Reveal(); }
  // The session got `status` with `challenge`; the world runs until quiet.
  void Ask(int status = 401, const std::string& challenge = Challenge()) {
    manager->AuthorizationNeeded(1, status, challenge);
    world.Settle();
  }
  // Add() and a first authorization through the browser.
  void Authorize() {
    Add();
    Ask();
    REQUIRE(link.failures.empty());
    REQUIRE(link.authorized == 1);
  }
  auth::OAuthStatus Status() const { return manager->Status(1); }
  std::string State() const { return Status().state; }

  // `mcpgw login prot`: the URL it prints, or the refusal.
  base::Result<auth::LoginStarted> Login() {
    std::optional<base::Result<auth::LoginStarted>> started;
    manager->Login("prot", [&](base::Result<auth::LoginStarted> s) { started = std::move(s); });
    world.Settle();
    REQUIRE(started);
    return *std::move(started);
  }
  // What `mcpgw login` waiting on `login` is told, if it is told yet.
  struct Waiting {
    std::optional<std::pair<bool, std::string>> outcome;
  };
  std::shared_ptr<Waiting> WaitLogin(uint64_t login) {
    auto w = std::make_shared<Waiting>();
    manager->WaitLogin("prot", login, [w](const base::Status& ended) {
      w->outcome = {ended.ok(), ended.message()};
    });
    return w;
  }

  // The user opens `url` in a browser and consents; the world runs until quiet.
  void Consent(const std::string& url) {
    browser->Follow(url);
    world.Settle();
  }

  // What the store holds for the server now.
  std::optional<auth::StoredGrant> Stored() {
    auth::TokenStore store(&env, kTokenDir);
    return store.LoadGrant(FakeAuthServer::kMcpUrl).value_or(std::nullopt);
  }
  std::string GrantPath() {
    return auth::TokenStore(&env, kTokenDir).GrantPath(FakeAuthServer::kMcpUrl);
  }
};

}  // namespace mcpgw::testing
