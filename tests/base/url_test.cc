// base/url: the one url parser (libcurl's CURLU behind it) and userinfo
// redaction for display.
#include "base/url.h"

#include <catch2/catch.hpp>

namespace mcpgw::base {
namespace {

Url U(std::string_view text) {
  std::optional<Url> url = ParseUrl(text);
  REQUIRE(url);
  return *url;
}

TEST_CASE("urls parse into lower-case origins without default ports", "[base][url]") {
  Url u = U("HTTPS://User:pw@Example.COM:443/MCP/x?key=1#frag");
  CHECK(u.scheme == "https");
  CHECK(u.userinfo == "User:pw");
  CHECK(u.host == "example.com");
  CHECK(u.port.empty());
  CHECK(u.path == "/MCP/x");  // the path keeps its case
  CHECK(u.query == "key=1");
  CHECK(u.Origin() == "https://example.com");
  CHECK(U("http://[::1]:8080").Origin() == "http://[::1]:8080");
  CHECK(U("http://[FE80::1%25eth0]:8080/").host == "[fe80::1%25eth0]");  // a zone id kept
  CHECK(U("http://Example.com:80/").Origin() == "http://example.com");
  CHECK(U("https://x:8443/p").Origin() == "https://x:8443");
  CHECK(U("http://localhost:3000").path == "/");
  CHECK(U("http://host?q").query == "q");
  CHECK(U("http://host#f").query.empty());
}

TEST_CASE("the path is the one libcurl sends: dot segments resolved", "[base][url]") {
  CHECK(U("https://h/mcp/../admin").path == "/admin");
  CHECK(U("https://h/a/./b/").path == "/a/b/");
}

TEST_CASE("userinfo is kept as written, user alone or with a password", "[base][url]") {
  CHECK(U("https://bob:pw-9f3k@h.example:8443/mcp").userinfo == "bob:pw-9f3k");
  CHECK(U("https://only-user@h/mcp?next=a@b").userinfo == "only-user");
  CHECK(U("https://u:@h/").userinfo == "u:");
  CHECK(U("https://h/").userinfo.empty());
  // An '@' past the authority is not userinfo.
  CHECK(U("https://h/p?x=@y").userinfo.empty());
  CHECK(U("https://h/p?x=@y").host == "h");
}

TEST_CASE("only absolute http and https urls with a host parse", "[base][url]") {
  for (const char* good : {"HTTP://x", "Https://x:8443/p", "http://[::1]:8080/mcp", "http://u:p@h/",
                           "http://127.0.0.1", "https://x?q", "http://x#f", "http://a_b/"}) {
    INFO(good);
    CHECK(ParseUrl(good));
  }
  for (const char* bad : {"http://",         "https://",
                          "ftp://x",         "x",
                          "http:/x",         "http//x",
                          "http:///x",       "http://a b",
                          "http://x/\tpath", "",
                          "ws://x",          "file:///etc/passwd",
                          "http://:80",      "http://user@",
                          "http://x:port",   "http://x:99999",
                          "http://x:0",      "mailto:a@b",
                          "http://[::1",     " http://x",
                          "http://x/\r\n",   "http://x/\x7f",
                          "http://a@b@c/",   "http://a!b/"}) {
    INFO(bad);
    CHECK_FALSE(ParseUrl(bad));
  }
  CHECK_FALSE(ParseUrl(std::string_view("http://x/\0a", 11)));
}

TEST_CASE("userinfo is replaced for display, parsable or not", "[base][url]") {
  CHECK(ReplaceUserinfo("https://bob:pw@h.example:8443/mcp", "<redacted>") ==
        "https://<redacted>@h.example:8443/mcp");
  CHECK(ReplaceUserinfo("https://only-user@h/mcp?next=a@b", "<redacted>") ==
        "https://<redacted>@h/mcp?next=a@b");
  // The last '@' of the authority ends the userinfo: a password may hold one.
  CHECK(ReplaceUserinfo("http://alice:p@ss@10.0.0.1:3128", "<redacted>") ==
        "http://<redacted>@10.0.0.1:3128");
  // Text that is no url (its host interpolated away) still loses its password.
  CHECK(ReplaceUserinfo("https://alice:pw@<redacted>/mcp", "<redacted>") ==
        "https://<redacted>@<redacted>/mcp");
  CHECK(ReplaceUserinfo("https://h/mcp?x=@y#@z", "<redacted>") == "https://h/mcp?x=@y#@z");
  CHECK(ReplaceUserinfo("no scheme@host", "<redacted>") == "no scheme@host");
  CHECK(ReplaceUserinfo("https://@h/", "<redacted>") == "https://@h/");
}

TEST_CASE("the host is named as written, for an error message", "[base][url]") {
  CHECK(HostAsWritten("https://api.example.com/mcp") == "api.example.com");
  CHECK(HostAsWritten("https://u:p@api.example.com:8443/mcp?x=@y") == "api.example.com");
  CHECK(HostAsWritten("https://<redacted>@api.example.com/mcp") == "api.example.com");
  CHECK(HostAsWritten("http://[::1]:8080/") == "::1");
  CHECK(HostAsWritten("http://host?q") == "host");
  CHECK(HostAsWritten("http://host#f") == "host");
  CHECK(HostAsWritten("no scheme") == "");
  CHECK(HostAsWritten("http://[::1") == "");
}

}  // namespace
}  // namespace mcpgw::base
