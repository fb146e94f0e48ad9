// The metrics writer (daemon/gateway/metrics.h, BEHAVIOR.md §15): the
// exposition format's rules a scraper relies on.
#include "daemon/gateway/metrics.h"

#include <catch2/catch.hpp>

namespace mcpgw {

TEST_CASE("metrics: families have HELP and TYPE, label values are escaped and UTF-8", "[metrics]") {
  MetricsWriter m;
  m.Family("mcpgw_server_tools", "gauge", "Tools.");
  m.Sample("mcpgw_server_tools", {{"namespace", "a\"b\\c\nd"}}, uint64_t{3});
  m.Sample("mcpgw_server_tools", {{"namespace", "bad\xFF"}}, uint64_t{0});
  m.Sample("mcpgw_uptime_seconds", {}, 1.5);
  CHECK(m.text() ==
        "# HELP mcpgw_server_tools Tools.\n# TYPE mcpgw_server_tools gauge\n"
        "mcpgw_server_tools{namespace=\"a\\\"b\\\\c\\nd\"} 3\n"
        "mcpgw_server_tools{namespace=\"bad\xEF\xBF\xBD\"} 0\n"
        "mcpgw_uptime_seconds 1.5\n");
}

TEST_CASE("metrics: a histogram's buckets are cumulative and end at +Inf", "[metrics]") {
  CallMetrics c;
  c.Observe(0.001);  // le 0.005
  c.Observe(0.005);  // le 0.005: a bound is inclusive
  c.Observe(0.7);    // le 1
  c.Observe(1000);   // past every bound
  CHECK(c.observed() == 4);
  MetricsWriter m;
  m.Histogram("d_seconds", "ns", c);
  const std::string& t = m.text();
  CHECK_THAT(t, Catch::Contains("d_seconds_bucket{namespace=\"ns\",le=\"0.005\"} 2\n"));
  CHECK_THAT(t, Catch::Contains("d_seconds_bucket{namespace=\"ns\",le=\"0.5\"} 2\n"));
  CHECK_THAT(t, Catch::Contains("d_seconds_bucket{namespace=\"ns\",le=\"1\"} 3\n"));
  CHECK_THAT(t, Catch::Contains("d_seconds_bucket{namespace=\"ns\",le=\"300\"} 3\n"));
  CHECK_THAT(t, Catch::Contains("d_seconds_bucket{namespace=\"ns\",le=\"+Inf\"} 4\n"));
  CHECK_THAT(t, Catch::Contains("d_seconds_count{namespace=\"ns\"} 4\n"));
  CHECK_THAT(t, Catch::Contains("d_seconds_sum{namespace=\"ns\"} 1000.7"));
}

TEST_CASE("metrics: the process figures are read", "[metrics]") {
  const ProcessFigures f = ReadProcessFigures();
  CHECK(f.resident_bytes > 0);
  CHECK(f.open_fds >= 3);  // stdin, stdout, stderr at least
}

}  // namespace mcpgw
