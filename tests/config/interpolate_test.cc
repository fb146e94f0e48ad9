// ${env:NAME} and ${userHome} (BEHAVIOR.md §2): expansion, what passes through, the
// refusals, url redaction, and what lands in Config::secrets.
#include <algorithm>

#include <catch2/catch.hpp>

#include "config/config.h"
#include "config/interpolate.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;
using testing::OnlyEntry;

bool HasSecret(const Config& config, std::string_view value) {
  return std::any_of(config.secrets.begin(), config.secrets.end(),
                     [&](const Secret& s) { return s.Reveal() == value; });
}

TEST_CASE("${env:NAME} expands to the variable's value", "[config][interpolate]") {
  Interpolated i;
  REQUIRE(Interpolate("Bearer ${env:TOKEN}!", FakeEnv({{"TOKEN", "t0k"}}), &i).ok());
  CHECK(i.value == "Bearer t0k!");
  CHECK(i.redacted == "Bearer <redacted>!");
  CHECK(i.env_values == std::vector<std::string>{"t0k"});
}

TEST_CASE("${userHome} expands to the home directory and is not secret", "[config][interpolate]") {
  Interpolated i;
  REQUIRE(Interpolate("${userHome}/x", FakeEnv(), &i).ok());
  CHECK(i.value == "/home/tester/x");
  CHECK(i.redacted == "/home/tester/x");
  CHECK(i.env_values.empty());
}

TEST_CASE("other ${...} forms pass through unchanged", "[config][interpolate]") {
  for (const char* text : {"${workspaceFolder}/a", "${env}", "${ENV:X}", "${}", "${ env:X}",
                           "${userhome}", "$env:X", "$${x}", "{env:X}"}) {
    Interpolated i;
    INFO(text);
    REQUIRE(Interpolate(text, FakeEnv(), &i).ok());
    CHECK(i.value == text);
    CHECK(i.redacted == text);
  }
}

TEST_CASE("an unterminated ${ passes through unchanged", "[config][interpolate]") {
  Interpolated i;
  REQUIRE(Interpolate("a${env:X}b${env:TOKEN", FakeEnv({{"X", "1"}}), &i).ok());
  CHECK(i.value == "a1b${env:TOKEN");
  CHECK(i.redacted == "a<redacted>b${env:TOKEN");
  Interpolated open;
  REQUIRE(Interpolate("${", FakeEnv(), &open).ok());
  CHECK(open.value == "${");
}

TEST_CASE("an unset variable refuses the entry naming the variable", "[config][interpolate]") {
  Entry e = OnlyEntry("{\"url\": \"https://h/${env:GH_TOKEN}\"}");
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal == "url: environment variable GH_TOKEN is not set");
  Entry h = OnlyEntry(
      "{\"url\": \"https://h\", \"headers\": {\"Authorization\": \"Bearer ${env:GH_TOKEN}\"}}");
  CHECK(h.refusal == "headers.Authorization: environment variable GH_TOKEN is not set");
}

TEST_CASE("${env:} with an empty name refuses the entry", "[config][interpolate]") {
  Entry e = OnlyEntry("{\"url\": \"https://h/${env:}\"}");
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal == "url: ${env:} names no environment variable");
}

TEST_CASE("a variable set to the empty string counts as set", "[config][interpolate]") {
  Entry e = OnlyEntry("{\"url\": \"https://h/${env:EMPTY}\"}", FakeEnv({{"EMPTY", ""}}));
  REQUIRE(e.accepted());
  CHECK(e.remote->url.Reveal() == "https://h/");
}

TEST_CASE("expanded values are not expanded again", "[config][interpolate]") {
  Interpolated i;
  REQUIRE(Interpolate("${env:A}", FakeEnv({{"A", "${env:B}${userHome}"}, {"B", "nope"}}), &i).ok());
  CHECK(i.value == "${env:B}${userHome}");
}

TEST_CASE("a name with odd characters is named escaped", "[config][interpolate]") {
  Interpolated i;
  const base::Status status = Interpolate("${env:A B\n}", FakeEnv(), &i);
  CHECK(status.kind() == base::ErrorKind::kInvalidInput);
  CHECK(status.message() == "environment variable \"A B\\n\" is not set");
  CHECK(i.value.empty());
}

TEST_CASE("values read before an unset variable are still handed over for scrubbing",
          "[config][interpolate]") {
  Interpolated i;
  CHECK_FALSE(Interpolate("${env:A}/${env:MISSING}", FakeEnv({{"A", "s3cret"}}), &i).ok());
  CHECK(i.value.empty());
  CHECK(i.redacted.empty());
  CHECK(i.env_values == std::vector<std::string>{"s3cret"});
}

TEST_CASE("url_redacted hides every env piece of the url", "[config][interpolate]") {
  Entry e = OnlyEntry("{\"url\": \"https://${env:HOST}/mcp?key=${env:KEY}&home=${userHome}\"}",
                      FakeEnv({{"HOST", "h.example"}, {"KEY", "s3cret"}}));
  REQUIRE(e.accepted());
  CHECK(e.remote->url.Reveal() == "https://h.example/mcp?key=s3cret&home=/home/tester");
  CHECK(e.remote->url_redacted == "https://<redacted>/mcp?key=<redacted>&home=/home/tester");
}

TEST_CASE("header values are interpolated", "[config][interpolate]") {
  Entry e = OnlyEntry(
      "{\"url\": \"https://h\", \"headers\": {\"Authorization\": \"Bearer ${env:T}\","
      " \"X-Dir\": \"${userHome}\"}}",
      FakeEnv({{"T", "tok"}}));
  REQUIRE(e.accepted());
  CHECK(e.remote->headers[0].value.Reveal() == "Bearer tok");
  CHECK(e.remote->headers[1].value.Reveal() == "/home/tester");
}

TEST_CASE("secrets hold env values and header values, deduplicated, without empties",
          "[config][interpolate]") {
  ParseResult r = Parse(
      "{\"mcpServers\": {"
      "\"a\": {\"url\": \"https://h/${env:K}\", \"headers\": {\"X-A\": \"lit\", \"X-E\": \"\"}},"
      "\"b\": {\"url\": \"https://h/${env:K}${env:EMPTY}\", \"headers\": {\"X-B\": \"lit\"}},"
      "\"c\": {\"url\": \"https://h/${env:K2}\", \"headers\": {\"Accept\": \"x\"}}}}",
      "mcp.json", FakeEnv({{"K", "key1"}, {"K2", "key2"}, {"EMPTY", ""}}));
  REQUIRE(r.ok());
  CHECK(r->secrets.size() == 3);
  CHECK(HasSecret(*r, "key1"));
  CHECK(HasSecret(*r, "lit"));
  CHECK(HasSecret(*r, "key2"));  // read before entry c was refused
  CHECK_FALSE(HasSecret(*r, ""));
}

TEST_CASE("a refused entry's env values still reach the secrets", "[config][interpolate]") {
  ParseResult r = Parse(
      "{\"mcpServers\": {\"a\": {\"url\": \"https://h/${env:K}\","
      " \"headers\": {\"X\": \"${env:NOPE}\"}}}}",
      "mcp.json", FakeEnv({{"K", "key1"}}));
  REQUIRE(r.ok());
  CHECK_FALSE(r->entries[0].accepted());
  CHECK(HasSecret(*r, "key1"));
}

TEST_CASE("a password written in the url is redacted and kept as a secret",
          "[config][interpolate]") {
  ParseResult r = Parse(
      "{\"mcpServers\": {"
      "\"a\": {\"url\": \"https://bob:pw-9f3k@h.example:8443/mcp\"},"
      "\"b\": {\"url\": \"https://${env:U}@h.example/mcp\"},"
      "\"c\": {\"url\": \"https://only-user@h.example/mcp?next=a@b\"}}}",
      "mcp.json", FakeEnv({{"U", "eve:pw-env"}}));
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 3);
  const auto& a = *r->entries[0].remote;
  CHECK(a.url.Reveal() == "https://bob:pw-9f3k@h.example:8443/mcp");
  CHECK(a.url_redacted == "https://<redacted>@h.example:8443/mcp");
  CHECK(HasSecret(*r, "bob:pw-9f3k"));
  CHECK(HasSecret(*r, "pw-9f3k"));
  CHECK(r->entries[1].remote->url_redacted == "https://<redacted>@h.example/mcp");
  // A user name alone is redacted too; an '@' past the authority is not userinfo.
  CHECK(r->entries[2].remote->url_redacted == "https://<redacted>@h.example/mcp?next=a@b");
  CHECK_FALSE(HasSecret(*r, ""));
}

}  // namespace
}  // namespace mcpgw::config
