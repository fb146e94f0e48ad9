// BEHAVIOR.md §8: no reason, error or printable field carries an env-interpolated
// value or a header value. Every refusal path is driven with sentinel values
// and every output string is searched for them.
#include <catch2/catch.hpp>

#include "config/check.h"
#include "config/config.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::FakeEnv;

constexpr std::string_view kEnvSentinel = "ENVSENTINEL-7f3a";
constexpr std::string_view kHeaderSentinel = "HDRSENTINEL-91c2";

ParseEnv SentinelEnv() {
  return FakeEnv({{"S", std::string(kEnvSentinel)},
                  {"SPACEY", std::string(kEnvSentinel) + " x"},
                  {"CRLF", std::string(kEnvSentinel) + "\r\n"}});
}

bool Leaks(std::string_view text) {
  return text.find(kEnvSentinel) != std::string_view::npos ||
         text.find(kHeaderSentinel) != std::string_view::npos;
}

// Each entry below is refused, by a different rule, while holding sentinels.
const char* const kRefusedEntries[] = {
    R"("HDRSENTINEL-91c2")",
    R"(["ENVSENTINEL-7f3a"])",
    R"({"url": "https://h/${env:S}", "command": "x", "headers": {"A": "HDRSENTINEL-91c2"}})",
    R"({"headers": {"Authorization": "HDRSENTINEL-91c2"}, "x": "${env:S}"})",
    R"({"command": "${env:S}", "args": ["HDRSENTINEL-91c2"], "env": {"T": "${env:S}"}, "cwd": "r"})",
    R"({"url": "https://h/${env:S}", "type": "sse", "headers": {"A": "HDRSENTINEL-91c2"}})",
    R"({"url": ["HDRSENTINEL-91c2"]})",
    R"({"url": "ftp://${env:S}/"})",
    R"({"url": "HDRSENTINEL-91c2"})",
    R"({"url": "https://h/${env:SPACEY}"})",
    R"({"url": "https://h/${env:CRLF}"})",
    R"({"url": "https://${env:S}/", "headers": ["HDRSENTINEL-91c2"]})",
    R"({"url": "https://${env:S}/", "headers": {"A": "HDRSENTINEL-91c2", "B": 5}})",
    R"({"url": "https://h", "headers": {"A": "HDRSENTINEL-91c2", "B C": "HDRSENTINEL-91c2"}})",
    R"({"url": "https://h", "headers": {"A": "HDRSENTINEL-91c2\r\n"}})",
    R"({"url": "https://h", "headers": {"A": "${env:CRLF}"}})",
    R"({"url": "https://h", "headers": {"A": "x\u0000HDRSENTINEL-91c2"}})",
    R"({"url": "https://h", "headers": {"Accept": "HDRSENTINEL-91c2"}})",
    R"({"url": "https://h", "headers": {"Mcp-Session-Id": "${env:S}"}})",
    R"({"url": "https://h", "headers": {"A": "HDRSENTINEL-91c2", "a": "${env:S}"}})",
    R"({"url": "https://${env:S}", "headers": {"A": "${env:S}${env:UNSET}"}})",
    R"({"url": "https://h/${env:S}/${env:}"})",
    R"({"url": "https://h", "headers": {"A": "HDRSENTINEL-91c2 ${env:}"}})",
};

TEST_CASE("no refusal carries an env value or a header value", "[config][secrecy]") {
  for (const char* entry_json : kRefusedEntries) {
    INFO(entry_json);  // the input itself, not an output
    ParseResult r = testing::ParseEntryJson(entry_json, SentinelEnv());
    REQUIRE(r.ok());
    REQUIRE(r->entries.size() == 1);
    const Entry& e = r->entries[0];
    CHECK_FALSE(e.accepted());
    CHECK_FALSE(e.refusal.empty());
    CHECK_FALSE(Leaks(e.refusal));
    CHECK_FALSE(Leaks(FormatCheckReport(r, "mcp.json")));
  }
}

TEST_CASE("accepted entries print only redacted urls", "[config][secrecy]") {
  ParseResult r = testing::ParseEntryJson(
      R"({"url": "https://h/${env:S}?k=${env:S}", "headers": {"A": "HDRSENTINEL-91c2", "B": "${env:S}"}})",
      SentinelEnv());
  REQUIRE(r.ok());
  REQUIRE(r->entries[0].accepted());
  CHECK_FALSE(Leaks(r->entries[0].remote->url_redacted));
  std::string report = FormatCheckReport(r, "mcp.json");
  CHECK_FALSE(Leaks(report));
  CHECK(report.find("<redacted>") != std::string::npos);
}

TEST_CASE("file-level errors carry no value from the file", "[config][secrecy]") {
  for (const char* text : {
           R"({"mcpServers": "HDRSENTINEL-91c2"})",
           R"(["HDRSENTINEL-91c2"])",
           R"({"mcpServers": {"a": {"headers": {"A": "HDRSENTINEL-91c2"})",
           R"({"mcpServers": {"a": {"headers": {"A": "HDRSENTINEL-91c2)",
           "{\"mcpServers\": {\"a\": {\"headers\": {\"A\": \"HDRSENTINEL-91c2\xFF\"}}}}",
           "{\"mcpServers\": {\"a\": {\"headers\": {\"A\": \"HDRSENTINEL-91c2\tx\"}}}}",
       }) {
    INFO(text);
    ParseResult r = Parse(text, "mcp.json", SentinelEnv());
    CHECK_FALSE(r.ok());
    CHECK_FALSE(r.message().empty());
    CHECK_FALSE(Leaks(r.message()));
    CHECK_FALSE(Leaks(FormatCheckReport(r, "mcp.json")));
  }
}

}  // namespace
}  // namespace mcpgw::config
