// The gateway's settings file: defaults, every key, and errors a user can fix.
#include "config/settings.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "config/settings_table.h"
#include "config/settings_test_values.h"

namespace mcpgw {
namespace {

Settings Parsed(const std::string& text) {
  auto r = ParseSettings(text, "settings.json");
  INFO(r.message());
  REQUIRE(r.ok());
  return *r;
}

std::string Error(const std::string& text) {
  auto r = ParseSettings(text, "/home/u/.config/mcpgw/settings.json");
  REQUIRE_FALSE(r.ok());
  return r.message();
}

TEST_CASE("an empty object gives the documented defaults", "[settings]") {
  Settings s = Parsed("{}");
  CHECK(s.limits.max_response_bytes == 16u * 1024 * 1024);
  CHECK(s.limits.max_json_depth == 128);
  CHECK(s.limits.call_timeout_s == 300);
  CHECK(s.limits.listing_timeout_s == 120);
  CHECK(s.limits.max_tools_per_server == 10000);
  CHECK(s.limits.max_list_pages == 1000);
  CHECK(s.limits.max_sse_event_bytes == 16u * 1024 * 1024);
  CHECK(s.limits.max_connections_per_server == 64);
  CHECK(s.ipc.allowed_uids.empty());
  CHECK(s.ipc.max_connections_per_uid == 1024);
  CHECK(s.ipc.max_in_flight_per_connection == 1024);
  CHECK(s.ipc.max_frame_bytes == proto::kMaxFrameBytes);
  CHECK(s.workers == 0);
  CHECK(s.call_log.path.empty());
  CHECK(s.call_log.max_bytes == 64u * 1024 * 1024);
  CHECK(s.call_log.keep == 3);
  CHECK(s.policy.allow.empty());
  CHECK(s.policy.deny.empty());
  CHECK(s.policy.read_only.empty());
  CHECK(s.tls.ca_file.empty());
  CHECK(s.tls.ca_dir.empty());
  CHECK(s.results.max_text_bytes == 0);
  CHECK(s.results.stdio_max_text_bytes == 100000);
  CHECK(s.results.spill_max_mb == 256);
  CHECK(s.pinning.mode == PinningMode::kBlock);
  CHECK(s.pinning.exempt.empty());
}

TEST_CASE("every key is read", "[settings]") {
  Settings s = Parsed(R"({
    // comments are allowed
    "limits": {"max_response_bytes": 2048, "max_json_depth": 64, "call_timeout_s": 30,
               "listing_timeout_s": 20, "max_tools_per_server": 500, "max_list_pages": 10,
               "max_sse_event_bytes": 4096, "max_connections_per_server": 8},
    "ipc": {"allowed_uids": [1000, 1001], "max_connections_per_uid": 8,
            "max_in_flight_per_connection": 16, "max_frame_bytes": 65536},
    "workers": 4,
    /* block comment */
    "call_log": {"path": "/var/log/mcpgw/calls.jsonl", "max_bytes": 1048576, "keep": 5},
    "policy": {"allow": ["github/*", "docs"], "deny": ["*/delete_*"], "read_only": ["prod-*"]},
    "tls": {"ca_file": "/etc/mcpgw/corp-ca.pem", "ca_dir": "/etc/mcpgw/ca.d"},
    "results": {"max_text_bytes": 50000, "stdio_max_text_bytes": 0, "spill_max_mb": 16}
  })");
  CHECK(s.results.max_text_bytes == 50000);
  CHECK(s.results.stdio_max_text_bytes == 0);
  CHECK(s.results.spill_max_mb == 16);
  CHECK(s.limits.max_response_bytes == 2048);
  CHECK(s.limits.max_json_depth == 64);
  CHECK(s.limits.call_timeout_s == 30);
  CHECK(s.limits.listing_timeout_s == 20);
  CHECK(s.limits.max_tools_per_server == 500);
  CHECK(s.limits.max_list_pages == 10);
  CHECK(s.limits.max_sse_event_bytes == 4096);
  CHECK(s.limits.max_connections_per_server == 8);
  CHECK(s.ipc.allowed_uids == std::vector<uid_t>{1000, 1001});
  CHECK(s.ipc.max_connections_per_uid == 8);
  CHECK(s.ipc.max_in_flight_per_connection == 16);
  CHECK(s.ipc.max_frame_bytes == 65536);
  CHECK(s.workers == 4);
  CHECK(s.call_log.path == "/var/log/mcpgw/calls.jsonl");
  CHECK(s.call_log.max_bytes == 1048576);
  CHECK(s.call_log.keep == 5);
  CHECK(s.policy.allow == std::vector<std::string>{"github/*", "docs"});
  CHECK(s.policy.deny == std::vector<std::string>{"*/delete_*"});
  CHECK(s.policy.read_only == std::vector<std::string>{"prod-*"});
  CHECK(s.tls.ca_file == "/etc/mcpgw/corp-ca.pem");
  CHECK(s.tls.ca_dir == "/etc/mcpgw/ca.d");
}

TEST_CASE("every key of the table is read into its own field, and only there", "[settings]") {
  const Settings defaults;
  for (const SettingKey& key : SettingKeys()) {
    CAPTURE(key.path);
    const SettingValue value = testing::OtherThanDefault(key);
    // The field holds what the key's type reads.
    REQUIRE(key.field.get(defaults).index() == value.index());
    REQUIRE(key.field.get(defaults) != value);
    const Settings s = Parsed(testing::FileWith(key, testing::AsJson(key, value)));
    CHECK(key.field.get(s) == value);
    for (const SettingKey& other : SettingKeys()) {
      if (&other == &key) continue;
      CAPTURE(other.path);
      CHECK(other.field.get(s) == other.field.get(defaults));
    }
  }
}

TEST_CASE("every whole number is taken at both ends of its range and refused past them",
          "[settings]") {
  for (const SettingKey& key : SettingKeys()) {
    if (key.rule.type != SettingType::kWhole) continue;
    CAPTURE(key.path);
    const uint64_t min = key.rule.min, max = key.rule.max;
    const std::string refused = std::string(key.path) + ": expected a whole number from " +
                                std::to_string(min) + " to " + std::to_string(max);
    CHECK(key.field.get(Parsed(testing::FileWith(key, std::to_string(min)))) == SettingValue(min));
    CHECK(key.field.get(Parsed(testing::FileWith(key, std::to_string(max)))) == SettingValue(max));
    CHECK_THAT(Error(testing::FileWith(key, std::to_string(max + 1))), Catch::EndsWith(refused));
    if (min > 0) {
      CHECK_THAT(Error(testing::FileWith(key, std::to_string(min - 1))), Catch::EndsWith(refused));
    }
  }
}

TEST_CASE("the table names each key once, at most one object deep", "[settings]") {
  std::set<std::string_view> paths;
  for (const SettingKey& key : SettingKeys()) {
    CAPTURE(key.path);
    CHECK(paths.insert(key.path).second);
    CHECK(key.Name().find('.') == std::string_view::npos);
    CHECK(FindSettingKey(key.Parent(), key.Name()) == &key);
    // An object of keys is not a key itself.
    if (!key.Parent().empty()) CHECK(FindSettingKey("", key.Parent()) == nullptr);
  }
  CHECK(IsSettingsObject("limits"));
  CHECK_FALSE(IsSettingsObject("workers"));
  CHECK_FALSE(IsSettingsObject(""));
}

TEST_CASE("a JSON syntax error names the file, line and column", "[settings]") {
  CHECK(Error("{\n  \"workers\": 2,\n  \"ipc\": {,}\n}") ==
        "/home/u/.config/mcpgw/settings.json:3:11: invalid JSON: Missing a name for object "
        "member.");
  CHECK_THAT(Error("{} x"),
             Catch::StartsWith("/home/u/.config/mcpgw/settings.json:1:4: invalid JSON"));
  CHECK_THAT(Error(""), Catch::Contains("invalid JSON"));
}

TEST_CASE("unknown keys are errors naming the key and where it is", "[settings]") {
  // A misspelt "deny" must not silently allow everything.
  CHECK(Error("{\n  \"policy\": {\n    \"denny\": [\"*\"]\n  }\n}") ==
        "/home/u/.config/mcpgw/settings.json:3:14: policy.denny: unknown key \"denny\" "
        "(known keys: allow, deny, read_only)");
  CHECK_THAT(Error(R"({"limit": {}})"), Catch::Contains(": limit: unknown key \"limit\""));
  CHECK_THAT(Error(R"({"ipc": {"allowed_uid": []}})"),
             Catch::Contains("ipc.allowed_uid: unknown key"));
  CHECK_THAT(Error(R"({"call_log": {"file": ""}})"), Catch::Contains("call_log.file: unknown key"));
  CHECK_THAT(Error(R"({"limits": {"timeout": 1}})"),
             Catch::Contains("limits.timeout: unknown key"));
}

TEST_CASE("an unknown key's error lists the keys of its object, always in the same order",
          "[settings]") {
  auto known = [](const std::string& text) {
    const std::string error = Error(text);
    const size_t at = error.find("(known keys: ");
    return at == std::string::npos ? error : error.substr(at);
  };
  CHECK(known(R"({"x": 1})") ==
        "(known keys: limits, ipc, workers, call_log, policy, tls, results, pinning, "
        "pinning_exempt, local_servers, local_servers_confine, search, metrics)");
  CHECK(known(R"({"limits": {"x": 1}})") ==
        "(known keys: max_response_bytes, max_json_depth, call_timeout_s, listing_timeout_s, "
        "max_tools_per_server, max_list_pages, max_sse_event_bytes, max_connections_per_server)");
  CHECK(known(R"({"ipc": {"x": 1}})") ==
        "(known keys: allowed_uids, max_connections_per_uid, max_in_flight_per_connection, "
        "max_frame_bytes)");
  CHECK(known(R"({"call_log": {"x": 1}})") == "(known keys: path, max_bytes, keep)");
  CHECK(known(R"({"policy": {"x": 1}})") == "(known keys: allow, deny, read_only)");
  CHECK(known(R"({"tls": {"x": 1}})") == "(known keys: ca_file, ca_dir)");
  CHECK(known(R"({"results": {"x": 1}})") ==
        "(known keys: max_text_bytes, stdio_max_text_bytes, spill_max_mb)");
  CHECK(known(R"({"metrics": {"x": 1}})") == "(known keys: listen)");
  // A key of an object is not a key of the top level, spelt with its dot or not.
  CHECK(Error(R"({"limits.max_json_depth": 5})") ==
        "/home/u/.config/mcpgw/settings.json:1:27: limits.max_json_depth: unknown key "
        "\"limits.max_json_depth\" (known keys: limits, ipc, workers, call_log, policy, tls, "
        "results, pinning, pinning_exempt, local_servers, local_servers_confine, search, metrics)");
  CHECK_THAT(Error(R"({"max_json_depth": 5})"), Catch::Contains("unknown key \"max_json_depth\""));
  // Keys of the top level are not objects, and objects are not keys of the top level.
  CHECK(Error(R"({"workers": {"x": 1}})") ==
        "/home/u/.config/mcpgw/settings.json:1:13: workers: expected a whole number from 0 to "
        "1024");
  CHECK(Error(R"({"pinning": {"mode": "off"}})") ==
        "/home/u/.config/mcpgw/settings.json:1:13: pinning: expected \"block\", \"strict\" or "
        "\"off\"");
  CHECK(Error(R"({"limits": 5})") ==
        "/home/u/.config/mcpgw/settings.json:1:12: limits: expected an object");
}

TEST_CASE("a key given twice takes its last value, an object given twice adds up", "[settings]") {
  const Settings s = Parsed(R"({"limits": {"max_json_depth": 5, "max_json_depth": 6},
                                "limits": {"max_list_pages": 7},
                                "policy": {"deny": ["a"]}, "policy": {"deny": ["b", "c"]}})");
  CHECK(s.limits.max_json_depth == 6);
  CHECK(s.limits.max_list_pages == 7);
  CHECK(s.policy.deny == std::vector<std::string>{"b", "c"});
  // The first error in the file is the one reported.
  CHECK_THAT(Error(R"({"workers": 2000, "limits": {"x": 1}})"), Catch::Contains(": workers: "));
  CHECK_THAT(Error(R"({"pinning_exempt": ["a/b", ""]})"),
             Catch::Contains("pinning_exempt[1]: empty pattern"));
}

TEST_CASE("wrong types and ranges name the key path and position", "[settings]") {
  CHECK(Error("{\"workers\": \"4\"}") ==
        "/home/u/.config/mcpgw/settings.json:1:13: workers: expected a whole number from 0 to "
        "1024");
  CHECK(Error("{\n \"policy\": {\"deny\": [\"a\",\n   \"\"]}}") ==
        "/home/u/.config/mcpgw/settings.json:3:4: policy.deny[1]: empty pattern");
  CHECK_THAT(Error("{\"workers\": true}"), Catch::Contains("settings.json:1:13: workers:"));
  CHECK_THAT(Error("{\"workers\":\n  -3}"), Catch::Contains("settings.json:2:3: workers:"));
  CHECK_THAT(Error("{\"limits\": {\"call_timeout_s\": {}}}"),
             Catch::Contains("settings.json:1:31: limits.call_timeout_s:"));
  CHECK_THAT(Error(R"({"policy": {"allow": "github"}})"),
             Catch::Contains("policy.allow: expected an array of patterns"));
  CHECK_THAT(Error(R"({"policy": {"read_only": [1]}})"),
             Catch::Contains("policy.read_only[0]: expected a string"));
  CHECK_THAT(Error(R"({"policy": {"deny": ["github/"]}})"),
             Catch::Contains("policy.deny[0]: pattern \"github/\" has an empty tool part"));
  CHECK_THAT(Error(R"({"limits": {"max_json_depth": 1.5}})"),
             Catch::Contains("limits.max_json_depth: expected a whole number"));
  CHECK_THAT(Error(R"({"limits": {"call_timeout_s": 0}})"),
             Catch::Contains("limits.call_timeout_s"));
  CHECK_THAT(Error(R"({"limits": {"max_response_bytes": -1}})"),
             Catch::Contains("limits.max_response_bytes"));
  CHECK_THAT(Error(R"({"ipc": {"max_frame_bytes": 1073741824}})"),
             Catch::Contains("ipc.max_frame_bytes: expected a whole number from 1024 to 33554432"));
  CHECK_THAT(Error(R"({"ipc": {"allowed_uids": [-1]}})"), Catch::Contains("ipc.allowed_uids[0]"));
  CHECK_THAT(Error(R"({"call_log": {"path": "calls.jsonl"}})"),
             Catch::Contains("call_log.path: expected an absolute path"));
  CHECK_THAT(Error(R"({"call_log": {"keep": 101}})"), Catch::Contains("call_log.keep"));
  CHECK_THAT(Error(R"({"call_log": null})"), Catch::Contains("call_log: expected an object"));
  CHECK_THAT(Error("[]"), Catch::Contains("the settings must be a JSON object"));
}

TEST_CASE("results keys take whole numbers in range", "[settings]") {
  CHECK_THAT(Error(R"({"results": {"max_text_bytes": -1}})"),
             Catch::Contains("results.max_text_bytes"));
  CHECK_THAT(Error(R"({"results": {"stdio_max_text_bytes": 1.5}})"),
             Catch::Contains("results.stdio_max_text_bytes"));
  CHECK_THAT(Error(R"({"results": {"spill_max_mb": 2000000}})"),
             Catch::Contains("results.spill_max_mb"));
  CHECK_THAT(Error(R"({"results": {"max_bytes": 10}})"),
             Catch::Contains("max_text_bytes, stdio_max_text_bytes, spill_max_mb"));
  CHECK_THAT(Error(R"({"results": 5})"), Catch::Contains("results: expected an object"));
}

TEST_CASE("pinning takes block, strict or off, and namespace globs to exempt", "[settings]") {
  CHECK(Parsed(R"({"pinning": "strict"})").pinning.mode == PinningMode::kStrict);
  CHECK(Parsed(R"({"pinning": "off"})").pinning.mode == PinningMode::kOff);
  const Settings s = Parsed(R"({"pinning": "block", "pinning_exempt": ["dev-*", "local"]})");
  CHECK(s.pinning.mode == PinningMode::kBlock);
  CHECK(s.pinning.exempt == std::vector<std::string>{"dev-*", "local"});
  CHECK(Error(R"({"pinning": "sometimes"})") ==
        "/home/u/.config/mcpgw/settings.json:1:13: pinning: unknown value \"sometimes\"; "
        "expected \"block\", \"strict\" or \"off\"");
  CHECK_THAT(Error(R"({"pinning": true})"),
             Catch::Contains("pinning: expected \"block\", \"strict\" or \"off\""));
  CHECK_THAT(Error(R"({"pinning_exempt": ["web/search"]})"),
             Catch::Contains("pinning_exempt[0]: expected a namespace pattern"));
  CHECK_THAT(Error(R"({"pinning_exempt": "dev-*"})"), Catch::Contains("pinning_exempt"));
}

TEST_CASE("metrics.listen takes a loopback address and port, nothing else", "[settings]") {
  CHECK(Parsed("{}").metrics.listen.empty());
  CHECK(Parsed(R"({"metrics": {"listen": "127.0.0.1:9464"}})").metrics.listen == "127.0.0.1:9464");
  CHECK(Parsed(R"({"metrics": {"listen": "[::1]:9464"}})").metrics.listen == "[::1]:9464");
  CHECK(Parsed(R"({"metrics": {"listen": "127.3.2.1:0"}})").metrics.listen == "127.3.2.1:0");
  CHECK(Parsed(R"({"metrics": {"listen": ""}})").metrics.listen.empty());
  auto v6 = ParseLoopbackListen("[::1]:65535");
  REQUIRE(v6.ok());
  CHECK(v6->ipv6);
  CHECK(v6->host == "::1");
  CHECK(v6->port == 65535);
  for (const char* wide :
       {"0.0.0.0:9464", "192.168.1.2:9464", "[::]:9464", "[2001:db8::1]:80", "10.0.0.1:1"}) {
    CAPTURE(wide);
    CHECK_THAT(
        Error(std::string(R"({"metrics": {"listen": ")") + wide + "\"}}"),
        Catch::Contains("metrics.listen: \"" + std::string(wide) + "\": not a loopback address"));
  }
  CHECK_THAT(Error(R"({"metrics": {"listen": "localhost:9464"}})"),
             Catch::Contains("not an IP address (write 127.0.0.1, not a host name)"));
  CHECK_THAT(Error(R"({"metrics": {"listen": "127.0.0.1"}})"), Catch::Contains("no port"));
  CHECK_THAT(Error(R"({"metrics": {"listen": "127.0.0.1:70000"}})"),
             Catch::Contains("a port beyond 65535"));
  CHECK_THAT(Error(R"({"metrics": {"listen": "127.0.0.1:9x"}})"),
             Catch::Contains("no port number"));
  CHECK_THAT(Error(R"({"metrics": {"listen": 9464}})"),
             Catch::Contains("metrics.listen: expected a string"));
  CHECK_THAT(Error(R"({"metrics": {"port": 9464}})"),
             Catch::Contains("metrics.port: unknown key \"port\" (known keys: listen)"));
  CHECK_THAT(Error(R"({"metric": {}})"), Catch::Contains("unknown key \"metric\""));
}

TEST_CASE("tls keys take absolute paths and nothing else", "[settings]") {
  CHECK(Error("{\"tls\": {\"ca_file\": \"ca.pem\"}}") ==
        "/home/u/.config/mcpgw/settings.json:1:21: tls.ca_file: expected an absolute path (or "
        "\"\" for none)");
  CHECK_THAT(Error(R"({"tls": {"ca_dir": 1}})"), Catch::Contains("tls.ca_dir: expected a string"));
  CHECK(Error(R"({"tls": {"cafile": "/x"}})") ==
        "/home/u/.config/mcpgw/settings.json:1:20: tls.cafile: unknown key \"cafile\" (known "
        "keys: ca_file, ca_dir)");
  CHECK_THAT(Error(R"({"tls": []})"), Catch::Contains("tls: expected an object"));
  CHECK(Parsed(R"({"tls": {"ca_file": ""}})").tls.ca_file.empty());
}

TEST_CASE("the default path follows XDG_CONFIG_HOME", "[settings]") {
  std::map<std::string, std::string> env;
  auto get = [&](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  CHECK(DefaultSettingsPath(get, "/home/u") == "/home/u/.config/mcpgw/settings.json");
  env["XDG_CONFIG_HOME"] = "/cfg";
  CHECK(DefaultSettingsPath(get, "/home/u") == "/cfg/mcpgw/settings.json");
  env["XDG_CONFIG_HOME"] = "relative";  // the XDG spec says to ignore a relative value
  CHECK(DefaultSettingsPath(get, "/home/u") == "/home/u/.config/mcpgw/settings.json");
}

TEST_CASE("a missing file gives the defaults, a present one is parsed", "[settings]") {
  char dir_template[] = "/tmp/mcpgw-settings-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  std::string dir = dir_template;
  auto missing = LoadSettingsFile(dir + "/settings.json");
  REQUIRE(missing.ok());
  CHECK(missing->missing);
  CHECK(missing->settings.workers == 0);

  std::ofstream(dir + "/settings.json") << "{\"workers\": 3}";
  auto present = LoadSettingsFile(dir + "/settings.json");
  REQUIRE(present.ok());
  CHECK_FALSE(present->missing);
  CHECK(present->settings.workers == 3);

  std::ofstream(dir + "/settings.json") << "{\"workers\": }";
  auto broken = LoadSettingsFile(dir + "/settings.json");
  CHECK_FALSE(broken.ok());
  CHECK_THAT(broken.message(), Catch::StartsWith(dir + "/settings.json:1:13: invalid JSON"));

  std::remove((dir + "/settings.json").c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace mcpgw
