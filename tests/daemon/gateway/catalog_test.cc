// The two tools' semantics (BEHAVIOR.md §4) as a model sees them through the Catalog.
#include "daemon/gateway/catalog.h"

#include <string>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <catch2/catch.hpp>

#include "base/bounded_json.h"

namespace mcpgw {
namespace {

// A tool as a test writes it; Ready puts its texts into the server's ToolList.
struct ToolSpec {
  std::string name;
  std::string description;
  std::string schema;
  bool read_only;
};

ToolSpec MakeTool(std::string name, std::string description = "d",
                  std::string schema = "{\"type\":\"object\"}", bool read_only = false) {
  return ToolSpec{std::move(name), std::move(description), std::move(schema), read_only};
}

// A ready server listing `tools` in the order given (the Catalog sorts).
ServerView Ready(std::string name, const std::vector<ToolSpec>& tools) {
  auto list = std::make_shared<mcp::ToolList>();
  for (const auto& t : tools) list->Add(t.name, t.description, t.schema, t.read_only);
  return ServerView{std::move(name), mcp::Status::kReady, "", std::move(list), false, nullptr};
}
ServerView Loading(std::string name) {
  return ServerView{std::move(name), mcp::Status::kLoading, "", nullptr, false, nullptr};
}
ServerView Failed(std::string name, std::string reason) {
  return ServerView{std::move(name), mcp::Status::kError, std::move(reason), nullptr, false,
                    nullptr};
}
// An entry the configuration refused: in error for good.
ServerView Refused(std::string name, std::string reason) {
  return ServerView{std::move(name), mcp::Status::kError, std::move(reason), nullptr, true,
                    nullptr};
}

rapidjson::Document Params(const char* json) {
  rapidjson::Document doc;
  doc.Parse(json);
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

std::string Answer(const Catalog& c, const char* params) {
  auto doc = Params(params);
  base::Result<std::string> result = c.GetDynamicTools(doc);
  if (!result.ok()) FAIL("unexpected error: " << result.message());
  return *std::move(result);
}

base::Status LookupError(const Catalog& c, const char* params) {
  auto doc = Params(params);
  base::Result<std::string> result = c.GetDynamicTools(doc);
  REQUIRE_FALSE(result.ok());
  return std::move(result).status();
}

CallTarget Target(const Catalog& c, const char* params) {
  auto doc = Params(params);
  base::Result<CallTarget> result = c.PrepareCall(doc, params);
  if (!result.ok()) FAIL("unexpected error: " << result.message());
  return *std::move(result);
}

base::Status CallError(const Catalog& c, const char* params) {
  auto doc = Params(params);
  base::Result<CallTarget> result = c.PrepareCall(doc, params);
  REQUIRE_FALSE(result.ok());
  return std::move(result).status();
}

// Parses with UTF-8 validation: the answer must be valid JSON a script can decode.
rapidjson::Document Decode(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str(), text.size());
  INFO(text);
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

void ThreeServers(Catalog& c) {
  // Given out of order on purpose: the catalog sorts.
  c.Reset({Failed("gamma", "connection refused"), Loading("beta"),
           Ready("alpha",
                 {MakeTool("add", "Adds two numbers",
                           "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"}}}"),
                  MakeTool("echo", "Echoes")})});
}

TEST_CASE("no-argument listing is exactly the documented form", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  const std::string expected =
      R"({"servers":[{"namespace":"alpha","status":"ready","tools":["add","echo"]},)"
      R"({"namespace":"beta","status":"loading","tools":[]},)"
      R"({"namespace":"gamma","status":"error","reason":"connection refused","tools":[]}]})";
  CHECK(c.Listing() == expected);
  CHECK(Answer(c, "{}") == expected);
  // Null parameters count as absent.
  CHECK(Answer(c, R"({"namespace":null,"toolName":null})") == expected);
}

TEST_CASE("an empty configuration lists no servers", "[catalog]") {
  Catalog c;
  CHECK(c.Listing() == R"({"servers":[]})");
  c.Reset({});
  CHECK(Answer(c, "{}") == R"({"servers":[]})");
}

TEST_CASE("names sort by byte order, uppercase and UTF-8 included", "[catalog]") {
  Catalog c;
  c.Reset({Loading("b"), Loading("\xC3\xA9t\xC3\xA9"), Loading("alpha"), Loading("Zeta"),
           Ready("_x", {MakeTool("z"), MakeTool("\xC3\xA9"), MakeTool("B"), MakeTool("a"),
                        MakeTool("A")})});
  auto doc = Decode(c.Listing());
  std::vector<std::string> names;
  for (const auto& s : doc["servers"].GetArray()) names.push_back(s["namespace"].GetString());
  CHECK(names == std::vector<std::string>{"Zeta", "_x", "alpha", "b", "\xC3\xA9t\xC3\xA9"});
  std::vector<std::string> tools;
  for (const auto& t : doc["servers"][1]["tools"].GetArray()) tools.push_back(t.GetString());
  CHECK(tools == std::vector<std::string>{"A", "B", "a", "z", "\xC3\xA9"});
}

TEST_CASE("namespace form lists tools with description and verbatim schema", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  CHECK(
      Answer(c, R"({"namespace":"alpha"})") ==
      R"({"namespace":"alpha","status":"ready","tools":[)"
      R"({"name":"add","description":"Adds two numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number"}}}},)"
      R"({"name":"echo","description":"Echoes","inputSchema":{"type":"object"}}]})");
}

TEST_CASE("namespace form of a server not ready answers its status", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  CHECK(Answer(c, R"({"namespace":"beta"})") ==
        R"({"namespace":"beta","status":"loading","tools":[]})");
  CHECK(Answer(c, R"({"namespace":"gamma"})") ==
        R"({"namespace":"gamma","status":"error","reason":"connection refused","tools":[]})");
}

TEST_CASE("one-tool form answers that tool", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  CHECK(
      Answer(c, R"({"namespace":"alpha","toolName":"echo"})") ==
      R"({"namespace":"alpha","tool":{"name":"echo","description":"Echoes","inputSchema":{"type":"object"}}})");
}

TEST_CASE("one-tool form on a server not ready is not_ready with status and reason", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  auto loading = LookupError(c, R"({"namespace":"beta","toolName":"x"})");
  CHECK(loading.kind() == proto::ErrorKind::kNotReady);
  CHECK(loading.message() == "server \"beta\" is loading; try again shortly");
  auto failed = LookupError(c, R"({"namespace":"gamma","toolName":"x"})");
  CHECK(failed.kind() == proto::ErrorKind::kNotReady);
  CHECK_THAT(failed.message(),
             Catch::StartsWith("server \"gamma\" is in error: connection refused"));
  CHECK_THAT(failed.message(), Catch::Contains("keeps retrying"));
}

TEST_CASE("a refused entry's not_ready says to change the entry, not that it retries",
          "[catalog]") {
  Catalog c;
  c.Reset({Refused("local", "local MCP servers (command) are not supported yet"),
           Refused("off", "disabled in the configuration")});
  for (const char* params :
       {R"({"namespace":"local","toolName":"x"})", R"({"namespace":"off","toolName":"x"})"}) {
    auto e = LookupError(c, params);
    CHECK(e.kind() == proto::ErrorKind::kNotReady);
    CHECK_THAT(e.message(), Catch::Contains("change its entry in the configuration"));
    CHECK_THAT(e.message(), !Catch::Contains("retrying"));
  }
  auto e = LookupError(c, R"({"namespace":"off","toolName":"x"})");
  CHECK(e.message() ==
        "server \"off\" is in error: disabled in the configuration (it is not retried: change "
        "its entry in the configuration to use it)");
}

TEST_CASE("lookup errors tell the model what to do", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  SECTION("unknown namespace lists the known ones") {
    auto e = LookupError(c, R"({"namespace":"Alpha"})");
    CHECK(e.kind() == proto::ErrorKind::kInvalidRequest);
    CHECK_THAT(e.message(), Catch::Contains("unknown namespace \"Alpha\""));
    CHECK_THAT(e.message(), Catch::Contains("\"alpha\", \"beta\", \"gamma\""));
  }
  SECTION("unknown tool says how to list tools") {
    auto e = LookupError(c, R"({"namespace":"alpha","toolName":"sub"})");
    CHECK(e.kind() == proto::ErrorKind::kInvalidRequest);
    CHECK_THAT(e.message(), Catch::Contains("unknown tool \"sub\""));
    CHECK_THAT(e.message(), Catch::Contains(R"(get_dynamic_tools with {"namespace":"alpha"})"));
  }
  SECTION("toolName without namespace") {
    auto e = LookupError(c, R"({"toolName":"add"})");
    CHECK(e.kind() == proto::ErrorKind::kInvalidRequest);
    CHECK_THAT(e.message(), Catch::Contains("\"toolName\" needs \"namespace\""));
  }
  SECTION("non-string namespace or toolName") {
    CHECK(LookupError(c, R"({"namespace":1})").message() == "\"namespace\" must be a string");
    CHECK(LookupError(c, R"({"namespace":"alpha","toolName":["add"]})").message() ==
          "\"toolName\" must be a string");
  }
  SECTION("params not an object") {
    auto e = LookupError(c, R"(["alpha"])");
    CHECK(e.kind() == proto::ErrorKind::kInvalidRequest);
    CHECK(e.message() == "params must be an object, not an array");
  }
}

TEST_CASE("unknown-namespace message is bounded", "[catalog]") {
  std::vector<ServerView> many;
  for (int i = 0; i < 120; ++i) many.push_back(Loading("ns" + std::to_string(1000 + i)));
  Catalog c;
  c.Reset(std::move(many));
  auto e = LookupError(c, R"({"namespace":"nope"})");
  CHECK_THAT(e.message(), Catch::Contains("\"ns1049\" and 70 more"));
  CHECK_THAT(e.message(), !Catch::Contains("ns1050"));
  // An echoed name is cut short too.
  std::string huge = "{\"namespace\":\"" + std::string(100000, 'x') + "\"}";
  auto big = LookupError(c, huge.c_str());
  CHECK(big.message().size() < 2000);

  Catalog empty;
  CHECK_THAT(LookupError(empty, R"({"namespace":"a"})").message(),
             Catch::Contains("no namespaces are configured"));
}

TEST_CASE("Update re-renders the listing, unknown names are ignored", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  c.Update(Ready("beta", {MakeTool("b2"), MakeTool("b1")}));
  CHECK_THAT(c.Listing(),
             Catch::Contains(R"({"namespace":"beta","status":"ready","tools":["b1","b2"]})"));
  const std::string before = c.Listing();
  c.Update(Ready("delta", {MakeTool("x")}));
  CHECK(c.Listing() == before);
  CHECK(c.Find("delta") == nullptr);
  c.Update(Failed("alpha", "gone"));
  CHECK_THAT(
      c.Listing(),
      Catch::Contains(R"({"namespace":"alpha","status":"error","reason":"gone","tools":[]})"));
}

TEST_CASE("a name configured twice keeps its first entry", "[catalog]") {
  Catalog c;
  c.Reset({Loading("a"), Failed("a", "second")});
  REQUIRE(c.servers().size() == 1);
  CHECK(c.servers()[0].status == mcp::Status::kLoading);
}

TEST_CASE("hostile server strings always give valid JSON with the same text", "[catalog]") {
  const std::string name = "ev\"il\\ns\n\x01\x7F";
  const std::string tool = "t\"\\\t\x1F";
  const std::string description = "close\"}],\"x\":{\"\x02 bad\xFF utf8 \xC3";
  const std::string reason = "boom\"\r\n\x1B[31mred";
  Catalog c;
  c.Reset({Ready(name, {MakeTool(tool, description)}), Failed("f", reason)});

  auto listing = Decode(c.Listing());
  CHECK(listing["servers"][0]["namespace"].GetString() == name);
  CHECK(listing["servers"][0]["tools"][0].GetString() == tool);
  CHECK(listing["servers"][1]["reason"].GetString() == reason);

  std::string ns_params = "{\"namespace\":\"ev\\\"il\\\\ns\\n\\u0001\x7F\"}";
  auto detail = Decode(Answer(c, ns_params.c_str()));
  CHECK(detail["namespace"].GetString() == name);
  CHECK(detail["tools"][0]["name"].GetString() == tool);
  // Invalid UTF-8 becomes U+FFFD; everything else survives.
  CHECK(detail["tools"][0]["description"].GetString() ==
        std::string("close\"}],\"x\":{\"\x02 bad\xEF\xBF\xBD utf8 \xEF\xBF\xBD"));

  // Error messages quote names without raw control characters.
  auto e = LookupError(c, R"({"namespace":"f","toolName":"x"})");
  for (char ch : e.message()) CHECK(static_cast<unsigned char>(ch) >= 0x20);
  CHECK_THAT(e.message(), Catch::Contains("boom"));
}

TEST_CASE("call_dynamic_tool resolves a target with the arguments as sent", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  auto t = Target(
      c,
      R"({"namespace":"alpha","toolName":"add","arguments":{ "a" : [1, 2.5, "x\u0001"] , "b":{} }})");
  CHECK(t.ns == "alpha");
  CHECK(t.tool == "add");
  CHECK(t.arguments_json == R"({ "a" : [1, 2.5, "x\u0001"] , "b":{} })");
  CHECK(Target(c, R"({"namespace":"alpha","toolName":"add"})").arguments_json == "{}");
  CHECK(Target(c, R"({"namespace":"alpha","toolName":"add","arguments":null})").arguments_json ==
        "{}");
}

TEST_CASE("call_dynamic_tool's max_text_bytes: a number, \"stdio\" or absent", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  using Kind = TextBoundRequest::Kind;
  CHECK(Target(c, R"({"namespace":"alpha","toolName":"add"})").bound.kind == Kind::kDefault);
  CHECK(Target(c, R"({"namespace":"alpha","toolName":"add","max_text_bytes":null})").bound.kind ==
        Kind::kDefault);
  auto bytes = Target(c, R"({"namespace":"alpha","toolName":"add","max_text_bytes":100000})");
  CHECK(bytes.bound.kind == Kind::kBytes);
  CHECK(bytes.bound.bytes == 100000);
  auto none = Target(c, R"({"namespace":"alpha","toolName":"add","max_text_bytes":0})");
  CHECK(none.bound.kind == Kind::kBytes);
  CHECK(none.bound.bytes == 0);
  CHECK(
      Target(c, R"({"namespace":"alpha","toolName":"add","max_text_bytes":"stdio"})").bound.kind ==
      Kind::kStdio);
  for (const char* bad :
       {R"({"namespace":"alpha","toolName":"add","max_text_bytes":-1})",
        R"({"namespace":"alpha","toolName":"add","max_text_bytes":1.5})",
        R"({"namespace":"alpha","toolName":"add","max_text_bytes":"lots"})",
        R"({"namespace":"alpha","toolName":"add","max_text_bytes":[100]})",
        R"({"namespace":"alpha","toolName":"add","max_text_bytes":18014398509481984})"}) {
    CAPTURE(bad);
    const base::Status e = CallError(c, bad);
    CHECK(e.kind() == proto::ErrorKind::kInvalidRequest);
    CHECK_THAT(e.message(),
               Catch::StartsWith("\"max_text_bytes\" must be a whole number of bytes"));
  }
}

TEST_CASE("call_dynamic_tool errors", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  auto kind = [&](const char* p) { return CallError(c, p).kind(); };
  using proto::ErrorKind;
  CHECK(kind(R"({"toolName":"add"})") == ErrorKind::kInvalidRequest);
  CHECK(kind(R"({"namespace":"alpha"})") == ErrorKind::kInvalidRequest);
  CHECK(kind(R"({"namespace":"alpha","toolName":5})") == ErrorKind::kInvalidRequest);
  CHECK(kind(R"("alpha")") == ErrorKind::kInvalidRequest);
  CHECK(kind(R"({"namespace":"nope","toolName":"add"})") == ErrorKind::kInvalidRequest);

  auto not_object = CallError(c, R"({"namespace":"alpha","toolName":"add","arguments":[1]})");
  CHECK(not_object.kind() == ErrorKind::kInvalidRequest);
  CHECK_THAT(not_object.message(), Catch::Contains("\"arguments\" must be a JSON object"));
  CHECK(kind(R"({"namespace":"alpha","toolName":"add","arguments":"{}"})") ==
        ErrorKind::kInvalidRequest);

  auto unknown_tool = CallError(c, R"({"namespace":"alpha","toolName":"mul"})");
  CHECK(unknown_tool.kind() == ErrorKind::kInvalidRequest);
  CHECK_THAT(unknown_tool.message(), Catch::Contains(R"({"namespace":"alpha"})"));

  auto loading = CallError(c, R"({"namespace":"beta","toolName":"x"})");
  CHECK(loading.kind() == ErrorKind::kNotReady);
  CHECK_THAT(loading.message(), Catch::Contains("loading"));
  auto failed = CallError(c, R"({"namespace":"gamma","toolName":"x"})");
  CHECK(failed.kind() == ErrorKind::kNotReady);
  CHECK_THAT(failed.message(), Catch::Contains("in error: connection refused"));
}

TEST_CASE("arguments holding invalid UTF-8 are refused, not forwarded", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  const char* text =
      "{\"namespace\":\"alpha\",\"toolName\":\"add\",\"arguments\":{\"a\":\"\xFF\"}}";
  rapidjson::Document doc;  // parsed without validation, as a lenient reader would
  doc.Parse(text);
  REQUIRE_FALSE(doc.HasParseError());
  base::Result<CallTarget> result = c.PrepareCall(doc, text);
  REQUIRE_FALSE(result.ok());
  CHECK(result.kind() == proto::ErrorKind::kInvalidRequest);
}

TEST_CASE("arguments are forwarded byte for byte, never written again", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  const std::string args =
      R"({ "big": 123456789012345678901234567890, "tiny": 1e-400, "e": "\u00e9",)"
      R"( "f": 1.50, "n": [ -0.0 ] })";
  const std::string text = R"({"namespace":"alpha","toolName":"add","arguments":)" + args + "}";
  CHECK(Target(c, text.c_str()).arguments_json == args);
}

TEST_CASE("arguments with an unpaired surrogate escape are refused", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  base::Status e =
      CallError(c, R"({"namespace":"alpha","toolName":"add","arguments":{"s":"\udc00"}})");
  CHECK(e.kind() == proto::ErrorKind::kInvalidRequest);
  CHECK_THAT(e.message(), Catch::Contains("unpaired UTF-16 surrogate"));
}

TEST_CASE("arguments from a checked frame still have their escapes checked", "[catalog]") {
  Catalog c;
  ThreeServers(c);
  auto prepare = [&](const char* text) {
    auto doc = Params(text);
    return c.PrepareCallWith(doc, base::RawMember(text, {"arguments"}),
                             /*from_checked_frame=*/true);
  };
  auto lone = prepare(R"({"namespace":"alpha","toolName":"add","arguments":{"s":"\udc00"}})");
  REQUIRE_FALSE(lone.ok());
  CHECK(lone.kind() == proto::ErrorKind::kInvalidRequest);
  CHECK_THAT(lone.message(), Catch::Contains("unpaired UTF-16 surrogate"));
  auto paired =
      prepare(R"({"namespace":"alpha","toolName":"add","arguments":{"s":"\ud83d\ude00"}})");
  REQUIRE(paired.ok());
  CHECK(paired->arguments_json == R"({"s":"\ud83d\ude00"})");
  auto plain = prepare(R"({"namespace":"alpha","toolName":"add","arguments":{ "a": 1.50 }})");
  REQUIRE(plain.ok());
  CHECK(plain->arguments_json == R"({ "a": 1.50 })");
}

std::shared_ptr<const Policy> MakePolicy(PolicySettings s) {
  return std::make_shared<const Policy>(std::move(s));
}

TEST_CASE("denied tools are not listed and their calls are denied", "[catalog][policy]") {
  Catalog c;
  ThreeServers(c);
  c.SetPolicy(MakePolicy({{}, {"alpha/echo"}, {}}));
  CHECK_THAT(c.Listing(),
             Catch::Contains(R"({"namespace":"alpha","status":"ready","tools":["add"]})"));
  CHECK_THAT(Answer(c, R"({"namespace":"alpha"})"), !Catch::Contains("echo"));
  auto lookup = LookupError(c, R"({"namespace":"alpha","toolName":"echo"})");
  CHECK(lookup.kind() == proto::ErrorKind::kDenied);
  auto call = CallError(c, R"({"namespace":"alpha","toolName":"echo","arguments":{}})");
  CHECK(call.kind() == proto::ErrorKind::kDenied);
  CHECK_THAT(call.message(), Catch::Contains("deny rule \"alpha/echo\""));
  // Denial comes before readiness: a denied tool of a loading server is denied.
  c.SetPolicy(MakePolicy({{}, {"*/x"}, {}}));
  CHECK(CallError(c, R"({"namespace":"beta","toolName":"x"})").kind() == proto::ErrorKind::kDenied);
  // Clearing the policy lists everything again.
  c.SetPolicy(nullptr);
  CHECK_THAT(c.Listing(), Catch::Contains(R"("tools":["add","echo"])"));
}

TEST_CASE("a namespace denied entirely is hidden", "[catalog][policy]") {
  Catalog c;
  ThreeServers(c);
  c.SetPolicy(MakePolicy({{}, {"gamma"}, {}}));
  CHECK_THAT(c.Listing(), !Catch::Contains("gamma"));
  CHECK(LookupError(c, R"({"namespace":"gamma"})").kind() == proto::ErrorKind::kDenied);
  CHECK(CallError(c, R"({"namespace":"gamma","toolName":"x"})").kind() ==
        proto::ErrorKind::kDenied);
  // Not offered as a known namespace either.
  CHECK_THAT(LookupError(c, R"({"namespace":"zz"})").message(), !Catch::Contains("gamma"));
}

TEST_CASE("allow lists and read_only shape what is offered", "[catalog][policy]") {
  Catalog c;
  c.Reset({Ready("gh", {MakeTool("get_issue", "d", "{}", true), MakeTool("delete_repo")}),
           Ready("slack", {MakeTool("post")})});
  SECTION("allow") {
    c.SetPolicy(MakePolicy({{"gh/get_*"}, {}, {}}));
    CHECK(c.Listing() ==
          R"({"servers":[{"namespace":"gh","status":"ready","tools":["get_issue"]}]})");
    CHECK(CallError(c, R"({"namespace":"gh","toolName":"delete_repo"})").kind() ==
          proto::ErrorKind::kDenied);
    CHECK(Target(c, R"({"namespace":"gh","toolName":"get_issue"})").tool == "get_issue");
  }
  SECTION("read_only") {
    c.SetPolicy(MakePolicy({{}, {}, {"g*"}}));
    CHECK_THAT(c.Listing(),
               Catch::Contains(R"({"namespace":"gh","status":"ready","tools":["get_issue"]})"));
    CHECK_THAT(c.Listing(), Catch::Contains(R"("tools":["post"])"));
    auto e = CallError(c, R"({"namespace":"gh","toolName":"delete_repo"})");
    CHECK(e.kind() == proto::ErrorKind::kDenied);
    CHECK_THAT(e.message(), Catch::Contains("read_only"));
  }
}

// ---- query (BEHAVIOR.md §10) --------------------------------------------------

// Two trackers, a browser and a server still loading.
void SearchServers(Catalog& c) {
  c.Reset({Ready("github",
                 {MakeTool("create_issue", "Create a new issue in a GitHub repository",
                           R"({"type":"object","properties":{"title":{"type":"string"}}})"),
                  MakeTool("list_issues", "List issues in a GitHub repository"),
                  MakeTool("get_file_contents", "Get the contents of a file from a repository")}),
           Ready("browser", {MakeTool("browser_navigate", "Navigate to a URL"),
                             MakeTool("browser_take_screenshot", "Take a screenshot of the page")}),
           Loading("jira")});
}

std::vector<std::string> Ranked(const Catalog& c, const char* params) {
  const rapidjson::Document doc = Decode(Answer(c, params));
  std::vector<std::string> out;
  for (const auto& t : doc["tools"].GetArray()) {
    out.push_back(std::string(t["namespace"].GetString()) + "/" + t["name"].GetString());
  }
  return out;
}

TEST_CASE("query ranks the tools of ready servers, each in its one-tool form", "[catalog][query]") {
  Catalog c;
  SearchServers(c);
  const std::string answer = Answer(c, R"({"query":"open a new ticket on github"})");
  // Best first, and the best carries what calling it needs.
  CHECK(
      answer.rfind(
          R"({"query":"open a new ticket on github","tools":[{"namespace":"github","name":"create_issue","description":"Create a new issue in a GitHub repository","inputSchema":{"type":"object","properties":{"title":{"type":"string"}}}})",
          0) == 0);
  CHECK(Ranked(c, R"({"query":"screenshot of the page"})").front() ==
        "browser/browser_take_screenshot");
  // Identifiers are split and words stemmed: "navigating" finds browser_navigate.
  CHECK(Ranked(c, R"({"query":"navigating somewhere"})") ==
        std::vector<std::string>{"browser/browser_navigate"});
  // Nothing shares a word with the query: no tools, not an error.
  CHECK(Answer(c, R"({"query":"zebra"})") == R"({"query":"zebra","tools":[]})");
}

TEST_CASE("query: limit, namespace, and ties in name order", "[catalog][query]") {
  Catalog c;
  c.Reset({Ready("b", {MakeTool("echo", "Echo text"), MakeTool("shout", "Echo text loudly")}),
           Ready("a", {MakeTool("echo", "Echo text")})});
  // Equal scores: namespace, then name.
  CHECK(Ranked(c, R"({"query":"echo","limit":2})") == std::vector<std::string>{"a/echo", "b/echo"});
  CHECK(Ranked(c, R"({"query":"echo","limit":50})").size() == 3);
  CHECK(Ranked(c, R"({"query":"echo","namespace":"b"})") ==
        std::vector<std::string>{"b/echo", "b/shout"});
}

TEST_CASE("query follows every listing change", "[catalog][query]") {
  Catalog c;
  SearchServers(c);
  CHECK(Ranked(c, R"({"query":"create jira issue"})").front() == "github/create_issue");
  // jira becomes ready: its tools are found.
  c.Update(Ready("jira", {MakeTool("jira_create_issue", "Create a Jira issue")}));
  CHECK(Ranked(c, R"({"query":"create jira issue"})").front() == "jira/jira_create_issue");
  // It lists again without that tool, then fails: none of its tools are offered.
  c.Update(Ready("jira", {MakeTool("jira_search", "Search Jira with JQL")}));
  CHECK(Ranked(c, R"({"query":"create jira issue"})").front() != "jira/jira_create_issue");
  c.Update(Failed("jira", "connection refused"));
  for (const auto& name : Ranked(c, R"({"query":"jira search"})")) {
    CHECK(name.rfind("jira/", 0) != 0);
  }
  // A reload without github: its tools are gone from every answer.
  c.Reset({Ready("browser", {MakeTool("browser_navigate", "Navigate to a URL")})});
  CHECK(Ranked(c, R"({"query":"github issue"})").empty());
  CHECK(Ranked(c, R"({"query":"navigate"})") ==
        std::vector<std::string>{"browser/browser_navigate"});
}

TEST_CASE("query answers only what the policy offers", "[catalog][query][policy]") {
  Catalog c;
  SearchServers(c);
  c.SetPolicy(MakePolicy({{}, {"github/create_issue", "browser"}, {}}));
  const auto ranked = Ranked(c, R"({"query":"create issue screenshot","limit":50})");
  CHECK(ranked == std::vector<std::string>{"github/list_issues"});
  CHECK(LookupError(c, R"({"query":"x","namespace":"browser"})").kind() ==
        proto::ErrorKind::kDenied);
}

TEST_CASE("query: bad input is invalid_request with a message that says what to do",
          "[catalog][query]") {
  Catalog c;
  SearchServers(c);
  const auto invalid = [&](const char* params) {
    const base::Status e = LookupError(c, params);
    CHECK(e.kind() == proto::ErrorKind::kInvalidRequest);
    return e.message();
  };
  CHECK_THAT(invalid(R"({"query":"issue","namespace":"github","toolName":"create_issue"})"),
             Catch::Contains("do not go together"));
  CHECK_THAT(invalid(R"({"query":""})"), Catch::Contains("\"query\" is empty"));
  CHECK_THAT(invalid(R"({"query":" \t\n "})"), Catch::Contains("\"query\" is empty"));
  CHECK_THAT(invalid(R"({"query":5})"), Catch::Contains("\"query\" must be a string"));
  for (const char* limit : {"0", "51", "-1", "2.5", "\"5\"", "true", "1e3"}) {
    const std::string params = std::string(R"({"query":"issue","limit":)") + limit + "}";
    CHECK_THAT(invalid(params.c_str()),
               Catch::Contains("\"limit\" must be an integer from 1 to 50"));
  }
  CHECK_THAT(invalid(R"({"query":"issue","namespace":"nope"})"),
             Catch::Contains("unknown namespace"));
  CHECK_THAT(invalid(("{\"query\":\"" + std::string(2000, 'x') + "\"}").c_str()),
             Catch::Contains("too long"));
  // A server that is not ready says so, as a lookup of one of its tools would.
  const base::Status loading = LookupError(c, R"({"query":"issue","namespace":"jira"})");
  CHECK(loading.kind() == proto::ErrorKind::kNotReady);
  CHECK_THAT(loading.message(), Catch::Contains("loading"));
  // limit without query changes nothing: the listing, byte for byte.
  CHECK(Answer(c, R"({"limit":3})") == c.Listing());
  CHECK(Answer(c, R"({"limit":"junk","namespace":"browser"})") ==
        Answer(c, R"({"namespace":"browser"})"));
}

}  // namespace
}  // namespace mcpgw
