// Which proxy a server's transfers use: the environment's variables as curl
// reads them, no_proxy matching, what status shows, and that HttpClient
// sends a transfer where the choice says (and nowhere libcurl would choose).
#include "daemon/net/proxy.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "daemon/net/http_client.h"
#include "tests/daemon/testing/http_test_server.h"
#include "tests/daemon/testing/loop_helpers.h"

namespace mcpgw::http {
namespace {

ProxyEnv Env(std::map<std::string, std::string> vars) {
  return ProxyEnv::FromEnv([vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}

TEST_CASE("https and http servers use their own variable, then all_proxy", "[proxy]") {
  ProxyEnv env = Env({{"HTTPS_PROXY", "http://secure:3128"}, {"http_proxy", "plain:8080"}});
  CHECK(env.For("https://api.example.com/mcp") == "http://secure:3128");
  CHECK(env.For("HTTPS://api.example.com/mcp") == "http://secure:3128");
  CHECK(env.For("http://api.example.com/mcp") == "plain:8080");

  ProxyEnv all = Env({{"ALL_PROXY", "socks5h://s:1080"}, {"HTTP_PROXY", "http://upper:1"}});
  CHECK(all.For("https://a.example/mcp") == "socks5h://s:1080");
  CHECK(all.For("http://a.example/mcp") == "http://upper:1");

  CHECK(Env({}).For("https://a.example/mcp").empty());
  CHECK(Env({}).empty());
}

TEST_CASE("a lower-case variable wins, an empty one counts as unset", "[proxy]") {
  ProxyEnv env = Env({{"https_proxy", "http://lower:1"}, {"HTTPS_PROXY", "http://upper:2"}});
  CHECK(env.For("https://a.example/") == "http://lower:1");
  ProxyEnv empty = Env({{"https_proxy", ""}, {"HTTPS_PROXY", "http://upper:2"}});
  CHECK(empty.For("https://a.example/") == "http://upper:2");
  ProxyEnv no_proxy =
      Env({{"https_proxy", "http://p:1"}, {"no_proxy", ""}, {"NO_PROXY", "a.example"}});
  CHECK(no_proxy.For("https://a.example/").empty());
}

TEST_CASE("no_proxy matches host names, their subdomains and IP networks", "[proxy]") {
  ProxyEnv env = Env({{"https_proxy", "http://p:3128"},
                      {"no_proxy",
                       " .internal.example, example.com  localhost,10.0.0.0/8,"
                       "192.168.1.7 ::1, fd00::/8,Intranet."}});
  auto direct = [&](const char* url) { return env.For(url).empty(); };
  CHECK(direct("https://example.com/mcp"));
  CHECK(direct("https://api.EXAMPLE.com:8443/mcp"));
  CHECK_FALSE(direct("https://notexample.com/mcp"));
  CHECK(direct("https://internal.example/mcp"));
  CHECK(direct("https://mcp.internal.example/mcp"));
  CHECK(direct("https://localhost:9000/mcp"));
  CHECK(direct("https://intranet/mcp"));
  CHECK(direct("https://example.com./mcp"));
  CHECK(direct("https://10.20.30.40/mcp"));
  CHECK_FALSE(direct("https://11.0.0.1/mcp"));
  CHECK(direct("https://192.168.1.7:443/mcp"));
  CHECK_FALSE(direct("https://192.168.1.8/mcp"));
  CHECK(direct("https://[::1]:8443/mcp"));
  CHECK(direct("https://[fd12:3456::1]/mcp"));
  CHECK_FALSE(direct("https://[2001:db8::1]/mcp"));
  // Names and addresses do not stand for each other: list both.
  CHECK_FALSE(direct("https://127.0.0.1/mcp"));
  CHECK(direct("https://user:pw@example.com/mcp"));
  // The host is read as libcurl reads it: 10.1 is the address 10.0.0.1.
  CHECK(direct("https://10.1/mcp"));
}

TEST_CASE("no_proxy * bypasses every proxy", "[proxy]") {
  CHECK(Env({{"https_proxy", "http://p:1"}, {"NO_PROXY", "*"}}).For("https://a.b/").empty());
  CHECK(Env({{"https_proxy", "http://p:1"}, {"NO_PROXY", "x.y,*"}}).For("https://a.b/").empty());
}

TEST_CASE("status shows a proxy with its scheme and without credentials", "[proxy]") {
  CHECK(ShowProxy("") == "");
  CHECK(ShowProxy("127.0.0.1:3128") == "http://127.0.0.1:3128");
  CHECK(ShowProxy("http://proxy.corp:8080/") == "http://proxy.corp:8080/");
  CHECK(ShowProxy("http://alice:s3cret@proxy.corp:8080") == "http://<redacted>@proxy.corp:8080");
  CHECK(ShowProxy("alice:p@ss@10.0.0.1:3128") == "http://<redacted>@10.0.0.1:3128");
  CHECK(ShowProxy("socks5h://u@s:1080") == "socks5h://<redacted>@s:1080");
}

// --- HttpClient follows the choice -------------------------------------------

struct Done : HttpSink {
  int status = 0;
  bool done = false;
  TransferResult result;
  void OnHttpHead(uint64_t, const ResponseHead& head) override { status = head.status; }
  void OnHttpData(uint64_t, std::string_view) override {}
  void OnHttpDone(uint64_t, const TransferResult& r) override {
    done = true;
    result = r;
  }
};

// Runs one GET of `url` through a client with `proxies`; returns the sink.
Done Fetch(std::shared_ptr<const ProxyEnv> proxies, const std::string& url) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  Done sink;
  {
    HttpClientOptions options;
    options.proxies = std::move(proxies);
    HttpClient client(&loop, options);
    HttpRequest req;
    req.method = HttpMethod::kGet;
    req.url = url;
    client.Start(&sink, 1, req);
    testing::RunUntil(
        &loop, [&] { return sink.done; }, std::chrono::milliseconds(5000));
  }
  CHECK(testing::FinishLoop(&loop) == 0);
  return sink;
}

const char* kOk = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

TEST_CASE("a transfer goes through the proxy chosen for its url", "[proxy][http]") {
  testing::HttpTestServer proxy(
      [](const testing::TestRequest&, testing::TestConnection& c) { c.Write(kOk); });
  testing::HttpTestServer server(
      [](const testing::TestRequest&, testing::TestConnection& c) { c.Write(kOk); });
  auto env = std::make_shared<const ProxyEnv>(
      Env({{"http_proxy", proxy.Url("")}, {"no_proxy", "127.0.0.1"}}));
  Done via = Fetch(env, "http://upstream.invalid/mcp");
  CHECK(via.result.ok);
  CHECK(via.status == 200);
  REQUIRE(proxy.requests().size() == 1);
  // A forwarding proxy gets the absolute url.
  CHECK(proxy.requests()[0].target == "http://upstream.invalid/mcp");

  Done direct = Fetch(env, server.Url());
  CHECK(direct.result.ok);
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].target == "/mcp");
  CHECK(proxy.requests().size() == 1);
}

TEST_CASE("libcurl does not pick proxies from the environment by itself", "[proxy][http]") {
  testing::HttpTestServer proxy(
      [](const testing::TestRequest&, testing::TestConnection& c) { c.Write(kOk); });
  testing::HttpTestServer server(
      [](const testing::TestRequest&, testing::TestConnection& c) { c.Write(kOk); });
  setenv("http_proxy", proxy.Url("").c_str(), 1);
  Done sink = Fetch(std::make_shared<const ProxyEnv>(), server.Url());
  unsetenv("http_proxy");
  CHECK(sink.result.ok);
  CHECK(server.requests().size() == 1);
  CHECK(proxy.requests().empty());
}

TEST_CASE("a proxy that refuses connections is named in the error", "[proxy][http]") {
  auto env = std::make_shared<const ProxyEnv>(Env({{"http_proxy", "http://127.0.0.1:1"}}));
  Done sink = Fetch(env, "http://upstream.invalid/mcp");
  CHECK_FALSE(sink.result.ok);
  CHECK(sink.result.error == "could not connect to the proxy (connection refused)");
}

}  // namespace
}  // namespace mcpgw::http
