// HttpClient: HTTP transfers on one libuv loop through one curl multi handle,
// driven by CURLMOPT_SOCKETFUNCTION/TIMERFUNCTION and curl_multi_socket_action
// (never curl_multi_perform). Single-threaded: every method must be called on
// the loop's thread, and every sink callback runs there.
//
// Policy baked in for MCP (BEHAVIOR.md §6): redirects are never followed (a 3xx is
// reported as a normal response head), only http and https, connections are
// reused (also after an SSE answer: Finish), HTTP/2 is negotiated where the
// server offers it (ALPN), no signals.
// A request marked at_most_once is never sent again by libcurl once any of
// it may have been written (http_types.h; OnPrereq in http_client.cc).
// Proxies come from the environment (proxy.h), chosen per url by us, not by
// libcurl; trusted CAs from a TlsTrust (tls_trust.h) the daemon can replace.
// Error texts are short, human and never contain the url or a header value;
// a TLS host name mismatch names the host of `url_redacted` when it is clean.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <uv.h>

#include "daemon/net/http_types.h"
#include "daemon/net/proxy.h"
#include "daemon/net/tls_trust.h"

namespace mcpgw {

struct HttpClientOptions {
  long connect_timeout_ms = 30000;
  bool verbose = false;  // curl's debug output (never enabled in production: it prints headers)
  // Trusted CAs; null: libcurl's built-in defaults. SetTrust replaces it.
  std::shared_ptr<const http::TlsTrust> trust;
  // Proxies per url; null: the process environment's (ProcessProxyEnv()).
  std::shared_ptr<const http::ProxyEnv> proxies;
  // Requests in progress at once per origin (scheme, host, port), and so the
  // HTTP/1.1 connections open to it; more wait in a first-in first-out queue
  // here, not in a server's accept backlog. Long-lived transfers (a
  // server's stream of notifications, one per server) do not count, nor
  // wait. 0: no bound.
  size_t max_requests_per_origin = 64;
};

class HttpClient : public HttpTransport {
 public:
  HttpClient(uv_loop_t* loop, HttpClientOptions options = {});
  ~HttpClient() override;  // aborts every transfer without callbacks
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  void Start(HttpSink* sink, uint64_t tag, HttpRequest request) override;
  void Abort(HttpSink* sink, uint64_t tag) override;
  void AbortAll(HttpSink* sink) override;
  void Finish(HttpSink* sink, uint64_t tag) override;
  size_t active() const;   // transfers started and not ended, queued ones included
  size_t waiting() const;  // of those, the ones queued for the budget per origin
  // Trust for transfers started from now on (running ones keep theirs).
  void SetTrust(std::shared_ptr<const http::TlsTrust> trust);

  // Transfer-side counters for status and benchmarks.
  struct Stats {
    uint64_t started = 0;
    uint64_t finished = 0;
    uint64_t aborted = 0;
    // Finished transfers (Finish) whose stream ended after all, keeping
    // the connection, and those cut.
    uint64_t drained = 0;
    uint64_t cut = 0;
    uint64_t queued = 0;  // requests that had to wait for the budget per origin
    // Easy handles held now (in progress, reading a stream's end, pooled);
    // a request waiting for the budget holds none.
    uint64_t handles = 0;
  };
  Stats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw
