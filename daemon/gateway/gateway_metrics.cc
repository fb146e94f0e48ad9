// Gateway::MetricsText: the daemon's metrics in the Prometheus text format
// (BEHAVIOR.md §15), rendered on the main loop from the counters each
// server's record keeps (gateway_server.h) and a few process figures. Names
// and units follow Prometheus' conventions: counters end in _total,
// durations are in seconds, sizes in bytes.
#include <unistd.h>

#include "daemon/gateway/gateway.h"
#include "daemon/gateway/gateway_server.h"

namespace mcpgw {
namespace {

// The states a server's row shows: `replay` is ready from the cassette.
constexpr std::string_view kStates[] = {"loading", "ready", "error", "replay"};

std::string_view StateOf(const ServerView& view, bool replay) {
  if (replay && view.status == mcp::Status::kReady) return "replay";
  return mcp::StatusName(view.status);
}

}  // namespace

std::string Gateway::MetricsText() const {
  MetricsWriter m;
  m.text().reserve(512 + servers_.size() * 3072);
  const double now = main_->UnixNow();
  m.Family("mcpgw_build_info", "gauge", "The running mcpgwd's version (always 1).");
  m.Sample("mcpgw_build_info", {{"version", MCPGW_VERSION}}, uint64_t{1});
  m.Family("mcpgw_uptime_seconds", "gauge", "Seconds since mcpgwd started.");
  m.Sample("mcpgw_uptime_seconds", {}, now - started_unix_);
  m.Family("process_start_time_seconds", "gauge", "When mcpgwd started, in seconds since 1970.");
  m.Sample("process_start_time_seconds", {}, started_unix_);
  const ProcessFigures process = ReadProcessFigures();
  m.Family("process_resident_memory_bytes", "gauge", "Resident memory of mcpgwd in bytes.");
  m.Sample("process_resident_memory_bytes", {}, process.resident_bytes);
  m.Family("process_open_fds", "gauge", "File descriptors mcpgwd has open.");
  m.Sample("process_open_fds", {}, process.open_fds);
  if (process.max_fds > 0) {
    m.Family("process_max_fds", "gauge", "The most file descriptors mcpgwd may open.");
    m.Sample("process_max_fds", {}, process.max_fds);
  }
  m.Family("mcpgw_host_connections", "gauge", "Hosts connected to the local socket now.");
  m.Sample("mcpgw_host_connections", {}, static_cast<uint64_t>(connections_ ? connections_() : 0));
  m.Family("mcpgw_servers", "gauge", "Servers the configuration names.");
  m.Sample("mcpgw_servers", {}, static_cast<uint64_t>(servers_.size()));
  m.Family("mcpgw_calls_total", "counter",
           "call_dynamic_tool requests by how they ended, every namespace (unknown ones too).");
  for (size_t e = 0; e < kCallEnds; ++e) {
    m.Sample("mcpgw_calls_total", {{"outcome", CallEndName(static_cast<CallEnd>(e))}},
             calls_by_end_[e]);
  }

  m.Family("mcpgw_server_state", "gauge",
           "1 for the state a server is in (loading, ready, error, or replay: ready from the "
           "cassette), 0 for the others.");
  for (const auto& s : servers_) {
    const std::string_view state = StateOf(s->view, s->replay);
    for (std::string_view each : kStates) {
      m.Sample("mcpgw_server_state", {{"namespace", s->name}, {"state", each}},
               uint64_t{each == state ? 1u : 0u});
    }
  }
  m.Family("mcpgw_server_calls_total", "counter",
           "call_dynamic_tool requests naming a server, by how they ended.");
  for (const auto& s : servers_) {
    for (size_t e = 0; e < kCallEnds; ++e) {
      m.Sample("mcpgw_server_calls_total",
               {{"namespace", s->name}, {"outcome", CallEndName(static_cast<CallEnd>(e))}},
               s->metrics.ends[e]);
    }
  }
  m.Family("mcpgw_server_call_duration_seconds", "histogram",
           "How long a server's calls took, from the request to its answer (ok, backend or "
           "transport).");
  for (const auto& s : servers_)
    m.Histogram("mcpgw_server_call_duration_seconds", s->name, s->metrics);
  m.Family("mcpgw_server_calls_in_flight", "gauge", "A server's calls waiting for their answer.");
  for (const auto& s : servers_) {
    m.Sample("mcpgw_server_calls_in_flight", {{"namespace", s->name}}, s->in_flight);
  }
  m.Family("mcpgw_server_requests_queued", "gauge",
           "A server's requests waiting for a connection (limits.max_connections_per_server).");
  for (const auto& s : servers_) {
    m.Sample("mcpgw_server_requests_queued", {{"namespace", s->name}},
             s->gauges ? s->gauges->queued.load(std::memory_order_relaxed) : 0);
  }
  m.Family("mcpgw_server_reconnects_total", "counter",
           "Attempts to open a new upstream session after the first (failures retried, expired "
           "sessions, era changes).");
  for (const auto& s : servers_) {
    m.Sample("mcpgw_server_reconnects_total", {{"namespace", s->name}},
             s->attempts > 1 ? s->attempts - 1 : uint64_t{0});
  }
  m.Family("mcpgw_server_info", "gauge",
           "1 for every server, labelled with its transport: http (a url) or stdio (a local "
           "command the daemon runs).");
  for (const auto& s : servers_) {
    m.Sample("mcpgw_server_info",
             {{"namespace", s->name}, {"transport", s->names_command ? "stdio" : "http"}},
             uint64_t{1});
  }
  m.Family("mcpgw_local_server_restarts_total", "counter",
           "Processes a local server was started again with, after the first.");
  for (const auto& s : servers_) {
    if (!s->gauges || !s->gauges->local) continue;
    m.Sample("mcpgw_local_server_restarts_total", {{"namespace", s->name}},
             s->gauges->local->restarts.load(std::memory_order_relaxed));
  }
  m.Family("mcpgw_server_tools", "gauge", "Tools in a server's listing as hosts see it.");
  for (const auto& s : servers_) {
    m.Sample("mcpgw_server_tools", {{"namespace", s->name}},
             static_cast<uint64_t>(s->view.tools ? s->view.tools->size() : 0));
  }
  m.Family("mcpgw_server_received_bytes_total", "counter",
           "Response bytes received from a server for its calls.");
  for (const auto& s : servers_) {
    m.Sample("mcpgw_server_received_bytes_total", {{"namespace", s->name}}, s->metrics.bytes_in);
  }
  m.Family("mcpgw_server_sent_bytes_total", "counter",
           "Request bytes sent to a server for its calls.");
  for (const auto& s : servers_) {
    m.Sample("mcpgw_server_sent_bytes_total", {{"namespace", s->name}}, s->metrics.bytes_out);
  }
  return std::move(m.text());
}

}  // namespace mcpgw
