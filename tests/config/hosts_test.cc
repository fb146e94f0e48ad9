// Files written for other hosts (BEHAVIOR.md §2): VS Code's `servers` and JSONC, Windsurf's
// `serverUrl`, Gemini CLI's `httpUrl`, `transport`, `disabled`/`enabled`, and the notes
// --check and the start-up log give for other hosts' variable forms, unknown types and
// ignored keys.
#include <catch2/catch.hpp>

#include "config/check.h"
#include "config/config.h"
#include "config/host_forms.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;
using testing::OnlyEntry;

ParseResult P(std::string_view text) { return Parse(text, "/p/mcp.json", FakeEnv()); }

std::vector<std::string> NoteTexts(const std::vector<Note>& notes) {
  std::vector<std::string> texts;
  for (const Note& n : notes) texts.push_back(n.text);
  return texts;
}

TEST_CASE("VS Code's servers object is read when mcpServers is absent", "[config][hosts]") {
  ParseResult r = P(R"({"inputs": [], "servers": {"gh": {"type": "http", "url": "https://h/mcp"},
                        "fs": {"type": "stdio", "command": "npx"}}})");
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 2);
  CHECK(r->entries[0].name == "gh");
  CHECK(r->entries[0].accepted());
  REQUIRE(r->entries[1].local.has_value());
  CHECK(r->entries[1].local->command == "npx");
  CHECK(r->notes.empty());
}

TEST_CASE("mcpServers wins over servers, with a note", "[config][hosts]") {
  ParseResult r =
      P(R"({"mcpServers": {"a": {"url": "http://a"}}, "servers": {"b": {"url": "http://b"}}})");
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 1);
  CHECK(r->entries[0].name == "a");
  CHECK(NoteTexts(r->notes) ==
        std::vector<std::string>{"\"servers\" is ignored: \"mcpServers\" is present"});
  // mcpServers: null still means no servers, even beside servers.
  CHECK(P(R"({"mcpServers": null, "servers": {"b": {"url": "http://b"}}})")->entries.empty());
}

TEST_CASE("servers that is not an object makes the file unusable, naming servers",
          "[config][hosts]") {
  ParseResult r = P(R"({"servers": []})");
  CHECK_FALSE(r.ok());
  CHECK(r.message() == "/p/mcp.json: \"servers\" must be an object (got array)");
}

TEST_CASE("JSONC: comments and trailing commas, errors still at the right line and column",
          "[config][hosts]") {
  ParseResult ok =
      P("// VS Code's mcp.json\n"
        "{\n"
        "  /* servers */\n"
        "  \"servers\": {\n"
        "    \"gh\": {\"url\": \"https://h/mcp\", }, // trailing comma\n"
        "  },\n"
        "}\n");
  REQUIRE(ok.ok());
  CHECK(ok->entries.size() == 1);
  CHECK(ok->entries[0].accepted());

  ParseResult bad =
      P("// a comment\n"
        "{\n"
        "  /* é */ \"servers\": {\n"
        "    \"gh\": {\"url\" \"https://h/mcp\"}\n"
        "  }\n"
        "}\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.message().rfind("/p/mcp.json:4:18: invalid JSON: ", 0) == 0);
  ParseResult unterminated = P("{\n  /* never closed\n}");
  REQUIRE_FALSE(unterminated.ok());
  CHECK(unterminated.message().rfind("/p/mcp.json:", 0) == 0);
}

TEST_CASE("serverUrl (Windsurf) and httpUrl (Gemini CLI) are read as url", "[config][hosts]") {
  for (const char* key : {"serverUrl", "httpUrl"}) {
    Entry e = OnlyEntry(std::string("{\"") + key + "\": \"https://h/mcp?k=${env:K}\"}",
                        FakeEnv({{"K", "secret"}}));
    REQUIRE(e.accepted());
    CHECK(e.remote->url.Reveal() == "https://h/mcp?k=secret");
    CHECK(e.remote->url_redacted == "https://h/mcp?k=<redacted>");
    CHECK(e.notes.empty());
    Entry bad = OnlyEntry(std::string("{\"") + key + "\": \"ftp://h\"}");
    CHECK(bad.refusal == std::string(key) + ": not an http:// or https:// URL with a host");
    CHECK(OnlyEntry(std::string("{\"") + key + "\": 5}").refusal ==
          "\"" + std::string(key) + "\" must be a string (got number)");
  }
  CHECK(OnlyEntry(R"({"url": "http://a", "serverUrl": "http://b"})").refusal ==
        "entry has both \"url\" and \"serverUrl\"; keep one");
  CHECK(OnlyEntry(R"({"httpUrl": "http://a", "command": "x"})").refusal ==
        "entry has both \"httpUrl\" and \"command\"; a server is either remote (url) or local "
        "(command)");
}

TEST_CASE("transport sse is refused like type sse", "[config][hosts]") {
  Entry e = OnlyEntry(R"({"url": "http://x/sse", "transport": "SSE"})");
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal ==
        "legacy HTTP+SSE transport (transport \"sse\") is not supported; use Streamable HTTP");
  CHECK(OnlyEntry(R"({"url": "http://x", "transport": "streamable-http"})").accepted());
}

TEST_CASE("disabled: true and enabled: false refuse the entry before anything is read",
          "[config][hosts]") {
  for (const char* json :
       {R"({"url": "http://x", "disabled": true})", R"({"url": "http://x", "enabled": false})",
        R"({"url": "http://x", "headers": {"A": "${env:UNSET}"}, "disabled": true})",
        R"({"command": "npx", "disabled": true})", R"({"disabled": true})"}) {
    Entry e = OnlyEntry(json);
    INFO(json);
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal == "disabled in the configuration");
  }
  CHECK(OnlyEntry(R"({"url": "http://x", "disabled": false, "enabled": true})").accepted());
  CHECK(OnlyEntry(R"({"url": "http://x", "disabled": null})").accepted());
  // A switch that is not a boolean refuses too: a server meant to be off is never contacted.
  CHECK(OnlyEntry(R"({"url": "http://x", "disabled": "true"})").refusal ==
        "\"disabled\" must be true or false (got string)");
  CHECK(OnlyEntry(R"({"url": "http://x", "enabled": 0})").refusal ==
        "\"enabled\" must be true or false (got number)");
}

TEST_CASE("other hosts' variable forms are noted with the form that works", "[config][hosts]") {
  Entry e = OnlyEntry(
      R"({"url": "https://h/${workspaceFolder}/mcp?k=${API_KEY}",
          "headers": {"Authorization": "Bearer $GITHUB_TOKEN", "X-Port": "${PORT:-8080}",
                      "X-In": "${input:api-key}", "X-Ok": "${env:OK} ${userHome}",
                      "X-Case": "${ENV:OK}"}})",
      FakeEnv({{"OK", "v"}}));
  REQUIRE(e.accepted());  // passed through, not refused
  CHECK(
      NoteTexts(e.notes) ==
      std::vector<std::string>{
          "url: ${workspaceFolder} is not expanded; mcpgw has no workspace; write the path "
          "(${userHome} is the home directory)",
          "url: ${API_KEY} is not expanded; write ${env:API_KEY}",
          "headers.Authorization: $GITHUB_TOKEN is not expanded; write ${env:GITHUB_TOKEN}",
          "headers.X-Port: ${PORT:-...} is not expanded; write ${env:PORT} (mcpgw has no "
          "defaults)",
          "headers.X-In: ${input:api-key} is not expanded; mcpgw cannot prompt for inputs; put "
          "the value in an environment variable and write ${env:NAME}",
          "headers.X-Case: ${ENV:OK} is not expanded; write ${env:OK} (the prefix is lower case)"});
  for (const Note& n : e.notes) CHECK(n.likely_mistake);
  CHECK(e.remote->url.Reveal() == "https://h/${workspaceFolder}/mcp?k=${API_KEY}");
}

TEST_CASE("oauth strings get the same notes", "[config][hosts]") {
  Entry e = OnlyEntry(
      R"({"url": "https://h/mcp", "oauth": {"clientId": "${CLIENT_ID}", "clientSecret": "x"}})");
  REQUIRE(e.accepted());
  CHECK(NoteTexts(e.notes) ==
        std::vector<std::string>{
            "oauth.clientId: ${CLIENT_ID} is not expanded; write ${env:CLIENT_ID}"});
}

TEST_CASE("a note never quotes more of a value than the form", "[config][hosts]") {
  // A literal secret with a '$' inside a word, and a default value, stay out of notes.
  Entry e = OnlyEntry(R"({"url": "http://x", "headers": {"A": "pa$Sw0rd", "B": "${T:-hunter2}"}})");
  REQUIRE(e.accepted());
  CHECK(NoteTexts(e.notes) ==
        std::vector<std::string>{"headers.B: ${T:-...} is not expanded; write ${env:T} (mcpgw has "
                                 "no defaults)"});
  CHECK(FindHostForms("cost: $5, ${}, ${ x }, $lower, ${unterminated").empty());
}

TEST_CASE("unknown type values and ignored keys are notes, not refusals", "[config][hosts]") {
  Entry e = OnlyEntry(
      R"({"url": "http://x", "type": "websocket", "alwaysAllow": [], "timeout": 5,
          "oauth": {}, "alwaysAllow": ["x"], "weird key": 1})");
  REQUIRE(e.accepted());
  CHECK(NoteTexts(e.notes) ==
        std::vector<std::string>{
            "type \"websocket\" is not a transport mcpgw knows; the entry is read as Streamable "
            "HTTP",
            "ignored keys: alwaysAllow, timeout, \"weird key\""});
  for (const Note& n : e.notes) CHECK_FALSE(n.likely_mistake);
  CHECK(NoteTexts(OnlyEntry(R"({"url": "http://x", "type": 42})").notes) ==
        std::vector<std::string>{"\"type\" is not a string (got number); ignored"});
  std::string many = R"({"url": "http://x")";
  for (int i = 0; i < 25; ++i) many += ", \"k" + std::to_string(i) + "\": 1";
  CHECK(NoteTexts(OnlyEntry(many + "}").notes) ==
        std::vector<std::string>{"ignored keys: k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, "
                                 "k12, k13, k14, k15, k16, k17, k18, k19 and 5 more"});
  for (const char* type : {"http", "HTTP", "streamable-http", "streamableHttp"}) {
    CHECK(OnlyEntry(std::string(R"({"url": "http://x", "type": ")") + type + "\"}").notes.empty());
  }
}

TEST_CASE("the check report prints notes under their entry", "[config][hosts]") {
  ParseResult r = Parse(
      R"({"mcpServers": {"gh": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"},
                          "autoApprove": []},
                          "off": {"url": "http://x", "disabled": true}},
          "servers": {}})",
      "mcp.json", FakeEnv());
  CHECK(FormatCheckReport(r, "mcp.json") ==
        "mcp.json: 2 servers: 1 accepted, 1 refused\n"
        "note: \"servers\" is ignored: \"mcpServers\" is present\n"
        "gh: accepted (https://h/mcp, 1 header)\n"
        "  note: ignored keys: autoApprove\n"
        "  note: headers.Authorization: ${GH_TOKEN} is not expanded; write ${env:GH_TOKEN}\n"
        "off: refused: disabled in the configuration\n");
  CHECK(CheckExitCode(r) == 0);
}

}  // namespace
}  // namespace mcpgw::config
