// The AuthManager's refreshes on a fake clock (docs/AUTH.md "Refresh"): ahead
// of expiry, once after a 401, rotation stored at once, invalid_grant,
// failures and timeouts, one refresh at a time, expiry without a refresh
// token, a refresh due during a login, and shutdown finishing a refresh in
// flight. Also: no secret in any log line.
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "tests/daemon/auth/manager_rig.h"

namespace mcpgw::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("refresh: ahead of expiry, a quarter of the lifetime before, at most a minute",
          "[auth][manager][refresh]") {
  struct Case {
    int64_t ttl;
    int64_t at;  // seconds after the tokens were obtained
  };
  const Case c = GENERATE(Case{100, 75}, Case{3600, 3540}, Case{2, 1});
  INFO("a token of " << c.ttl << " s");
  ManagerRig rig;
  rig.as.ttl = c.ttl;
  rig.Authorize();
  const std::string first = rig.link.Current();
  const std::string first_refresh = rig.Stored()->tokens.refresh_token.Reveal();
  rig.world.Advance(seconds(c.at) - milliseconds(1));
  CHECK(rig.as.TokenRequests() == 1);  // the code exchange only
  rig.world.Advance(milliseconds(1));
  REQUIRE(rig.as.Count("token_refresh") == 1);
  CHECK(rig.as.refresh_tokens_used[0] == first_refresh);
  CHECK(rig.link.Current() != first);
  CHECK(rig.link.authorized == 1);  // the session was not waiting: nothing to re-send
  // The rotated refresh token is stored at once, and the next refresh uses it.
  const std::string rotated = rig.Stored()->tokens.refresh_token.Reveal();
  CHECK(rotated != first_refresh);
  CHECK("Bearer " + rig.Stored()->tokens.access_token.Reveal() == rig.link.Current());
  rig.world.Advance(seconds(c.at));
  REQUIRE(rig.as.Count("token_refresh") == 2);
  CHECK(rig.as.refresh_tokens_used[1] == rotated);
  CHECK(rig.as.Count("invalid_grant") == 0);
  CHECK(rig.as.Count("authorize") == 1);
}

TEST_CASE("refresh: tokens that expired while the daemon was down are refreshed at start",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  rig.manager.reset();
  rig.world.Advance(std::chrono::hours(5));
  rig.Start();
  const std::string stored = rig.Add();
  CHECK_FALSE(stored.empty());  // sent until the refresh answers
  rig.world.Advance(milliseconds(1));
  CHECK(rig.as.Count("token_refresh") == 1);
  CHECK_FALSE(rig.link.Current().empty());
  CHECK(rig.link.Current() != stored);
  CHECK(rig.as.Count("authorize") == 1);
}

TEST_CASE(
    "refresh: without a refresh token nothing is refreshed, the 401 after expiry "
    "authorizes anew",
    "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.issue_refresh = false;
  rig.as.ttl = 100;
  rig.Authorize();
  CHECK_FALSE(rig.Status().refreshable);
  CHECK_FALSE(rig.env.NextDue());  // no timer armed at all
  rig.world.Advance(std::chrono::hours(2));
  CHECK(rig.as.TokenRequests() == 1);
  rig.Ask();
  CHECK(rig.as.Count("token_refresh") == 0);
  CHECK(rig.browser->opened.size() == 2);
  CHECK(rig.link.authorized == 2);
}

TEST_CASE("refresh: a 401 refreshes once, a second 401 authorizes anew",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.Authorize();
  rig.Ask();
  CHECK(rig.as.Count("token_refresh") == 1);
  CHECK(rig.link.authorized == 2);
  CHECK(rig.browser->opened.size() == 1);
  CHECK(rig.State() == "authorized");

  SECTION("the refreshed token is refused too: a new authorization, no second refresh") {
    rig.Ask();
    CHECK(rig.as.Count("token_refresh") == 1);
    CHECK(rig.browser->opened.size() == 2);
    CHECK(rig.link.authorized == 3);
  }
  SECTION("once a request went through with it, a 401 deserves a refresh again") {
    rig.manager->Succeeded(1);
    rig.Ask();
    CHECK(rig.as.Count("token_refresh") == 2);
    CHECK(rig.browser->opened.size() == 1);
  }
}

TEST_CASE("refresh: invalid_grant forgets the tokens and authorizes anew",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.Authorize();
  rig.as.RevokeRefreshTokens();
  rig.Ask();
  CHECK(rig.as.Count("invalid_grant") == 1);
  CHECK(rig.link.failures.empty());
  // The dead tokens were dropped before the new ones came.
  REQUIRE(rig.link.authorization.size() == 3);
  CHECK(rig.link.authorization[1].empty());
  CHECK(rig.browser->opened.size() == 2);
  CHECK(rig.link.authorized == 2);
  CHECK("Bearer " + rig.Stored()->tokens.access_token.Reveal() == rig.link.Current());
}

TEST_CASE("refresh: a failed refresh keeps the tokens and is tried again 30 s later",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  const std::string token = rig.link.Current();
  rig.as.token = "500";
  rig.world.Advance(seconds(75));
  CHECK(rig.as.TokenRequests() == 2);
  CHECK(rig.State() == "authorized");
  CHECK(rig.Status().error == "token refresh failed: token endpoint answered HTTP 500");
  CHECK(rig.link.Current() == token);  // nobody was told anything
  CHECK(rig.link.failures.empty());
  rig.world.Advance(seconds(30) - milliseconds(1));
  CHECK(rig.as.TokenRequests() == 2);
  rig.world.Advance(milliseconds(1));
  CHECK(rig.as.TokenRequests() == 3);
  rig.as.token = "ok";
  rig.world.Advance(seconds(30));
  CHECK(rig.as.Count("token_refresh") == 1);
  CHECK(rig.link.Current() != token);
  CHECK(rig.Status().error.empty());
}

TEST_CASE("refresh: one without an answer is abandoned after 30 s and the session is told",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.Authorize();
  rig.as.token = "hang";
  rig.Ask();
  CHECK(rig.State() == "refreshing");
  rig.world.Advance(seconds(30) - milliseconds(1));
  CHECK(rig.link.failures.empty());
  rig.world.Advance(milliseconds(1));
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] == "token refresh timed out");
  CHECK(rig.State() == "authorized");  // the tokens stay: the server may only be unreachable
  CHECK(rig.as.PendingToken() == nullptr);
}

TEST_CASE("refresh: one at a time, a 401 during a refresh is answered by it",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  rig.as.token = "hang";
  rig.world.Advance(seconds(75));
  REQUIRE(rig.State() == "refreshing");
  rig.Ask();
  rig.Ask();
  CHECK(rig.as.TokenRequests() == 2);
  CHECK(rig.browser->opened.size() == 1);
  rig.as.token = "ok";
  rig.world.Settle();
  CHECK(rig.link.authorized == 2);
  CHECK(rig.State() == "authorized");
}

TEST_CASE("refresh: one due during a login waits for it, then follows the new tokens",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  const base::Result<auth::LoginStarted> started = rig.Login();
  REQUIRE(started.ok());
  rig.world.Advance(seconds(80));
  CHECK(rig.as.Count("token_refresh") == 0);
  CHECK(rig.State() == "waiting for consent");
  rig.Consent(started->url);
  CHECK(rig.State() == "authorized");
  rig.world.Advance(seconds(75) - milliseconds(1));
  CHECK(rig.as.Count("token_refresh") == 0);
  rig.world.Advance(milliseconds(1));
  CHECK(rig.as.Count("token_refresh") == 1);
}

TEST_CASE("refresh: logout during a refresh does not leave the session waiting",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.Authorize();
  rig.as.token = "hang";
  rig.Ask();
  rig.manager->Logout("prot", [](const base::Status&) {});
  REQUIRE(rig.link.failures.size() == 1);
  CHECK(rig.link.failures[0] == auth::LoginRequiredReason("prot"));
  CHECK(rig.as.PendingToken() == nullptr);
  CHECK(rig.State() == "login required");
}

TEST_CASE("shutdown: a refresh in flight is finished and stored", "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  const std::string before = rig.Stored()->tokens.refresh_token.Reveal();
  rig.as.token = "hang";
  rig.world.Advance(seconds(75));
  REQUIRE(rig.State() == "refreshing");
  const size_t told = rig.link.authorization.size();
  bool done = false;
  rig.manager->Shutdown(seconds(3), [&] { done = true; });
  rig.world.Settle();
  CHECK_FALSE(done);

  SECTION("the answer comes: the rotated refresh token is kept for the next start") {
    rig.as.token = "ok";
    rig.world.Settle();
    CHECK(done);
    const std::string after = rig.Stored()->tokens.refresh_token.Reveal();
    CHECK(after != before);
    CHECK(rig.as.refresh_tokens_used.back() == before);
    CHECK(rig.link.authorization.size() == told);  // sessions are gone: not told
    rig.Start();
    rig.as.token = "ok";
    rig.Add();
    rig.Ask();
    CHECK(rig.as.Count("invalid_grant") == 0);
  }
  SECTION("an answer slower than the grace is still waited for and kept") {
    // The server rotated the token when the request arrived; only its late
    // answer holds the new one. Giving up at the grace would leave the store
    // with a spent refresh token.
    rig.world.Advance(seconds(10));
    CHECK_FALSE(done);
    REQUIRE(rig.as.PendingToken() != nullptr);
    rig.as.token = "ok";
    rig.world.Settle();
    CHECK(done);
    const std::string after = rig.Stored()->tokens.refresh_token.Reveal();
    CHECK(after != before);
    rig.Start();
    rig.Add();
    rig.world.Advance(seconds(100));  // the restarted daemon refreshes: with the new token
    REQUIRE(rig.as.refresh_tokens_used.size() == 2);
    CHECK(rig.as.refresh_tokens_used.back() == after);
    CHECK(rig.as.Count("invalid_grant") == 0);
  }
  SECTION("no answer at all: given up at the refresh's own 30 s bound") {
    // 75 s in, the refresh started at 75 s: its bound is 105 s.
    rig.world.Advance(seconds(30) - milliseconds(1));
    CHECK_FALSE(done);
    rig.world.Advance(milliseconds(1));
    CHECK(done);
    CHECK(rig.as.PendingToken() == nullptr);
    CHECK(rig.Stored()->tokens.refresh_token.Reveal() == before);
  }
}

TEST_CASE("shutdown: no refresh starts once the daemon stops", "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  bool done = false;
  rig.manager->Shutdown(seconds(3), [&] { done = true; });
  rig.world.Advance(seconds(200));  // past the refresh time
  CHECK(done);
  CHECK(rig.as.TokenRequests() == 1);  // the code exchange only
}

TEST_CASE("token requests are never re-sent by the transport", "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  rig.world.Advance(seconds(75));
  REQUIRE(rig.as.Count("token_refresh") == 1);
  // A second copy of a refresh would present a spent token.
  CHECK(rig.as.token_requests_at_most_once == std::vector<bool>{true, true});
}

TEST_CASE("shutdown: with nothing in flight it ends on the next turn and logins are told",
          "[auth][manager][refresh]") {
  ManagerRig rig;
  rig.Add();
  const base::Result<auth::LoginStarted> started = rig.Login();
  REQUIRE(started.ok());
  auto waiting = rig.WaitLogin(started->login);
  bool done = false;
  rig.manager->Shutdown(seconds(3), [&] { done = true; });
  CHECK_FALSE(done);  // never inline
  REQUIRE(waiting->outcome);
  CHECK(waiting->outcome->second == "the daemon is stopping");
  CHECK_FALSE(rig.callback->open());
  rig.world.Settle();
  CHECK(done);
}

// Collects every log line the manager writes while it lives.
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_st>(out_));
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST_CASE("no token, code, verifier or client secret reaches a log line",
          "[auth][manager][refresh]") {
  CapturedLog log;
  ManagerRig rig;
  rig.as.ttl = 100;
  rig.Authorize();
  rig.world.Advance(seconds(75));  // refresh ahead of expiry
  rig.Ask();                       // refresh after a 401
  rig.as.RevokeRefreshTokens();
  rig.manager->Succeeded(1);
  rig.Ask();  // invalid_grant, new authorization
  rig.as.token = "500";
  rig.world.Advance(seconds(75));  // a failed refresh
  rig.manager->Logout("prot", [](const base::Status&) {});
  rig.world.Settle();
  const std::string text = log.text();
  REQUIRE(text.find("token refreshed") != std::string::npos);  // the log was captured
  CHECK(text.find("SENTINEL_") == std::string::npos);
  REQUIRE(rig.link.secrets.size() >= 8);
  for (const std::string& secret : rig.link.secrets) {
    INFO("a secret of " << secret.size() << " characters");
    CHECK(text.find(secret) == std::string::npos);
  }
}

}  // namespace
}  // namespace mcpgw::testing
