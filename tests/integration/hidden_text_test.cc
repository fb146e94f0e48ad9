// Invisible characters in tool definitions (docs/BEHAVIOR.md §4) against the
// real mcpgwd and the official SDK's server (large-result-server.mjs
// --hidden-text): no host sees them — not the CLI, not libmcpgw, not
// `mcpgw stdio`, not a query — the call still reaches the server under its
// own name, and the log reports the tool once.
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "integration/stdio_process.h"
#include "mcpgw.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

// Every invisible character's UTF-8 lead bytes: none may reach a host.
bool HasInvisible(const std::string& s) {
  for (const char* needle : {"\xE2\x80\x8B", "\xE2\x80\xAE", "\xE2\x81\xA0", "\xEF\xBB\xBF",
                             "\xF3\xA0\x81", "\\u200b", "\\u202e", "\\u2060", "\\ufeff"}) {
    if (s.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("hidden text: removed from every listing, the call keeps the server's name",
          "[daemon][hidden]") {
  TempDir dir;
  NodeServer server(dir, "large-result-server.mjs", {"--hidden-text"});
  REQUIRE_UPSTREAM(server);
  WriteFile(dir / "settings.json", "{}");
  Daemon d(dir, R"({"mcpServers":{"words":{"url":")" + server.Url() + R"("}}})",
           {"--settings", dir / "settings.json"});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "words"));

  const auto all = d.Cli({"tools"});
  REQUIRE(all.code == 0);
  CHECK(all.out.find(R"("tools":["lookup","text"])") != std::string::npos);
  const auto one = d.Cli({"tools", "words", "lookup"});
  REQUIRE(one.code == 0);
  CHECK(one.out.find(R"("description":"Looks up a word.")") != std::string::npos);
  CHECK(one.out.find(R"("description":"the word")") != std::string::npos);
  const auto found = d.Cli({"tools", "--query", "look up a word"});
  REQUIRE(found.code == 0);
  CHECK(found.out.find(R"("name":"lookup")") != std::string::npos);
  for (const auto* out : {&all.out, &one.out, &found.out}) CHECK_FALSE(HasInvisible(*out));

  // The call goes out under the name the server gave the tool.
  const auto called = d.Cli({"call", "words", "lookup", R"({"word":"x"})"});
  REQUIRE(called.code == 0);
  CHECK(called.out == "called as \"look\xE2\x80\x8Bup\"\n");

  std::unique_ptr<mcpgw_client, decltype(&mcpgw_close)> client(mcpgw_open(d.socket().c_str()),
                                                               &mcpgw_close);
  char* out = nullptr;
  REQUIRE(mcpgw_get_dynamic_tools(client.get(), "words", nullptr, nullptr, &out) == MCPGW_OK);
  const std::string lib = out;
  mcpgw_free(out);
  CHECK(lib.find(R"("name":"lookup")") != std::string::npos);
  CHECK_FALSE(HasInvisible(lib));

  StdioProcess bridge(d.socket());
  bridge.Write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  REQUIRE(!bridge.ReadLine().empty());
  bridge.Write(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_dynamic_tools","arguments":{"namespace":"words"}}})");
  const std::string line = bridge.ReadLine();
  CHECK(line.find(R"(\"name\":\"lookup\")") != std::string::npos);
  CHECK_FALSE(HasInvisible(line));

  // Reported once, naming the tool, however often it is listed.
  REQUIRE(d.Cli({"tools", "words"}).code == 0);
  const std::string log = d.Log();
  const std::string warning = "invisible characters (tag, bidirectional or zero-width) removed";
  const size_t first = log.find(warning);
  REQUIRE(first != std::string::npos);
  CHECK(log.find(warning, first + 1) == std::string::npos);
  CHECK(log.find("from tools: lookup") != std::string::npos);
}
