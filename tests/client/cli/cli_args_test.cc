// Command-line parsing and the tools/call commands of `mcpgw`, against a scripted fake daemon.
#include <sstream>

#include <catch2/catch.hpp>

#include "client/cli/args.h"
#include "client/cli/commands.h"
#include "client/cli/subcommands.h"

namespace mcpgw::cli {
namespace {

// Answers every call with `next`, and records what it was asked.
class ScriptedApi : public DaemonApi {
 public:
  ApiResult GetDynamicTools(const ToolsRequest& request, CancelToken*) override {
    ++calls;
    seen_ns = request.ns;
    seen_tool = request.tool;
    seen_request = request;
    return next;
  }
  ApiResult CallDynamicTool(const std::string& ns, const std::string& tool,
                            const std::string& arguments_json, long long max_text_bytes,
                            CancelToken* cancel) override {
    ++calls;
    seen_max_text_bytes = max_text_bytes;
    seen_ns = ns;
    seen_tool = tool;
    seen_arguments = arguments_json;
    if (block_until_cancelled && cancel != nullptr) {
      cancel->WaitFor(std::chrono::seconds(5));
      return {MCPGW_CANCELLED, "cancelled"};
    }
    return next;
  }
  ApiResult Status(CancelToken*) override {
    ++calls;
    return next;
  }

  ApiResult next{MCPGW_OK, "ok"};
  bool block_until_cancelled = false;
  int calls = 0;
  long long seen_max_text_bytes = 0;
  std::optional<std::string> seen_ns, seen_tool;
  ToolsRequest seen_request;
  std::string seen_arguments;
};

struct Io {
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
};

Invocation Parse(std::vector<std::string> args) {
  base::Result<ParseResult> r = ParseArgs(args);
  INFO("stderr: " << r.message());
  REQUIRE((r.ok() && r->invocation));
  return *r->invocation;
}

// The exit code mcpgw gives `args` when they are not an invocation (help text: 0, misuse: 2).
int MisuseCode(std::vector<std::string> args, std::string* err = nullptr) {
  base::Result<ParseResult> r = ParseArgs(args);
  if (r.ok()) {
    REQUIRE_FALSE(r->invocation);
    return 0;
  }
  if (err != nullptr) *err = r.message();
  return kExitMisuse;
}

TEST_CASE("tools takes an optional namespace and tool", "[cli][args]") {
  Invocation all = Parse({"tools"});
  CHECK(all.command->name == "tools");
  CHECK_FALSE(all.ns);
  CHECK_FALSE(all.tool);
  Invocation one = Parse({"tools", "alpha", "add"});
  CHECK(one.ns == "alpha");
  CHECK(one.tool == "add");
  CHECK(MisuseCode({"tools", "a", "b", "c"}) == kExitMisuse);
}

TEST_CASE("tools takes --query, and --limit with it", "[cli][args]") {
  Invocation plain = Parse({"tools", "alpha"});
  CHECK_FALSE(plain.query);
  CHECK_FALSE(plain.limit);
  Invocation query = Parse({"tools", "--query", "create a github issue"});
  CHECK(query.query == "create a github issue");
  CHECK_FALSE(query.ns);
  CHECK_FALSE(query.limit);
  Invocation scoped = Parse({"tools", "github", "--limit", "5", "--query", "open an issue"});
  CHECK(scoped.ns == "github");
  CHECK(scoped.query == "open an issue");
  CHECK(scoped.limit == 5);
  CHECK(Parse({"tools", "--query=x", "--limit=50"}).limit == 50);
  CHECK(Parse({"tools", "--query", ""}).query == "");  // the daemon refuses it
  // A TOOL with --query parses: the refusal is invalid_request, not misuse.
  CHECK(Parse({"tools", "github", "create_issue", "--query", "x"}).tool == "create_issue");
}

TEST_CASE("tools --limit needs --query and a number of tools from 1 to 50", "[cli][args]") {
  std::string err;
  CHECK(MisuseCode({"tools", "--limit", "5"}, &err) == kExitMisuse);
  CHECK(err.find("--limit requires --query") != std::string::npos);
  CHECK(err.find("Run 'mcpgw tools --help' for usage.") != std::string::npos);
  for (const char* bad : {"0", "51", "-1", "2.5", "five", ""}) {
    INFO(bad);
    CHECK(MisuseCode({"tools", "--query", "x", "--limit", bad}, &err) == kExitMisuse);
    CHECK(err.find("--limit") != std::string::npos);
  }
  CHECK(err.find("from 1 to 50") != std::string::npos);
  CHECK(MisuseCode({"tools", "--query"}) == kExitMisuse);
  const base::Result<ParseResult> help = ParseArgs({"tools", "--help"});
  REQUIRE(help.ok());
  CHECK(help->out.find("--query") != std::string::npos);
  CHECK(help->out.find("--limit") != std::string::npos);
}

TEST_CASE("The --socket option is accepted before and after the command", "[cli][args]") {
  CHECK(Parse({"--socket", "/run/a.sock", "status"}).socket == "/run/a.sock");
  CHECK(Parse({"status", "--socket", "/run/b.sock"}).socket == "/run/b.sock");
  CHECK(Parse({"call", "ns", "tool", "--socket=/run/c.sock"}).socket == "/run/c.sock");
  CHECK(Parse({"stdio"}).socket.empty());
  CHECK(MisuseCode({"status", "--socket"}) == kExitMisuse);
}

TEST_CASE("call needs a namespace and a tool, arguments are optional", "[cli][args]") {
  Invocation inv = Parse({"call", "alpha", "add", "{\"a\":1}"});
  CHECK(inv.command->name == "call");
  CHECK(inv.ns == "alpha");
  CHECK(inv.tool == "add");
  CHECK(inv.arguments == "{\"a\":1}");
  CHECK_FALSE(Parse({"call", "alpha", "add"}).arguments);
  CHECK(Parse({"call", "alpha", "add", "-"}).arguments == "-");
  std::string err;
  CHECK(MisuseCode({"call", "alpha"}, &err) == kExitMisuse);
  CHECK(err.rfind("mcpgw: ", 0) == 0);
  CHECK(err.find("TOOL") != std::string::npos);
}

TEST_CASE("status and wait options", "[cli][args]") {
  CHECK(Parse({"status", "--json"}).json);
  CHECK_FALSE(Parse({"status"}).json);
  CHECK(Parse({"wait"}).timeout_s == 30);
  CHECK(Parse({"wait", "--timeout", "2.5"}).timeout_s == 2.5);
  CHECK(MisuseCode({"wait", "--timeout", "-1"}) == kExitMisuse);
  CHECK(MisuseCode({"wait", "--timeout", "soon"}) == kExitMisuse);
  CHECK(MisuseCode({"status", "--verbose"}) == kExitMisuse);
}

TEST_CASE("missing or unknown command is misuse with a message on stderr", "[cli][args]") {
  std::string err;
  CHECK(MisuseCode({}, &err) == kExitMisuse);
  CHECK_FALSE(err.empty());
  CHECK(MisuseCode({"restart"}, &err) == kExitMisuse);
  CHECK(err.find("unknown command 'restart'") != std::string::npos);
}

TEST_CASE("The --help and --version options print to stdout and exit 0", "[cli][args]") {
  base::Result<ParseResult> help = ParseArgs({"--help"});
  REQUIRE(help.ok());  // exit 0
  CHECK_FALSE(help->invocation);
  CHECK(help->out.find("stdio") != std::string::npos);
  base::Result<ParseResult> call_help = ParseArgs({"call", "--help"});
  REQUIRE(call_help.ok());
  CHECK(call_help->out.find("ARGUMENTS_JSON") != std::string::npos);
  for (const char* command : {"tools", "status", "wait", "stdio"}) {
    base::Result<ParseResult> r = ParseArgs({command, "--help"});
    REQUIRE(r.ok());
    CHECK(r->out.find(std::string("mcpgw ") + command) != std::string::npos);
  }
  base::Result<ParseResult> version = ParseArgs({"--version"});
  REQUIRE(version.ok());
  CHECK(version->out == std::string(MCPGW_VERSION) + "\n");
}

TEST_CASE("every command of the table has its help, its parse and its place in the errors",
          "[cli][args]") {
  const base::Result<ParseResult> help = ParseArgs({"--help"});
  REQUIRE(help.ok());
  std::string unknown;
  CHECK(MisuseCode({"frobnicate"}, &unknown) == kExitMisuse);
  REQUIRE(Subcommands().size() == 17);
  for (const Subcommand& command : Subcommands()) {
    const std::string name(command.name);
    INFO(name);
    CHECK(help->out.find(name) != std::string::npos);
    CHECK(help->out.find(std::string(command.help)) != std::string::npos);
    CHECK(unknown.find(name) != std::string::npos);
    base::Result<ParseResult> own = ParseArgs({name, "--help"});
    REQUIRE(own.ok());
    CHECK(own->out.find("mcpgw " + name) != std::string::npos);
    CHECK(FindSubcommand(name) == &command);
  }
  CHECK(unknown ==
        "mcpgw: unknown command 'frobnicate' (commands: tools, call, status, wait, stdio, login, "
        "logout, pins, diff, approve, forget, metrics, log, top, import, hosts, doctor)\n"
        "Run 'mcpgw --help' for usage.\n");
  CHECK(Parse({"logout", "a"}).command->name == "logout");
  CHECK(Parse({"pins"}).command->name == "pins");
  CHECK(Parse({"pins", "web", "--json"}).json);
  CHECK(*Parse({"diff", "web", "search"}).tool == "search");
  CHECK(Parse({"approve", "web", "--all"}).all);
  CHECK(MisuseCode({"diff"}, &unknown) == kExitMisuse);  // the namespace is required
  CHECK(Parse({"stdio"}).command->name == "stdio");
}

TEST_CASE("each command keeps its own defaults", "[cli][args]") {
  CHECK(Parse({"wait"}).timeout_s == kDefaultWaitTimeoutS);
  CHECK(Parse({"login", "a"}).timeout_s == kDefaultLoginTimeoutS);
  CHECK(Parse({"login", "a", "--timeout", "7"}).timeout_s == 7);
  CHECK(Parse({"wait", "--timeout", "7"}).timeout_s == 7);
}

TEST_CASE("the parsed command's handler runs it", "[cli][args]") {
  ScriptedApi api;
  api.next = {MCPGW_OK, "{\"servers\":[]}"};
  Io io;
  Context context{api, io.io};
  const Invocation inv = Parse({"tools", "alpha"});
  CHECK(inv.command->run(inv, context) == 0);
  CHECK(api.seen_ns == "alpha");
  CHECK(io.out.str() == "{\"servers\":[]}\n");
}

TEST_CASE("ARGUMENTS_JSON: not JSON is misuse, JSON but not an object is invalid_request",
          "[cli][call]") {
  CHECK(CheckArgumentsJson("{\"a\":[1,2]}").ok());
  const base::Status not_json = CheckArgumentsJson("{\"a\":");
  CHECK(not_json.kind() == base::ErrorKind::kInvalidInput);
  CHECK(not_json.message().find("not valid JSON") != std::string::npos);
  const base::Status array = CheckArgumentsJson("[1]");
  CHECK(array.kind() == base::ErrorKind::kInvalidRequest);
  CHECK(array.message().find("object") != std::string::npos);
  CHECK(CheckArgumentsJson("\"x\"").kind() == base::ErrorKind::kInvalidRequest);

  ScriptedApi api;
  Io io;
  CHECK(RunCall(api, Parse({"call", "a", "t", "{oops"}), io.io, nullptr) == 2);
  CHECK(io.err.str().find("mcpgw: ARGUMENTS_JSON is not valid JSON") == 0);
  CHECK(RunCall(api, Parse({"call", "a", "t", "42"}), io.io, nullptr) == 3);
  CHECK(api.calls == 0);  // nothing was sent
  CHECK(io.out.str().empty());
}

TEST_CASE("call prints the result text and sends the arguments", "[cli][call]") {
  ScriptedApi api;
  api.next = {MCPGW_OK, "sum: 3"};
  Io io;
  CHECK(RunCall(api, Parse({"call", "alpha", "add", "{\"a\":1,\"b\":2}"}), io.io, nullptr) == 0);
  CHECK(io.out.str() == "sum: 3\n");
  CHECK(io.err.str().empty());
  CHECK(api.seen_ns == "alpha");
  CHECK(api.seen_tool == "add");
  CHECK(api.seen_arguments == "{\"a\":1,\"b\":2}");

  Io defaults;
  CHECK(RunCall(api, Parse({"call", "alpha", "add"}), defaults.io, nullptr) == 0);
  CHECK(api.seen_arguments == "{}");

  Io from_stdin;
  from_stdin.in.str("{\"from\":\"stdin\"}\n");
  CHECK(RunCall(api, Parse({"call", "alpha", "add", "-"}), from_stdin.io, nullptr) == 0);
  CHECK(api.seen_arguments == "{\"from\":\"stdin\"}\n");
}

TEST_CASE("call --max-bytes is sent as the call's bound, else the daemon's default",
          "[cli][call]") {
  ScriptedApi api;
  Io io;
  CHECK(RunCall(api, Parse({"call", "alpha", "add"}), io.io, nullptr) == 0);
  CHECK(api.seen_max_text_bytes == MCPGW_MAX_TEXT_DEFAULT);
  CHECK(RunCall(api, Parse({"call", "alpha", "add", "{}", "--max-bytes", "100000"}), io.io,
                nullptr) == 0);
  CHECK(api.seen_max_text_bytes == 100000);
  CHECK(RunCall(api, Parse({"call", "alpha", "add", "--max-bytes=0"}), io.io, nullptr) == 0);
  CHECK(api.seen_max_text_bytes == 0);
  std::string err;
  for (const char* bad : {"-1", "2.5", "many", "", "9007199254740993"}) {
    INFO(bad);
    CHECK(MisuseCode({"call", "alpha", "add", "--max-bytes", bad}, &err) == kExitMisuse);
    CHECK(err.find("--max-bytes") != std::string::npos);
  }
  CHECK(Parse({"stdio", "--max-bytes", "4096"}).max_bytes == 4096);
  CHECK_FALSE(Parse({"stdio"}).max_bytes);
  CHECK(MisuseCode({"stdio", "--max-bytes", "-5"}) == kExitMisuse);
}

TEST_CASE("each error kind has its exit code and a prefixed message on stderr", "[cli][call]") {
  const std::pair<mcpgw_status, int> cases[] = {{MCPGW_BACKEND, 1},   {MCPGW_INVALID_REQUEST, 3},
                                                {MCPGW_NOT_READY, 4}, {MCPGW_TRANSPORT, 5},
                                                {MCPGW_DENIED, 6},    {MCPGW_UNAVAILABLE, 7}};
  for (const auto& [status, code] : cases) {
    ScriptedApi api;
    api.next = {status, "it went wrong \x1b[31mred"};
    Io io;
    CHECK(RunCall(api, Parse({"call", "a", "t"}), io.io, nullptr) == code);
    CHECK(io.out.str().empty());
    CHECK(io.err.str() == "mcpgw: " + std::string(StatusName(status)) + ": it went wrong red\n");
  }
}

TEST_CASE("a cancelled call exits 130", "[cli][call]") {
  ScriptedApi api;
  api.block_until_cancelled = true;
  CancelToken cancel;
  Io io;
  std::thread interrupt([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel.Trigger();
  });
  CHECK(RunCall(api, Parse({"call", "a", "t"}), io.io, &cancel) == 130);
  interrupt.join();
  CHECK(io.out.str().empty());
  CHECK(io.err.str() == "mcpgw: cancelled\n");
}

TEST_CASE("tools prints exactly the daemon's text plus a newline", "[cli][tools]") {
  ScriptedApi api;
  api.next = {MCPGW_OK, "{\"servers\":[]}"};
  Io io;
  CHECK(RunTools(api, Parse({"tools", "alpha"}), io.io) == 0);
  CHECK(io.out.str() == "{\"servers\":[]}\n");
  CHECK(api.seen_ns == "alpha");
  CHECK_FALSE(api.seen_tool);

  api.next = {MCPGW_INVALID_REQUEST, "unknown namespace \"zeta\"; known: alpha"};
  Io bad;
  CHECK(RunTools(api, Parse({"tools", "zeta"}), bad.io) == 3);
  CHECK(bad.err.str() == "mcpgw: invalid_request: unknown namespace \"zeta\"; known: alpha\n");
}

TEST_CASE("tools --query asks the daemon with the query and the limit", "[cli][tools]") {
  ScriptedApi api;
  api.next = {MCPGW_OK, R"({"query":"add","tools":[]})"};
  Io io;
  CHECK(RunTools(api, Parse({"tools", "alpha", "--query", "add", "--limit", "3"}), io.io) == 0);
  CHECK(io.out.str() == api.next.text + "\n");
  CHECK(api.seen_request.ns == "alpha");
  CHECK_FALSE(api.seen_request.tool);
  CHECK(api.seen_request.query == "add");
  CHECK(api.seen_request.limit == 3);

  CHECK(RunTools(api, Parse({"tools", "--query", "add"}), io.io) == 0);
  CHECK_FALSE(api.seen_request.ns);
  CHECK_FALSE(api.seen_request.limit);  // the daemon's default
  // Without --query nothing new is asked for.
  CHECK(RunTools(api, Parse({"tools", "alpha", "add"}), io.io) == 0);
  CHECK_FALSE(api.seen_request.query);
  CHECK_FALSE(api.seen_request.limit);
  CHECK(api.seen_request.tool == "add");
}

TEST_CASE("tools --query with a TOOL is invalid_request, and nothing is asked", "[cli][tools]") {
  ScriptedApi api;
  Io io;
  CHECK(RunTools(api, Parse({"tools", "github", "create_issue", "--query", "x"}), io.io) == 3);
  CHECK(api.calls == 0);
  CHECK(io.out.str().empty());
  CHECK(io.err.str() ==
        "mcpgw: invalid_request: --query does not go with TOOL: run \"mcpgw tools github "
        "create_issue\" to look up that tool, or leave TOOL out to search\n");
}

TEST_CASE("results keep their bytes in a pipe but lose escapes on a terminal", "[cli][call]") {
  ScriptedApi api;
  api.next = {MCPGW_OK, "line1\n\x1b]0;title\x07line2 \x1b[2Jdone"};
  Io pipe;
  CHECK(RunCall(api, Parse({"call", "a", "t"}), pipe.io, nullptr) == 0);
  CHECK(pipe.out.str() == api.next.text + "\n");
  Io tty;
  tty.io.stdout_is_tty = true;
  CHECK(RunCall(api, Parse({"call", "a", "t"}), tty.io, nullptr) == 0);
  CHECK(tty.out.str() == "line1\nline2 done\n");
}

}  // namespace
}  // namespace mcpgw::cli
