// `mcpgw tools` for a person: tables on a terminal (the exact JSON into a pipe), errors that
// name the CLI command to run rather than the model's tool call, and misuse that points at
// the command's own --help.
#include <sstream>

#include <catch2/catch.hpp>

#include "client/cli/args.h"
#include "client/cli/commands.h"
#include "client/cli/hints.h"
#include "client/cli/sanitize.h"
#include "client/cli/tools_view.h"
#include "daemon/gateway/catalog.h"

namespace mcpgw::cli {
namespace {

constexpr const char* kListing =
    R"({"servers":[{"namespace":"alpha","status":"ready","tools":["add","echo"]},)"
    R"({"namespace":"beta","status":"loading","tools":[]},)"
    R"({"namespace":"gamma","status":"error","reason":"connection refused","tools":[]}]})";
constexpr const char* kNamespace =
    R"({"namespace":"alpha","status":"ready","tools":[)"
    R"({"name":"add","description":"Adds two numbers.\nReturns the sum.","inputSchema":{"type":"object"}},)"
    R"({"name":"echo","description":"Echoes its \u001b[31mtext\u001b[0m back.","inputSchema":{}}]})";
constexpr const char* kTool =
    R"({"namespace":"alpha","tool":{"name":"add","description":"Adds two numbers.\nReturns the sum.",)"
    R"("inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"The first"},)"
    R"("b":{"type":["number","string"]},"mode":{"enum":["x","y"]}},"required":["a"]}}})";

constexpr const char* kRanked =
    R"({"query":"create a github issue","tools":[)"
    R"({"namespace":"github","name":"create_issue","description":"Create an issue.\nIn a repository.","inputSchema":{}},)"
    R"({"namespace":"my tracker","name":"new_ticket","description":"Opens a \u001b[1mticket\u001b[0m.","inputSchema":{}}]})";

class ToolsApi : public DaemonApi {
 public:
  ApiResult GetDynamicTools(const ToolsRequest& request, CancelToken*) override {
    ++calls;
    seen = request;
    return next;
  }
  ApiResult CallDynamicTool(const std::string&, const std::string&, const std::string&, long long,
                            CancelToken*) override {
    return next;
  }
  ApiResult Status(CancelToken*) override { return next; }
  ApiResult next{MCPGW_OK, "{}"};
  int calls = 0;
  ToolsRequest seen;
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

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_CASE("tools on a terminal prints the listing as a table", "[cli][tools]") {
  const auto out = RenderTools(kListing, 80);
  REQUIRE(out);
  INFO(*out);
  const auto lines = Lines(*out);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "NAMESPACE  STATUS   TOOLS");
  CHECK(lines[1] == "alpha      ready    2 tools: add, echo");
  CHECK(lines[2] == "beta       loading  -");
  CHECK(lines[3] == "gamma      error    connection refused");
  CHECK(lines[5] == "\"mcpgw tools NAMESPACE\" lists a server's tools.");
  CHECK(RenderTools(R"({"servers":[]})", 80) == "no servers configured\n");
}

TEST_CASE("tools on a terminal prints one server's tools with their first description line",
          "[cli][tools]") {
  const auto out = RenderTools(kNamespace, 80);
  REQUIRE(out);
  INFO(*out);
  const auto lines = Lines(*out);
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == "alpha: ready, 2 tools");
  CHECK(lines[2] == "TOOL  DESCRIPTION");
  CHECK(lines[3] == "add   Adds two numbers.");
  CHECK(lines[4] == "echo  Echoes its text back.");  // escape sequences stripped
  CHECK(lines[6] == "\"mcpgw tools alpha TOOL\" shows a tool's arguments.");
}

TEST_CASE("tools on a terminal prints one tool's arguments", "[cli][tools]") {
  const auto out = RenderTools(kTool, 80);
  REQUIRE(out);
  INFO(*out);
  const auto lines = Lines(*out);
  REQUIRE(lines.size() == 10);
  CHECK(lines[0] == "alpha add");
  CHECK(lines[1] == "Adds two numbers.");
  CHECK(lines[2] == "Returns the sum.");
  CHECK(lines[4] == "ARGUMENT  TYPE           REQUIRED  DESCRIPTION");
  CHECK(lines[5] == "a         number         yes       The first");
  CHECK(lines[6] == "b         number|string  no");
  CHECK(lines[7] == "mode      enum           no");
  CHECK(lines[9] == "\"mcpgw tools alpha add --json\" prints the full input schema.");
}

TEST_CASE("tools on a terminal ranks a query's tools, best first", "[cli][tools][find]") {
  const auto out = RenderTools(kRanked, 80);
  REQUIRE(out);
  INFO(*out);
  const auto lines = Lines(*out);
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] == "2 tools for \"create a github issue\", best first");
  CHECK(lines[2] == "#  TOOL                   DESCRIPTION");
  CHECK(lines[3] == "1  github/create_issue    Create an issue.");
  CHECK(lines[4] == "2  my tracker/new_ticket  Opens a ticket.");  // escape sequences stripped
  CHECK(lines[6] == "\"mcpgw tools github create_issue\" shows the best match's arguments;");
  CHECK(lines[7] == "\"mcpgw call github create_issue ARGUMENTS_JSON\" calls it.");

  const auto none = RenderTools(R"({"query":"fly","tools":[]})", 80);
  REQUIRE(none);
  CHECK(*none ==
        "no tool matches \"fly\"\n\n\"mcpgw tools\" lists the servers and their status.\n");
  CHECK_FALSE(RenderTools(R"({"query":"fly","tools":["a"]})", 80));
  CHECK_FALSE(RenderTools(R"({"query":"fly"})", 80));
}

TEST_CASE("tools --query prints a ranked list to a terminal, the exact JSON to a pipe",
          "[cli][tools][find]") {
  ToolsApi api;
  api.next = {MCPGW_OK, kRanked};
  Io pipe;
  CHECK(RunTools(api, Parse({"tools", "--query", "create a github issue"}), pipe.io) == 0);
  CHECK(pipe.out.str() == std::string(kRanked) + "\n");
  CHECK(api.seen.query == "create a github issue");

  Io tty;
  tty.io.stdout_is_tty = true;
  tty.io.width = 80;
  CHECK(RunTools(api, Parse({"tools", "--query", "x", "--limit", "2"}), tty.io) == 0);
  CHECK(tty.out.str().rfind("2 tools for \"create a github issue\", best first\n", 0) == 0);
  CHECK(api.seen.limit == 2);

  Io json;
  json.io.stdout_is_tty = true;
  CHECK(RunTools(api, Parse({"tools", "--query", "x", "--json"}), json.io) == 0);
  CHECK(json.out.str() == std::string(kRanked) + "\n");
  CHECK(api.calls == 3);
}

TEST_CASE("tool tables wrap their last column to the terminal", "[cli][tools]") {
  std::string tools;
  for (int i = 0; i < 30; ++i)
    tools += std::string(i ? "," : "") + "\"tool_" + std::to_string(i) + "\"";
  const std::string json =
      R"({"servers":[{"namespace":"alpha","status":"ready","tools":[)" + tools + "]}]}";
  const auto out = RenderTools(json, 80);
  REQUIRE(out);
  INFO(*out);
  for (const std::string& line : Lines(*out)) CHECK(DisplayWidth(line) <= 80);
  CHECK(out->find("tool_29") != std::string::npos);
  CHECK(out->find("\n                   tool_") != std::string::npos);  // under the column
}

TEST_CASE("an answer of another shape is not a table", "[cli][tools]") {
  CHECK_FALSE(RenderTools("not json", 80));
  CHECK_FALSE(RenderTools("[1]", 80));
  CHECK_FALSE(RenderTools(R"({"other":1})", 80));
  CHECK_FALSE(RenderTools(R"({"namespace":"a","tools":[1]})", 80));
}

TEST_CASE("tools prints tables to a terminal, the exact JSON to a pipe or with --json",
          "[cli][tools]") {
  ToolsApi api;
  api.next = {MCPGW_OK, kListing};
  Io pipe;
  CHECK(RunTools(api, Parse({"tools"}), pipe.io) == 0);
  CHECK(pipe.out.str() == std::string(kListing) + "\n");

  Io tty;
  tty.io.stdout_is_tty = true;
  tty.io.width = 80;
  CHECK(RunTools(api, Parse({"tools"}), tty.io) == 0);
  CHECK(tty.out.str().rfind("NAMESPACE  STATUS   TOOLS\n", 0) == 0);

  Io json;
  json.io.stdout_is_tty = true;
  CHECK(RunTools(api, Parse({"tools", "--json"}), json.io) == 0);
  CHECK(json.out.str() == std::string(kListing) + "\n");
}

TEST_CASE("hints in the gateway's messages become CLI commands", "[cli][hints]") {
  // The messages come from the real Catalog, so a change in its wording shows here.
  Catalog catalog;
  catalog.Reset({ServerView{"demo", mcp::Status::kReady, "",
                            std::make_shared<const mcp::ToolList>(), false, nullptr},
                 ServerView{"my server", mcp::Status::kReady, "",
                            std::make_shared<const mcp::ToolList>(), false, nullptr}});
  const auto error = [&](const char* params) {
    rapidjson::Document doc;
    doc.Parse(params);
    base::Result<CallTarget> r = catalog.PrepareCall(doc, params);
    REQUIRE_FALSE(r.ok());
    return r.message();
  };
  const std::string unknown_tool = error(R"({"namespace":"demo","toolName":"nope"})");
  REQUIRE(unknown_tool.find("get_dynamic_tools") != std::string::npos);
  CHECK(PersonHints(unknown_tool) ==
        "unknown tool \"nope\" in namespace \"demo\"; run \"mcpgw tools demo\" to list its tools");
  CHECK(PersonHints(error(R"({"namespace":"my server","toolName":"nope"})"))
            .find("run \"mcpgw tools 'my server'\" to list its tools") != std::string::npos);
  const std::string unknown_ns = PersonHints(error(R"({"namespace":"Demo","toolName":"x"})"));
  CHECK(unknown_ns.find("get_dynamic_tools") == std::string::npos);
  CHECK(unknown_ns.find("run \"mcpgw tools\" to list them") != std::string::npos);
  // A hint that searches becomes `mcpgw tools --query`.
  CHECK(
      PersonHints("call get_dynamic_tools with {\"query\":\"send mail\",\"limit\":5} to find it") ==
      "run \"mcpgw tools --query 'send mail' --limit 5\" to find it");
  CHECK(PersonHints("get_dynamic_tools with {\"namespace\":\"m\",\"query\":\"send\"}") ==
        "\"mcpgw tools m --query send\"");
  // Anything else is left alone.
  CHECK(PersonHints("server \"x\" is loading") == "server \"x\" is loading");
  CHECK(PersonHints("get_dynamic_tools with {broken") == "get_dynamic_tools with {broken");
}

TEST_CASE("tools and call errors print the CLI hint", "[cli][hints]") {
  ToolsApi api;
  api.next = {MCPGW_INVALID_REQUEST,
              "unknown tool \"nope\" in namespace \"demo\"; call get_dynamic_tools with "
              "{\"namespace\":\"demo\"} to list its tools"};
  Io io;
  CHECK(RunCall(api, Parse({"call", "demo", "nope"}), io.io, nullptr) == 3);
  CHECK(io.err.str() ==
        "mcpgw: invalid_request: unknown tool \"nope\" in namespace \"demo\"; run \"mcpgw tools "
        "demo\" to list its tools\n");
}

TEST_CASE("ShellQuote keeps plain words and quotes the rest", "[cli][hints]") {
  CHECK(ShellQuote("demo") == "demo");
  CHECK(ShellQuote("a.b-c_d/e:1") == "a.b-c_d/e:1");
  CHECK(ShellQuote("my server") == "'my server'");
  CHECK(ShellQuote("it's") == "'it'\\''s'");
  CHECK(ShellQuote("") == "''");
  CHECK(ShellQuote("$HOME") == "'$HOME'");
}

TEST_CASE("misuse of a command points at that command's help", "[cli][args]") {
  base::Result<ParseResult> r = ParseArgs({"call", "demo"});
  CHECK_FALSE(r.ok());  // misuse: exit 2
  CHECK(r.message().find("TOOL") != std::string::npos);
  CHECK(r.message().find("Run 'mcpgw call --help' for usage.") != std::string::npos);
  CHECK(
      ParseArgs({"--socket", "/s", "wait", "--timeout", "x"}).message().find("mcpgw wait --help") !=
      std::string::npos);
  CHECK(ParseArgs({"--bogus"}).message().find("Run 'mcpgw --help' for usage.") !=
        std::string::npos);
}

TEST_CASE("Wrap breaks at spaces and cuts words wider than a line", "[cli][sanitize]") {
  CHECK(Wrap("one two three", 0) == std::vector<std::string>{"one two three"});
  CHECK(Wrap("one two three", 7) == std::vector<std::string>{"one two", "three"});
  CHECK(Wrap("abcdefghij", 4) == std::vector<std::string>{"abcd", "efgh", "ij"});
  CHECK(Wrap("", 5) == std::vector<std::string>{""});
  CHECK(Wrap("a  b", 1) == std::vector<std::string>{"a", "b"});
  CHECK(Wrap("héllo wörld", 5) == std::vector<std::string>{"héllo", "wörld"});
}

}  // namespace
}  // namespace mcpgw::cli
