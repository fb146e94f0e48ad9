// Metrics in the Prometheus text exposition format (BEHAVIOR.md §15): the
// counters the Gateway keeps per server as calls end (CallMetrics), and the
// writer that renders them and the daemon's own figures (MetricsWriter).
// The Gateway renders on the main loop from these counters alone — never by
// walking calls or logs — for `mcpgw metrics` and the `metrics.listen`
// endpoint alike, so a scrape costs a few microseconds per server.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace mcpgw {

// How a call_dynamic_tool request ended, as the call log names it.
enum class CallEnd : uint8_t {
  kOk,
  kBackend,
  kTransport,
  kDenied,
  kNotReady,
  kInvalidRequest,
  kCancelled,
};
inline constexpr size_t kCallEnds = 7;
std::string_view CallEndName(CallEnd end);  // "ok", "backend", ..., "cancelled"

// The upper bounds (seconds) of the call-duration histogram's buckets.
inline constexpr std::array<double, 14> kDurationBuckets = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};

// One server's call counters, on the main loop.
struct CallMetrics {
  std::array<uint64_t, kCallEnds> ends{};  // requests by how they ended
  // Calls that reached the server (or the cassette) and ended ok, backend
  // or transport: their durations, per bucket (not cumulative).
  std::array<uint64_t, kDurationBuckets.size() + 1> buckets{};  // the last: past every bound
  double duration_sum_s = 0;
  uint64_t bytes_in = 0;   // response bytes of its calls
  uint64_t bytes_out = 0;  // request bytes of its calls

  void Count(CallEnd end) { ends[static_cast<size_t>(end)]++; }
  void Observe(double seconds);
  uint64_t observed() const;
};

// Appends the exposition text: a family's HELP and TYPE lines once, then
// its samples. Label values are escaped as the format asks (\\, \", \n) and
// made valid UTF-8.
class MetricsWriter {
 public:
  using Labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  // `type` is "counter", "gauge" or "histogram".
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, Labels labels, double value);
  void Sample(std::string_view name, Labels labels, uint64_t value);
  // The _bucket (cumulative, then +Inf), _sum and _count samples of one
  // histogram series; `ns` is its namespace label.
  void Histogram(std::string_view name, std::string_view ns, const CallMetrics& m);

  std::string& text() { return out_; }

 private:
  void Head(std::string_view name, Labels labels, std::string_view extra_name = {},
            std::string_view extra_value = {});
  std::string out_;
};

// The daemon's process figures, read from /proc (0 where unknown).
struct ProcessFigures {
  uint64_t resident_bytes = 0;
  uint64_t open_fds = 0;
  uint64_t max_fds = 0;
};
ProcessFigures ReadProcessFigures();

}  // namespace mcpgw
