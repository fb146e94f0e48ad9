// `mcpgw tools --learned` and `mcpgw forget` (docs/CLI.md) against a scripted
// daemon: the queries tools learned are a list per tool on a terminal, the
// daemon's JSON text into a pipe; forgetting says how many went.
#include <cstdlib>
#include <ctime>
#include <sstream>

#include <catch2/catch.hpp>

#include "client/cli/args.h"
#include "client/cli/learned_view.h"
#include "client/cli/subcommands.h"
#include "client/cli/utc_zone.h"

namespace mcpgw::cli {
namespace {

class FakeDaemon : public AuthApi {
 public:
  ApiResult Request(std::string_view method, const std::string& params, double) override {
    requests.emplace_back(std::string(method), params);
    return answer;
  }
  ApiResult answer{MCPGW_OK, "{}"};
  std::vector<std::pair<std::string, std::string>> requests;
};

// The table's handlers take a libmcpgw api too; learned and forget never use it.
class NoDaemonApi : public DaemonApi {
 public:
  ApiResult GetDynamicTools(const ToolsRequest&, CancelToken*) override { return Unused(); }
  ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&, long long,
                            CancelToken*) override {
    return Unused();
  }
  ApiResult Status(CancelToken*) override { return Unused(); }

 private:
  static ApiResult Unused() { return {MCPGW_TRANSPORT, "not expected"}; }
};

struct Io {
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
};

using testing::UtcZone;

Invocation Parse(std::vector<std::string> args) {
  base::Result<ParseResult> r = ParseArgs(args);
  INFO("stderr: " << r.message());
  REQUIRE((r.ok() && r->invocation));
  return *r->invocation;
}

// 2026-12-01 and 2026-12-07, 12:00 UTC.
constexpr const char* kTwoTools =
    R"({"learning":true,"file":"/home/me/.local/state/mcpgw/learned.json","tools":[)"
    R"({"namespace":"github","toolName":"create_issue","queries":[)"
    R"({"text":"open a ticket","uses":1,"last_unix":1796126400,"strength":0.5},)"
    R"({"text":"file a bug about the login page","uses":3,"last_unix":1796644800,"strength":1.549}]},)"
    R"({"namespace":"fs","toolName":"write_file","queries":[)"
    R"({"text":"save this to disk","uses":12,"last_unix":1796644800,"strength":2.0}]}]})";

}  // namespace

TEST_CASE("learned view: a list per tool, most recent first", "[cli][learned]") {
  UtcZone utc;
  const std::optional<std::string> text = RenderLearned(kTwoTools, {}, false);
  REQUIRE(text);
  CHECK(*text ==
        "github/create_issue — 2 queries learned\n"
        "  \"file a bug about the login page\"  (used 3×, last 2026-12-07, strength 1.549)\n"
        "  \"open a ticket\"  (used 1×, last 2026-12-01, strength 0.5)\n"
        "\n"
        "fs/write_file — 1 query learned\n"
        "  \"save this to disk\"  (used 12×, last 2026-12-07, strength 2)\n");
  // Colour makes the headers bold and changes nothing else.
  const std::optional<std::string> bold = RenderLearned(kTwoTools, {}, true);
  REQUIRE(bold);
  CHECK(bold->find("\033[1mgithub/create_issue — 2 queries learned\033[0m\n") == 0);
}

TEST_CASE("learned view: nothing learned, for what was asked", "[cli][learned]") {
  const std::string none = R"({"learning":true,"file":"/x/learned.json","tools":[]})";
  CHECK(RenderLearned(none, {}, false) == "nothing learned yet\n");
  CHECK(RenderLearned(none, {"github", std::nullopt}, false) == "github has learned nothing yet\n");
  CHECK(RenderLearned(none, {"github", "create_issue"}, false) ==
        "github/create_issue has learned nothing yet\n");
  // A tool listed without a query counts as nothing learned.
  const std::string empty_tool =
      R"({"learning":true,"file":"/x","tools":[{"namespace":"github","toolName":"create_issue",)"
      R"("queries":[]}]})";
  CHECK(RenderLearned(empty_tool, {"github", "create_issue"}, false) ==
        "github/create_issue has learned nothing yet\n");
}

TEST_CASE("learned view: learning off is said on a last line", "[cli][learned]") {
  UtcZone utc;
  const std::string off = R"({"learning":false,"file":"/x/learned.json","tools":[]})";
  CHECK(RenderLearned(off, {}, false) ==
        "nothing learned yet\n"
        "search.learn is off in settings.json: nothing more is learned\n");
  std::string kept = kTwoTools;
  kept.replace(kept.find("true"), 4, "false");
  const std::optional<std::string> text = RenderLearned(kept, {}, false);
  REQUIRE(text);
  CHECK(text->find("fs/write_file — 1 query learned\n") != std::string::npos);
  CHECK(text->ends_with(
      "strength 2)\nsearch.learn is off in settings.json: nothing more is learned\n"));
}

TEST_CASE("learned view: control characters are stripped from every text", "[cli][learned]") {
  UtcZone utc;
  const std::string hostile =
      R"({"learning":true,"file":"/x","tools":[{"namespace":"gh\u001b[31m","toolName":"mk\u0007",)"
      R"("queries":[{"text":"検索 café\u001b[2J\nrm -rf\u009b","uses":1,"last_unix":1796644800,)"
      R"("strength":1}]}]})";
  const std::optional<std::string> text = RenderLearned(hostile, {}, false);
  REQUIRE(text);
  CHECK(text->find('\x1b') == std::string::npos);
  CHECK(text->find('\a') == std::string::npos);
  CHECK(text->find("\xc2\x9b") == std::string::npos);
  CHECK(text->find("gh/mk — 1 query learned\n") == 0);
  CHECK(text->find("  \"検索 caférm -rf\"  (used 1×, last 2026-12-07, strength 1)\n") !=
        std::string::npos);
  // The scope a person typed is shown stripped too.
  CHECK(RenderLearned(R"({"learning":true,"tools":[]})", {"a\x1b[1mb", std::nullopt}, false) ==
        "ab has learned nothing yet\n");
}

TEST_CASE("learned view: an answer that is not the daemon's is an error, not a crash",
          "[cli][learned]") {
  CHECK_FALSE(RenderLearned("not json", {}, false));
  CHECK_FALSE(RenderLearned("[]", {}, false));
  CHECK_FALSE(RenderLearned(R"({"tools":{}})", {}, false));
  CHECK_FALSE(RenderLearned("", {}, false));
  // Members of the wrong type are left out, not trusted.
  const std::optional<std::string> odd = RenderLearned(
      R"({"tools":[7,{"namespace":1,"toolName":"t","queries":[3,{"text":2,"uses":"x"}]}]})", {},
      false);
  REQUIRE(odd);
  CHECK(*odd == "/t — 1 query learned\n  \"\"  (used 0×, last -, strength 0)\n");

  FakeDaemon daemon;
  daemon.answer = {MCPGW_OK, "{\"tools\":"};
  Io io;
  io.io.stdout_is_tty = true;
  CHECK(RunLearned(daemon, Parse({"tools", "--learned"}), io.io) == 5);
  CHECK(io.out.str().empty());
  CHECK(io.err.str() == "mcpgw: transport: the daemon sent learned words that are not JSON\n");
}

TEST_CASE("tools --learned: the request for what was named, a list on a terminal",
          "[cli][learned]") {
  UtcZone utc;
  FakeDaemon daemon;
  daemon.answer = {MCPGW_OK, kTwoTools};
  {
    Io io;
    io.io.stdout_is_tty = true;
    CHECK(RunLearned(daemon, Parse({"tools", "--learned"}), io.io) == 0);
    CHECK(io.out.str().find("github/create_issue — 2 queries learned\n") == 0);
  }
  {
    Io io;
    io.io.stdout_is_tty = true;
    CHECK(RunLearned(daemon, Parse({"tools", "github", "--learned"}), io.io) == 0);
  }
  {
    Io io;
    io.io.stdout_is_tty = true;
    CHECK(RunLearned(daemon, Parse({"tools", "github", "create_issue", "--learned"}), io.io) == 0);
  }
  REQUIRE(daemon.requests.size() == 3);
  CHECK(daemon.requests[0] == std::pair<std::string, std::string>("learned", "{}"));
  CHECK(daemon.requests[1].second == R"({"namespace":"github"})");
  CHECK(daemon.requests[2].second == R"({"namespace":"github","toolName":"create_issue"})");
}

TEST_CASE("tools --learned: the daemon's JSON into a pipe or with --json", "[cli][learned]") {
  FakeDaemon daemon;
  daemon.answer = {MCPGW_OK, kTwoTools};
  Io pipe;
  CHECK(RunLearned(daemon, Parse({"tools", "--learned"}), pipe.io) == 0);
  CHECK(pipe.out.str() == std::string(kTwoTools) + "\n");
  Io tty;
  tty.io.stdout_is_tty = true;
  CHECK(RunLearned(daemon, Parse({"tools", "--learned", "--json"}), tty.io) == 0);
  CHECK(tty.out.str() == std::string(kTwoTools) + "\n");
}

TEST_CASE("tools --learned and forget: a refusal exits with its kind", "[cli][learned]") {
  FakeDaemon daemon;
  daemon.answer = {MCPGW_DENIED, "learned search words belong to the daemon's own user"};
  Io io;
  io.io.stdout_is_tty = true;
  CHECK(RunLearned(daemon, Parse({"tools", "--learned"}), io.io) == 6);
  CHECK(io.err.str() == "mcpgw: denied: learned search words belong to the daemon's own user\n");
  Io forget;
  CHECK(RunForget(daemon, Parse({"forget"}), forget.io) == 6);
  CHECK(forget.out.str().empty());
}

TEST_CASE("forget: how many queries went, of what", "[cli][learned]") {
  CHECK(ForgetMessage(R"({"forgotten":5})", {}) == "forgot 5 learned queries\n");
  CHECK(ForgetMessage(R"({"forgotten":1})", {}) == "forgot 1 learned query\n");
  CHECK(ForgetMessage(R"({"forgotten":3})", {"github", std::nullopt}) ==
        "forgot 3 learned queries of github\n");
  CHECK(ForgetMessage(R"({"forgotten":2})", {"github", "create_issue"}) ==
        "forgot 2 learned queries of github/create_issue\n");
  CHECK(ForgetMessage(R"({"forgotten":0})", {"nope", "tool"}) ==
        "nothing was learned for nope/tool\n");
  CHECK(ForgetMessage(R"({"forgotten":0})", {"nope", std::nullopt}) ==
        "nothing was learned for nope\n");
  CHECK(ForgetMessage(R"({"forgotten":0})", {}) == "nothing was learned\n");
  CHECK(ForgetMessage(R"({"forgotten":0})", {"a\ab", std::nullopt}) ==
        "nothing was learned for ab\n");
  CHECK_FALSE(ForgetMessage("not json", {}));
  CHECK_FALSE(ForgetMessage(R"({"forgotten":-1})", {}));
  CHECK_FALSE(ForgetMessage(R"({"forgotten":"2"})", {}));
}

TEST_CASE("forget: sends what was named and exits 0", "[cli][learned]") {
  FakeDaemon daemon;
  daemon.answer = {MCPGW_OK, R"({"forgotten":4})"};
  Io all;
  CHECK(RunForget(daemon, Parse({"forget"}), all.io) == 0);
  CHECK(all.out.str() == "forgot 4 learned queries\n");
  Io one;
  CHECK(RunForget(daemon, Parse({"forget", "github", "create_issue"}), one.io) == 0);
  CHECK(one.out.str() == "forgot 4 learned queries of github/create_issue\n");
  REQUIRE(daemon.requests.size() == 2);
  CHECK(daemon.requests[0] == std::pair<std::string, std::string>("forget", "{}"));
  CHECK(daemon.requests[1] == std::pair<std::string, std::string>(
                                  "forget", R"({"namespace":"github","toolName":"create_issue"})"));

  daemon.answer = {MCPGW_OK, "{}"};
  Io bad;
  CHECK(RunForget(daemon, Parse({"forget"}), bad.io) == 5);
  CHECK(bad.out.str().empty());
}

TEST_CASE("forget and tools --learned: a daemon not running exits 7", "[cli][learned]") {
  NoDaemonApi api;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--socket", "/nonexistent/mcpgw-test.sock", "forget"},
        std::vector<std::string>{"--socket", "/nonexistent/mcpgw-test.sock", "tools",
                                 "--learned"}}) {
    Io io;
    Context context{api, io.io};
    const Invocation inv = Parse(args);
    CHECK(inv.command->run(inv, context) == 7);
    CHECK(io.err.str().rfind("mcpgw: unavailable: ", 0) == 0);
    CHECK(io.out.str().empty());
  }
}

TEST_CASE("tools --learned: not with --query or --limit", "[cli][learned]") {
  CHECK(Parse({"tools", "--learned"}).learned);
  CHECK_FALSE(Parse({"tools"}).learned);
  CHECK(*Parse({"forget", "github"}).ns == "github");
  CHECK(*Parse({"forget", "github", "create_issue"}).tool == "create_issue");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"tools", "--learned", "--query", "x"},
        std::vector<std::string>{"tools", "--query", "x", "--learned"},
        std::vector<std::string>{"tools", "--learned", "--limit", "3"},
        std::vector<std::string>{"tools", "--query", "x", "--limit", "3", "--learned"}}) {
    const base::Result<ParseResult> r = ParseArgs(args);
    REQUIRE_FALSE(r.ok());
    CHECK(r.message() ==
          "mcpgw: --learned does not go with --query or --limit: it lists the queries tools "
          "learned, it does not search\nRun 'mcpgw tools --help' for usage.\n");
  }
  CHECK_FALSE(ParseArgs({"forget", "a", "b", "c"}).ok());  // one TOOL at most
}

}  // namespace mcpgw::cli
