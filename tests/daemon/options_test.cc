// Settings → DaemonOptions: the one function a start and every reload use. Each setting
// reaches the part of the runtime it bounds, the command line wins where it may, and a
// file that cannot be used says why and which file.
#include "daemon/options.h"

#include <chrono>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "config/settings_table.h"
#include "config/settings_test_values.h"
#include "daemon/guard/policy.h"
#include "daemon/ipc/ipc_test_fixture.h"

namespace mcpgw {
namespace {

using testing::TempDir;

Settings Parsed(const std::string& text) {
  base::Result<Settings> r = ParseSettings(text, "settings.json");
  INFO(r.message());
  REQUIRE(r.ok());
  return *r;
}

GetEnv NoEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    if (name == "HOME") return "/home/u";
    return std::nullopt;
  };
}

CommandLine Files(const TempDir& dir, bool named = false) {
  CommandLine cl;
  cl.config_path = dir.path() + "/mcp.json";
  cl.settings_path = dir.path() + "/settings.json";
  cl.settings_named = named;
  cl.socket_path = dir.path() + "/mcpgw.sock";
  return cl;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST_CASE("options: every limit reaches the sessions and the socket", "[options]") {
  const Settings s = Parsed(R"({
    "limits": {"max_response_bytes": 2048, "max_json_depth": 9, "call_timeout_s": 400,
               "listing_timeout_s": 7, "max_tools_per_server": 5, "max_list_pages": 3,
               "max_sse_event_bytes": 4096, "max_connections_per_server": 8},
    "ipc": {"allowed_uids": [1001], "max_connections_per_uid": 2,
            "max_in_flight_per_connection": 8, "max_frame_bytes": 65536},
    "call_log": {"path": "/var/log/calls.jsonl", "max_bytes": 8192, "keep": 1}})");
  const DaemonOptions o = MakeOptions(CommandLine{}, s, 4);
  const mcp::SessionLimits& limits = o.gateway.limits;
  CHECK(limits.max_response_bytes == 2048);
  CHECK(limits.max_json_depth == 9);
  // Past the 330 s the stdio bridge used to allow itself: the daemon's deadline is the only one.
  CHECK(limits.call_deadline == std::chrono::seconds(400));
  CHECK(limits.first_attempt_deadline == std::chrono::seconds(7));
  CHECK(limits.request_deadline == std::chrono::seconds(7));
  CHECK(limits.max_tools == 5);
  CHECK(limits.max_list_pages == 3);
  CHECK(limits.max_sse_event_bytes == 4096);
  CHECK(o.settings.limits.max_connections_per_server == 8);
  const IpcServerOptions& ipc = o.settings.ipc;
  CHECK(ipc.allowed_uids == std::vector<uid_t>{1001});
  CHECK(ipc.max_connections_per_uid == 2);
  CHECK(ipc.max_in_flight_per_connection == 8);
  CHECK(ipc.max_frame_bytes == 65536);
  CHECK(o.settings.call_log.path == "/var/log/calls.jsonl");
  CHECK(o.settings.call_log.max_bytes == 8192);
  CHECK(o.settings.call_log.keep == 1);
}

TEST_CASE("options: the defaults are the documented ones", "[options]") {
  const DaemonOptions o = MakeOptions(CommandLine{}, Parsed("{}"), 4);
  CHECK(o.gateway.limits.call_deadline == std::chrono::minutes(5));
  CHECK(o.gateway.limits.request_deadline == std::chrono::minutes(2));
  CHECK(o.settings.workers == 4);
  CHECK(o.settings.call_log.path.empty());
  REQUIRE(o.policy);
  CHECK(o.policy->AllowsAll());
}

TEST_CASE("options: --workers wins over the settings, which win over the cores", "[options]") {
  CommandLine cl;
  CHECK(MakeOptions(cl, Parsed(R"({"workers": 3})"), 8).settings.workers == 3);
  CHECK(MakeOptions(cl, Parsed("{}"), 8).settings.workers == 8);
  CHECK(MakeOptions(cl, Parsed("{}"), 0).settings.workers == 1);  // the core count can be unknown
  cl.workers = 2;
  CHECK(MakeOptions(cl, Parsed(R"({"workers": 3})"), 8).settings.workers == 2);
}

TEST_CASE("options: the policy comes from the settings", "[options]") {
  const DaemonOptions o =
      MakeOptions(CommandLine{}, Parsed(R"({"policy": {"deny": ["internal"]}})"), 1);
  REQUIRE(o.policy);
  CHECK_FALSE(o.policy->NamespaceVisible("internal"));
  CHECK(o.policy->NamespaceVisible("github"));
}

TEST_CASE("options: a missing settings file means the defaults, unless --settings named it",
          "[options]") {
  TempDir dir;
  OptionsResult absent = LoadOptions(Files(dir), NoEnv());
  CHECK(absent.ok());
  CHECK(absent.file_missing);
  CHECK(absent.options.gateway.limits.call_deadline == std::chrono::minutes(5));
  CHECK(absent.options.gateway.socket_path == dir.path() + "/mcpgw.sock");
  CHECK(absent.options.token_dir == "/home/u/.local/state/mcpgw/oauth");
  REQUIRE(absent.options.trust);

  OptionsResult named = LoadOptions(Files(dir, /*named=*/true), NoEnv());
  CHECK_FALSE(named.ok());
  CHECK(named.file_missing);
  CHECK(named.error().message() ==
        dir.path() + "/settings.json: no such file (named by --settings)");
}

TEST_CASE("options: a broken settings file gives no options and names the file", "[options]") {
  TempDir dir;
  Write(dir.path() + "/settings.json", "{\n  \"limits\": {\"call_timeout_s\": 0}}");
  OptionsResult r = LoadOptions(Files(dir), NoEnv());
  CHECK_FALSE(r.ok());
  CHECK(r.trust_error.ok());
  CHECK(r.settings_error.message().rfind(dir.path() + "/settings.json:2:", 0) == 0);
  CHECK(r.settings_error.message().find("limits.call_timeout_s") != std::string::npos);
}

TEST_CASE("options: an unreadable CA file fails the trust alone", "[options]") {
  TempDir dir;
  Write(dir.path() + "/settings.json",
        R"({"limits": {"call_timeout_s": 600}, "tls": {"ca_file": "/nonexistent/ca.pem"}})");
  OptionsResult r = LoadOptions(Files(dir), NoEnv());
  CHECK(r.settings_error.ok());
  CHECK_FALSE(r.options.trust);
  CHECK(r.error().message() ==
        dir.path() + "/settings.json: tls.ca_file: cannot read /nonexistent/ca.pem: " +
            "No such file or directory");
  // The rest of the file still counts: a reload applies its policy and reports the trust.
  CHECK(r.options.gateway.limits.call_deadline == std::chrono::seconds(600));
}

TEST_CASE("options: a reload names the settings only a restart applies", "[options]") {
  const CommandLine cl;
  auto options = [&](const std::string& text) { return MakeOptions(cl, Parsed(text), 4); };
  const DaemonOptions running = options(R"({"policy": {"deny": ["a"]}})");
  CHECK(RestartOnlyChanges(running, running).empty());
  CHECK(RestartOnlyChanges(running, options(R"({"policy": {"deny": ["b"]},
                                                 "tls": {"ca_dir": "/etc/ca"}})"))
            .empty());
  CHECK(RestartOnlyChanges(running, options(R"({"limits": {"call_timeout_s": 600}})")) ==
        std::vector<std::string_view>{"limits"});
  CHECK(RestartOnlyChanges(running, options(R"({"workers": 2, "ipc": {"allowed_uids": [7]},
                                                 "call_log": {"path": "/tmp/c.jsonl"}})")) ==
        std::vector<std::string_view>{"ipc", "workers", "call_log"});
  // Every section only a restart applies is named, in one fixed order.
  CHECK(RestartOnlyChanges(running, options(R"({"metrics": {"listen": "127.0.0.1:9464"},
                                                 "call_log": {"keep": 1}, "workers": 2,
                                                 "ipc": {"max_frame_bytes": 4096},
                                                 "limits": {"max_list_pages": 2}})")) ==
        std::vector<std::string_view>{"limits", "ipc", "workers", "call_log", "metrics"});
  // Whatever a reload applies is never named.
  CHECK(RestartOnlyChanges(running, options(R"({"pinning": "off", "pinning_exempt": ["dev"],
                                                 "results": {"spill_max_mb": 1},
                                                 "tls": {"ca_file": "/etc/ca.pem"},
                                                 "policy": {"allow": ["x"], "read_only": ["y"]}})"))
            .empty());
  // The file's `workers` spelling out the cores in use changes nothing.
  CHECK(RestartOnlyChanges(running, options(R"({"workers": 4})")).empty());
  // Bounds on results apply at a reload.
  const DaemonOptions bounded = options(R"({"results": {"max_text_bytes": 9000}})");
  CHECK(bounded.settings.results.max_text_bytes == 9000);
  CHECK(RestartOnlyChanges(running, bounded).empty());
}

TEST_CASE("options: a reload names a key's object when, and only when, a restart applies the key",
          "[options]") {
  const DaemonOptions running = MakeOptions(CommandLine{}, Settings{}, 4);
  for (const SettingKey& key : SettingKeys()) {
    CAPTURE(key.path);
    Settings changed;
    key.field.set(changed, testing::OtherThanDefault(key));
    const std::vector<std::string_view> named =
        RestartOnlyChanges(running, MakeOptions(CommandLine{}, changed, 4));
    if (key.applies == SettingApplies::kAtRestart) {
      CHECK(named == std::vector<std::string_view>{key.TopLevel()});
    } else {
      CHECK(named.empty());
    }
  }
}

TEST_CASE("options: whole results live under XDG_RUNTIME_DIR, else beside the socket",
          "[options]") {
  auto env = [](std::optional<std::string> runtime) -> GetEnv {
    return [runtime](std::string_view name) -> std::optional<std::string> {
      if (name == "XDG_RUNTIME_DIR") return runtime;
      return std::nullopt;
    };
  };
  CHECK(ResultsDir(env("/run/user/1000"), "/tmp/s/mcpgw.sock") == "/run/user/1000/mcpgw/results");
  CHECK(ResultsDir(env(std::nullopt), "/tmp/s/mcpgw.sock") == "/tmp/s/results");
  CHECK(ResultsDir(env(""), "/tmp/s/mcpgw.sock") == "/tmp/s/results");
  CHECK(ResultsDir(env("relative/dir"), "/tmp/s/mcpgw.sock") == "/tmp/s/results");
  CHECK(ResultsDir(env(std::nullopt), "/mcpgw.sock") == "/results");
}

TEST_CASE("options: with --workers, the file's workers cannot change the count", "[options]") {
  CommandLine cl;
  cl.workers = 2;
  const DaemonOptions running = MakeOptions(cl, Parsed("{}"), 4);
  CHECK(RestartOnlyChanges(running, MakeOptions(cl, Parsed(R"({"workers": 8})"), 4)).empty());
}

}  // namespace
}  // namespace mcpgw
