// The figures `mcpgw top` reads from `mcpgw status --json` (docs/BEHAVIOR.md
// §15), against the real mcpgwd: each server's last minute (calls, p50 and
// p99, errors by kind, refusals included) and the daemon's own figures and
// call log.
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

using namespace mcpgw::testing;

namespace {

const rapidjson::Value* ServerObject(const rapidjson::Document& doc, const std::string& ns) {
  for (const auto& s : doc["servers"].GetArray()) {
    if (ns == s["namespace"].GetString()) return &s;
  }
  return nullptr;
}

std::map<std::string, uint64_t> Errors(const rapidjson::Value& minute) {
  std::map<std::string, uint64_t> out;
  for (const auto& m : minute["errors"].GetObject()) out[m.name.GetString()] = m.value.GetUint64();
  return out;
}

}  // namespace

TEST_CASE("status: a server's last minute and the daemon's figures for mcpgw top",
          "[daemon][status]") {
  TempDir dir;
  NodeServer a(dir, "changing-server.mjs", {"--name", "a"});
  REQUIRE_UPSTREAM(a);
  WriteFile(dir / "settings.json", R"({"call_log":{"path":")" + dir / "calls.log" + R"("}})");
  Daemon d(dir,
           R"({"mcpServers":{"a":{"url":")" + a.Url() +
               R"("},"down":{"url":"http://127.0.0.1:9/mcp"}}})",
           {"--settings", dir / "settings.json"});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  REQUIRE(WaitFor([&] { return Row(d, "down").status == "error"; }));

  for (int i = 0; i < 4; ++i) CHECK(d.Cli({"call", "a", "next"}).code == 0);
  CHECK(d.Cli({"call", "a", "fail"}).code == 1);         // backend
  CHECK(d.Cli({"call", "a", "nope"}).code == 3);         // invalid_request: no such tool
  CHECK(d.Cli({"call", "down", "anything"}).code == 4);  // not_ready

  auto status = ParseJson(d.Cli({"status", "--json"}).out);
  REQUIRE(status.IsObject());
  const auto& daemon = status["daemon"];
  REQUIRE(daemon["call_log"].IsString());
  CHECK(daemon["call_log"].GetString() == dir / "calls.log");
  REQUIRE(daemon["rss_bytes"].IsUint64());
  CHECK(daemon["rss_bytes"].GetUint64() > 1'000'000);
  REQUIRE(daemon["cpu_s"].IsNumber());
  CHECK(daemon["cpu_s"].GetDouble() > 0);
  CHECK(daemon["calls"].GetUint64() == 5);
  CHECK(daemon["in_flight"].GetUint64() == 0);
  CHECK(daemon["queued"].GetUint64() == 0);

  const rapidjson::Value* row = ServerObject(status, "a");
  REQUIRE(row);
  const auto& minute = (*row)["minute"];
  CHECK(minute["calls"].GetUint64() == 5);
  REQUIRE(minute["p50_ms"].IsNumber());
  REQUIRE(minute["p99_ms"].IsNumber());
  CHECK(minute["p50_ms"].GetDouble() > 0);
  CHECK(minute["p50_ms"].GetDouble() <= minute["p99_ms"].GetDouble());
  CHECK(Errors(minute) == std::map<std::string, uint64_t>{{"backend", 1}, {"invalid_request", 1}});
  CHECK((*row)["latency_p50_ms"].IsNumber());  // kept as it was

  const rapidjson::Value* down = ServerObject(status, "down");
  REQUIRE(down);
  CHECK((*down)["minute"]["calls"].GetUint64() == 0);
  CHECK((*down)["minute"]["p50_ms"].IsNull());
  CHECK((*down)["minute"]["p99_ms"].IsNull());
  CHECK(Errors((*down)["minute"]) == std::map<std::string, uint64_t>{{"not_ready", 1}});
}

TEST_CASE("status: call_log is null without a call log", "[daemon][status]") {
  TempDir dir;
  WriteFile(dir / "settings.json", "{}");  // not the user's own, which might name one
  Daemon d(dir, R"({"mcpServers":{"down":{"url":"http://127.0.0.1:9/mcp"}}})",
           {"--settings", dir / "settings.json"});
  REQUIRE(d.WaitListening());
  auto status = ParseJson(d.Cli({"status", "--json"}).out);
  REQUIRE(status.IsObject());
  CHECK(status["daemon"]["call_log"].IsNull());
  CHECK(status["daemon"]["calls"].GetUint64() == 0);
}
