// The shape of one mcpServers entry (BEHAVIOR.md §2): remote or local, url rules,
// legacy SSE, and what is ignored.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

using testing::OnlyEntry;

TEST_CASE("a remote entry with an https url is accepted", "[config][entry]") {
  Entry e = OnlyEntry("{\"url\": \"https://api.example.com/mcp?x=1#f\"}");
  REQUIRE(e.accepted());
  CHECK(e.refusal.empty());
  CHECK(e.remote->url.Reveal() == "https://api.example.com/mcp?x=1#f");
  CHECK(e.remote->url_redacted == "https://api.example.com/mcp?x=1#f");
  CHECK(e.remote->headers.empty());
}

TEST_CASE("an entry that is not an object is refused", "[config][entry]") {
  for (const char* json : {"\"http://x\"", "[]", "null", "3", "true"}) {
    Entry e = OnlyEntry(json);
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal.rfind("entry must be an object (got ", 0) == 0);
  }
}

TEST_CASE("an entry with both url and command is refused", "[config][entry]") {
  Entry e = OnlyEntry("{\"url\": \"http://x\", \"command\": \"npx\"}");
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal.find("both \"url\" and \"command\"") != std::string::npos);
}

TEST_CASE("an entry with neither url nor command is refused", "[config][entry]") {
  Entry e = OnlyEntry("{\"type\": \"http\", \"headers\": {}}");
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal.find("neither \"url\"") != std::string::npos);
  CHECK(e.refusal.find("\"command\"") != std::string::npos);
  CHECK_FALSE(OnlyEntry("{}").accepted());
}

TEST_CASE("a local entry is accepted with its command, args, env and cwd", "[config][entry]") {
  Entry e = OnlyEntry(
      "{\"command\": \"npx\", \"args\": [\"-y\", \"pkg\", \"${userHome}/data\"],"
      " \"env\": {\"K\": \"v\", \"API_KEY\": \"literal-key\"}, \"cwd\": \"${userHome}\","
      " \"type\": \"stdio\"}");
  REQUIRE(e.accepted());
  REQUIRE(e.local.has_value());
  CHECK_FALSE(e.remote.has_value());
  CHECK(e.local->command == "npx");
  CHECK(e.local->args == std::vector<std::string>{"-y", "pkg", "/home/tester/data"});
  REQUIRE(e.local->env.size() == 2);
  CHECK(e.local->env[0].name == "K");
  CHECK(e.local->env[1].value.Reveal() == "literal-key");
  CHECK(e.local->cwd == "/home/tester");
  CHECK(e.local->shown == "npx -y pkg /home/tester/data");
  CHECK(e.notes.empty());
}

TEST_CASE("a local entry's bad fields refuse it, naming the key", "[config][entry]") {
  CHECK(OnlyEntry("{\"command\": 5}").refusal == "command must be a string (got number)");
  CHECK(OnlyEntry("{\"command\": \"\"}").refusal == "\"command\" is empty");
  CHECK(OnlyEntry("{\"command\": \"x\", \"args\": \"-y\"}").refusal ==
        "\"args\" must be an array of strings (got string)");
  CHECK(OnlyEntry("{\"command\": \"x\", \"args\": [\"a\", 3]}").refusal ==
        "args[1] must be a string (got number)");
  CHECK(OnlyEntry("{\"command\": \"x\", \"env\": {\"A=B\": \"v\"}}").refusal ==
        "env.A=B: not a valid variable name");
  CHECK(OnlyEntry("{\"command\": \"x\", \"env\": {\"A\": 1}}").refusal ==
        "env.A must be a string (got number)");
  CHECK(OnlyEntry("{\"command\": \"x\", \"cwd\": \"relative/dir\"}").refusal ==
        "cwd: must be an absolute path");
  CHECK(OnlyEntry("{\"command\": \"x\", \"args\": [\"${env:UNSET_VAR}\"]}").refusal ==
        "args[0]: environment variable UNSET_VAR is not set");
  CHECK(OnlyEntry("{\"command\": \"x\", \"type\": \"sse\"}").refusal ==
        "legacy HTTP+SSE transport (type \"sse\") is not supported; use Streamable HTTP");
}

TEST_CASE("local_servers refuse and a writable mcp.json refuse local entries only",
          "[config][entry]") {
  ParseResult r = Parse(R"({"mcpServers": {"l": {"command": "x"}, "r": {"url": "http://r"}}})",
                        "mcp.json", testing::FakeEnv());
  REQUIRE(r.ok());
  Config refused = *r;
  RefuseLocal(refused);
  CHECK(refused.entries[0].refusal == kLocalRefusal);
  CHECK_FALSE(refused.entries[0].accepted());
  CHECK(refused.entries[0].names_command);  // status still calls it a stdio server
  CHECK_FALSE(refused.entries[1].names_command);
  CHECK(refused.entries[1].accepted());

  Config writable = *r;
  RefuseLocalUnlessPrivate(writable, "/h/mcp.json", 1000, 0100666, 1000);
  CHECK(writable.entries[0].refusal ==
        "local servers run only from an mcp.json no one else can write; /h/mcp.json has mode "
        "0666 (chmod go-w /h/mcp.json)");
  CHECK(writable.entries[1].accepted());

  Config foreign = *r;
  RefuseLocalUnlessPrivate(foreign, "/h/mcp.json", 0, 0100600, 1000);
  CHECK(foreign.entries[0].refusal.find("belongs to another user (uid 0)") != std::string::npos);

  Config mine = *r;
  RefuseLocalUnlessPrivate(mine, "/h/mcp.json", 1000, 0100644, 1000);
  CHECK(mine.entries[0].accepted());
}

TEST_CASE("type sse is refused, in any case", "[config][entry]") {
  Entry e = OnlyEntry("{\"url\": \"http://x/sse\", \"type\": \"sse\"}");
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal ==
        "legacy HTTP+SSE transport (type \"sse\") is not supported; use Streamable HTTP");
  CHECK(OnlyEntry("{\"url\": \"http://x/sse\", \"type\": \"SSE\"}").refusal == e.refusal);
}

TEST_CASE("other type values are ignored", "[config][entry]") {
  for (const char* type :
       {"\"http\"", "\"streamable-http\"", "42", "null", "\"sse2\"", "[\"sse\"]"}) {
    Entry e = OnlyEntry(std::string("{\"url\": \"http://x\", \"type\": ") + type + "}");
    CHECK(e.accepted());
  }
}

TEST_CASE("unknown entry fields are ignored", "[config][entry]") {
  Entry e = OnlyEntry(
      "{\"url\": \"http://x\", \"disabled\": false, \"args\": 5, \"env\": [], \"nested\": "
      "{\"a\": [1,2,{}]}}");
  CHECK(e.accepted());
}

TEST_CASE("a url that is not a string is refused naming the key", "[config][entry]") {
  for (const char* url : {"5", "null", "[\"http://x\"]", "{}", "false"}) {
    Entry e = OnlyEntry(std::string("{\"url\": ") + url + "}");
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal.rfind("\"url\" must be a string (got ", 0) == 0);
  }
}

TEST_CASE("a url that is not http(s) with a host is refused", "[config][entry]") {
  for (const char* url :
       {"http://", "https://", "ftp://x", "x", "http:/x", "http//x", "http://a b",
        "http://x/\\tpath", "", "ws://x", "file:///etc/passwd", "http://:80", "http://user@",
        "http://x:port", "http://x:99999", "mailto:a@b", "http://[::1", " http://x"}) {
    Entry e = OnlyEntry(std::string("{\"url\": \"") + url + "\"}");
    INFO(url);
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal == "url: not an http:// or https:// URL with a host");
  }
}

TEST_CASE("url schemes match case-insensitively, ports, IPv6 and userinfo are fine",
          "[config][entry]") {
  for (const char* url : {"HTTP://x", "Https://x:8443/p", "http://[::1]:8080/mcp", "http://u:p@h/",
                          "http://127.0.0.1", "https://x?q", "http://x#f"}) {
    INFO(url);
    CHECK(OnlyEntry(std::string("{\"url\": \"") + url + "\"}").accepted());
  }
}

TEST_CASE("a url with a control character is refused", "[config][entry]") {
  CHECK_FALSE(OnlyEntry("{\"url\": \"http://x/\\u0000a\"}").accepted());
  CHECK_FALSE(OnlyEntry("{\"url\": \"http://x/\\r\\n\"}").accepted());
  CHECK_FALSE(OnlyEntry("{\"url\": \"http://x/\\u007f\"}").accepted());
}

}  // namespace
}  // namespace mcpgw::config
