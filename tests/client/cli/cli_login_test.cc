// `mcpgw login` and `mcpgw logout` against a scripted daemon and browser:
// what is asked, what is printed, and the exit codes.
#include <deque>
#include <optional>
#include <sstream>

#include <catch2/catch.hpp>

#include "client/cli/args.h"
#include "client/cli/login.h"
#include "client/cli/status_view.h"
#include "client/cli/subcommands.h"

namespace mcpgw::cli {
namespace {

const std::string kUrl =
    "http://as.example/"
    "authorize?response_type=code&client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A41234%"
    "2Fcallback&state=S";

class FakeAuth : public AuthApi {
 public:
  ApiResult Request(std::string_view method, const std::string& params, double timeout_s) override {
    requests.emplace_back(std::string(method), params);
    timeouts.push_back(timeout_s);
    if (method == "login") return login;
    if (method == "login_wait") {
      if (wait_takes_s) *wait_takes_s->first += wait_takes_s->second;
      return wait;
    }
    return logout;
  }
  ApiResult login{MCPGW_OK, "{\"url\":\"" + kUrl + "\",\"login\":7}"};
  ApiResult wait{MCPGW_OK, "{}"};
  ApiResult logout{MCPGW_OK, "{}"};
  std::vector<std::pair<std::string, std::string>> requests;
  std::vector<double> timeouts;
  std::optional<std::pair<double*, double>> wait_takes_s;  // login_wait advances this clock
};

class FakeDaemon : public DaemonApi {
 public:
  ApiResult GetDynamicTools(const ToolsRequest&, CancelToken*) override { return {}; }
  ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&, long long,
                            CancelToken*) override {
    return {};
  }
  ApiResult Status(CancelToken*) override {
    ++polls;
    if (statuses.size() > 1) {
      ApiResult r = statuses.front();
      statuses.pop_front();
      return r;
    }
    return statuses.front();
  }
  std::deque<ApiResult> statuses;
  int polls = 0;
};

class FakeOpener : public UrlOpener {
 public:
  base::Status Open(const std::string& url) override {
    opened.push_back(url);
    if (!works) return base::Status(base::ErrorKind::kUnavailable, "no browser here");
    return base::Status();
  }
  bool works = true;
  std::vector<std::string> opened;
};

std::string Status(const std::string& status, const std::string& extra = "") {
  return R"({"daemon":{},"servers":[{"namespace":"notion","status":")" + status + "\"" + extra +
         "}]}";
}

struct Run {
  std::ostringstream out, err;
  std::istringstream in;
  double now = 0;
  int code = -1;
};

int Login(FakeAuth& auth, FakeDaemon& daemon, FakeOpener& opener, Run& run, bool no_browser = false,
          double timeout_s = kDefaultLoginTimeoutS) {
  CommandIo io{run.out, run.err, run.in, false, false, 0, nullptr};
  WaitClock clock;
  clock.now_s = [&] { return run.now; };
  clock.sleep_s = [&](double s) { run.now += s; };
  Invocation inv;
  inv.command = FindSubcommand("login");
  inv.ns = "notion";
  inv.no_browser = no_browser;
  inv.timeout_s = timeout_s;
  run.code = RunLogin(auth, daemon, inv, io, opener, clock);
  return run.code;
}

TEST_CASE("login opens the browser, waits, and exits 0 once the server is ready", "[cli][login]") {
  FakeAuth auth;
  FakeDaemon daemon;
  daemon.statuses = {
      {MCPGW_OK, Status("loading")},
      {MCPGW_OK, Status("ready", R"(,"oauth":{"state":"authorized","subject":"alice"})")}};
  FakeOpener opener;
  Run run;
  CHECK(Login(auth, daemon, opener, run) == 0);
  REQUIRE(auth.requests.size() == 2);
  CHECK(auth.requests[0] ==
        std::make_pair(std::string("login"), std::string(R"({"namespace":"notion"})")));
  CHECK(auth.requests[1] == std::make_pair(std::string("login_wait"),
                                           std::string(R"({"namespace":"notion","login":7})")));
  CHECK(auth.timeouts[1] == kDefaultLoginTimeoutS);
  CHECK(opener.opened == std::vector<std::string>{kUrl});
  CHECK(run.out.str() == "notion: logged in as alice\n");
  CHECK(run.err.str().find("opened the browser") != std::string::npos);
  CHECK(daemon.polls == 2);
}

TEST_CASE("login --no-browser prints the URL and how to forward the port", "[cli][login]") {
  FakeAuth auth;
  FakeDaemon daemon;
  daemon.statuses = {{MCPGW_OK, Status("ready")}};
  FakeOpener opener;
  Run run;
  CHECK(Login(auth, daemon, opener, run, /*no_browser=*/true) == 0);
  CHECK(opener.opened.empty());
  const std::string out = run.out.str();
  CHECK(out.find("open this URL in a browser:\n\n  " + kUrl + "\n") != std::string::npos);
  CHECK(out.find("ssh -L 41234:127.0.0.1:41234 <this host>") != std::string::npos);
  CHECK(out.find("notion: logged in\n") != std::string::npos);
}

TEST_CASE("login without a browser falls back to printing the URL", "[cli][login]") {
  FakeAuth auth;
  FakeDaemon daemon;
  daemon.statuses = {{MCPGW_OK, Status("ready")}};
  FakeOpener opener;
  opener.works = false;
  Run run;
  CHECK(Login(auth, daemon, opener, run) == 0);
  CHECK(run.err.str().find("mcpgw: no browser here\n") != std::string::npos);
  CHECK(run.out.str().find(kUrl) != std::string::npos);
}

TEST_CASE("login failures exit with their kind's code and say why", "[cli][login]") {
  FakeDaemon daemon;
  daemon.statuses = {{MCPGW_OK, Status("ready")}};
  FakeOpener opener;
  SECTION("unknown server") {
    FakeAuth auth;
    auth.login = {MCPGW_INVALID_REQUEST, "unknown namespace \"nope\""};
    Run run;
    CHECK(Login(auth, daemon, opener, run) == 3);
    CHECK(run.err.str() == "mcpgw: invalid_request: unknown namespace \"nope\"\n");
    CHECK(opener.opened.empty());
  }
  SECTION("discovery failed") {
    FakeAuth auth;
    auth.login = {MCPGW_TRANSPORT, "protected resource metadata is not valid JSON"};
    Run run;
    CHECK(Login(auth, daemon, opener, run) == 5);
  }
  SECTION("the authorization failed") {
    FakeAuth auth;
    auth.wait = {MCPGW_TRANSPORT, "authorization denied: access_denied"};
    Run run;
    CHECK(Login(auth, daemon, opener, run) == 5);
    CHECK(run.err.str().find(
              "mcpgw: login to notion failed: authorization denied: access_denied\n") !=
          std::string::npos);
  }
  SECTION("the daemon is not running") {
    FakeAuth auth;
    auth.login = {MCPGW_UNAVAILABLE, "mcpgwd is not running"};
    Run run;
    CHECK(Login(auth, daemon, opener, run) == 7);
  }
}

TEST_CASE("login whose browser never comes back gives up after --timeout and says so",
          "[cli][login]") {
  FakeAuth auth;
  FakeDaemon daemon;
  daemon.statuses = {{MCPGW_OK, Status("error")}};
  FakeOpener opener;
  Run run;
  auth.wait = {MCPGW_TRANSPORT, "mcpgwd did not answer in time"};
  auth.wait_takes_s = std::make_pair(&run.now, 3.0);
  CHECK(Login(auth, daemon, opener, run, false, 3) == 5);
  CHECK(auth.timeouts.back() == 3);
  CHECK(run.err.str().find("mcpgw: login to notion failed: no authorization within 3 s (the "
                           "browser did not come back to mcpgwd); run \"mcpgw login notion\" "
                           "again\n") != std::string::npos);
}

TEST_CASE("login that leaves the server in error exits 4 with its reason", "[cli][login]") {
  FakeAuth auth;
  FakeDaemon daemon;
  daemon.statuses = {{MCPGW_OK, Status("error", R"(,"reason":"HTTP 403 from server")")}};
  FakeOpener opener;
  Run run;
  CHECK(Login(auth, daemon, opener, run) == 4);
  CHECK(run.err.str().find(
            "mcpgw: notion is authorized but not ready: error: HTTP 403 from server") !=
        std::string::npos);
}

TEST_CASE("login gives up waiting for ready after 30 s", "[cli][login]") {
  FakeAuth auth;
  FakeDaemon daemon;
  daemon.statuses = {{MCPGW_OK, Status("loading")}};
  FakeOpener opener;
  Run run;
  CHECK(Login(auth, daemon, opener, run) == 4);
  CHECK(run.now >= kReadyTimeoutS);
  CHECK(run.now < kReadyTimeoutS + 1);
}

TEST_CASE("logout asks the daemon and says so", "[cli][login]") {
  FakeAuth auth;
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
  Invocation inv;
  inv.ns = "notion";
  CHECK(RunLogout(auth, inv, io) == 0);
  CHECK(auth.requests[0] ==
        std::make_pair(std::string("logout"), std::string(R"({"namespace":"notion"})")));
  CHECK(out.str() == "notion: logged out\n");
  auth.logout = {MCPGW_INVALID_REQUEST, "unknown namespace \"notion\""};
  CHECK(RunLogout(auth, inv, io) == 3);
}

TEST_CASE("login and logout parse their arguments", "[cli][args][login]") {
  base::Result<ParseResult> r = ParseArgs({"login", "notion", "--no-browser"});
  REQUIRE((r.ok() && r->invocation));
  CHECK(r->invocation->command->name == "login");
  CHECK(r->invocation->ns == "notion");
  CHECK(r->invocation->no_browser);
  CHECK(r->invocation->timeout_s == kDefaultLoginTimeoutS);
  r = ParseArgs({"login", "notion", "--timeout", "12"});
  REQUIRE((r.ok() && r->invocation));
  CHECK(r->invocation->timeout_s == 12);
  CHECK_FALSE(r->invocation->no_browser);
  r = ParseArgs({"logout", "notion"});
  REQUIRE((r.ok() && r->invocation));
  CHECK(r->invocation->command->name == "logout");
  CHECK(ParseArgs({"login"}).kind() == base::ErrorKind::kInvalidInput);  // misuse: exit 2
  CHECK_FALSE(ParseArgs({"logout"}).ok());
}

TEST_CASE("status shows who each OAuth server is logged in as, never a token",
          "[cli][status][login]") {
  const char* json = R"({"daemon":{"version":"0.1.0"},"servers":[
    {"namespace":"linear","status":"error","reason":"authorization required: run \"mcpgw login linear\"",
     "oauth":{"state":"login required","subject":"","scopes":"","expires_unix":null,
              "error":"authorization required: run \"mcpgw login linear\""}},
    {"namespace":"notion","status":"ready","reason":"",
     "oauth":{"state":"authorized","subject":"alice\u001b[31m","scopes":"read write","expires_unix":1000900}},
    {"namespace":"plain","status":"ready","reason":"","oauth":null}]})";
  auto view = ParseStatus(json);
  REQUIRE(view);
  RenderOptions options;
  options.now_unix = 1000000;
  const std::string out = RenderStatus(*view, options);
  INFO(out);
  CHECK(out.find("\nOAUTH\n") != std::string::npos);
  CHECK(out.find("notion  authorized as alice, scopes read write, token expires in 15m 0s\n") !=
        std::string::npos);
  CHECK(out.find("linear  login required: authorization required: run \"mcpgw login linear\"\n") !=
        std::string::npos);
  CHECK(out.substr(out.find("\nOAUTH\n")).find("plain") == std::string::npos);
  CHECK(out.find('\x1b') == std::string::npos);
}

}  // namespace
}  // namespace mcpgw::cli
