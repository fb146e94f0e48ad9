// Gateway::Server: one configured server's record on the main loop, shared
// by the Gateway's source files (gateway.cc, gateway_pins.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/boxed.h"
#include "daemon/gateway/call_window.h"
#include "daemon/gateway/gateway.h"
#include "daemon/gateway/metrics.h"
#include "daemon/gateway/server_host.h"

namespace mcpgw {

inline constexpr size_t kLatencyWindow = 256;  // calls per server kept for the median

// A configured server, on the main loop.
struct Gateway::Server {
  std::string name;
  std::optional<config::RemoteServer> remote;  // the entry it was made from
  base::Boxed<config::LocalServer> local;  // or this, for a local server (boxed: most are remote)
  bool names_command = false;              // a local entry, accepted or refused
  std::string refusal;
  HostId host = 0;  // 0 for refused entries
  size_t worker = 0;
  uint64_t auth_id = 0;     // how the AuthManager knows it (0: not added)
  bool auth_asked = false;  // an authorization was asked for since it last succeeded
  std::string proxy;        // the proxy its transfers go through, fit to show; "" = direct
  ServerView view;
  std::string protocol_version;
  std::string http_version;  // "HTTP/2", "HTTP/1.1" ... as of its last state change; "" before
  double since_unix = 0;
  uint64_t in_flight = 0;
  std::shared_ptr<HostGauges> gauges;  // shared with its host on the worker; null if refused
  uint64_t calls = 0;
  uint64_t errors = 0;
  std::vector<double> latencies_ms;  // ring of the last kLatencyWindow calls
  size_t latency_next = 0;
  // Its last minute's calls, latencies and errors (status "minute"), made
  // at its first request: a server never called costs a pointer, and status
  // walks records that stay small.
  std::unique_ptr<CallWindow> minute;
  std::string last_error;  // the most recent failure: an attempt's or a call's transport error
  double last_error_unix = 0;
  bool failing = false;  // ready, and its last call failed as transport
  bool replay = false;  // served from the cassette: ready from its recorded listing (BEHAVIOR §14)
  // With --replay-miss forward, the status of its live session, which
  // serves the calls the cassette misses.
  mcp::Status live_status = mcp::Status::kLoading;
  uint64_t attempts = 0;  // connection attempts its session began (the first included)
  CallMetrics metrics;

  // What its pins are filed under: the url as shown, or the local command.
  std::string PinKey() const {
    if (remote) return remote->url_redacted;
    if (local) return "command: " + local->shown;
    return {};
  }

  CallWindow& Minute() {
    if (!minute) minute = std::make_unique<CallWindow>();
    return *minute;
  }

  void AddLatency(double ms) {
    if (latencies_ms.size() < kLatencyWindow) {
      latencies_ms.push_back(ms);
    } else {
      latencies_ms[latency_next] = ms;
      latency_next = (latency_next + 1) % kLatencyWindow;
    }
  }
  std::optional<double> MedianLatency() const {
    if (latencies_ms.empty()) return std::nullopt;
    std::vector<double> v = latencies_ms;
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
  }
};

}  // namespace mcpgw
