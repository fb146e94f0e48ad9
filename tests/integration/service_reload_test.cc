// Reloading mcpgwd as a service is reloaded: SIGHUP, or mcp.json (or the
// settings file) saved on disk. Against real upstreams (tests/fixtures/sdk-server.mjs, one process
// per server so each one's log is its own): added servers connect, removed
// ones get their session DELETEd, changed ones start a new session, and
// untouched ones keep theirs (no second initialize). A broken file keeps the
// old configuration and calls keep working.
#include <signal.h>

#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"

using namespace mcpgw::testing;

namespace {

std::string Config(const std::vector<std::pair<std::string, std::string>>& servers) {
  std::string out = R"({"mcpServers":{)";
  for (size_t i = 0; i < servers.size(); i++) {
    if (i) out += ",";
    out += "\"" + servers[i].first + "\":" + servers[i].second;
  }
  return out + "}}";
}

std::string Remote(const Upstream& u, const std::string& extra = "") {
  return R"({"url":")" + u.Url() + "\"" + extra + "}";
}

// Replaces the file the way editors save: write a sibling, rename over.
void SaveByRename(const std::string& path, const std::string& text) {
  WriteFile(path + ".tmp", text);
  std::rename((path + ".tmp").c_str(), path.c_str());
}

bool Echo(Daemon& d, const std::string& ns, const std::string& text) {
  auto r = d.Cli({"call", ns, "echo", R"({"text":")" + text + "\"}"});
  return r.code == 0 && r.out == text + "\n";
}

}  // namespace

TEST_CASE("reload: an added server connects, the untouched one keeps its session",
          "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a"), b(dir, "b");
  REQUIRE_UPSTREAM(a, b);
  Daemon d(dir, Config({{"a", Remote(a)}}));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  const std::string session_a = a.LastSession();
  REQUIRE(!session_a.empty());
  CHECK(!Row(d, "b").listed);

  WriteFile(d.config(), Config({{"a", Remote(a)}, {"b", Remote(b)}}));
  d.process().Signal(SIGHUP);
  REQUIRE(WaitReady(d, "b"));
  CHECK(Echo(d, "b", "from b"));
  CHECK(Echo(d, "a", "still a"));
  CHECK(a.InitializeCount() == 1);
  CHECK(a.SessionsOf("DELETE").empty());
  CHECK(a.SessionsOf("tools/call") == std::vector<std::string>{session_a});
  CHECK(ReloadError(d).empty());
}

TEST_CASE("reload: a removed server's session is DELETEd and it is no longer listed",
          "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a"), b(dir, "b");
  REQUIRE_UPSTREAM(a, b);
  Daemon d(dir, Config({{"a", Remote(a)}, {"b", Remote(b)}}));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  REQUIRE(WaitReady(d, "b"));
  const std::string session_b = b.LastSession();
  REQUIRE(!session_b.empty());

  WriteFile(d.config(), Config({{"a", Remote(a)}}));
  d.process().Signal(SIGHUP);
  REQUIRE(WaitFor([&] { return !Row(d, "b").listed; }));
  CHECK(WaitFor([&] { return b.SessionsOf("DELETE") == std::vector<std::string>{session_b}; },
                std::chrono::seconds(5)));
  auto call = d.Cli({"call", "b", "echo", R"({"text":"x"})"});
  CHECK(call.code == 3);  // invalid_request: unknown namespace
  CHECK(a.InitializeCount() == 1);
  CHECK(a.SessionsOf("DELETE").empty());
  CHECK(Echo(d, "a", "a survives"));
}

TEST_CASE("reload: a changed entry starts a new session and closes the old one",
          "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a"), b(dir, "b");
  REQUIRE_UPSTREAM(a, b);
  Daemon d(dir, Config({{"a", Remote(a, R"(,"headers":{"X-Tenant":"one"})")}, {"b", Remote(b)}}));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  REQUIRE(WaitReady(d, "b"));
  const std::string old_session = a.LastSession();
  REQUIRE(a.InitializeCount() == 1);

  WriteFile(d.config(),
            Config({{"a", Remote(a, R"(,"headers":{"X-Tenant":"two"})")}, {"b", Remote(b)}}));
  d.process().Signal(SIGHUP);
  REQUIRE(WaitFor([&] { return a.InitializeCount() == 2; }));
  REQUIRE(WaitReady(d, "a"));
  const std::string new_session = a.LastSession();
  CHECK(new_session != old_session);
  CHECK(WaitFor([&] { return a.SessionsOf("DELETE") == std::vector<std::string>{old_session}; },
                std::chrono::seconds(5)));
  CHECK(Echo(d, "a", "new session"));
  CHECK(a.SessionsOf("tools/call") == std::vector<std::string>{new_session});
  CHECK(b.InitializeCount() == 1);
}

TEST_CASE("reload: a broken file keeps the old configuration and calls keep working",
          "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a");
  REQUIRE_UPSTREAM(a);
  const std::string good = Config({{"a", Remote(a)}});
  Daemon d(dir, good);
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));

  WriteFile(d.config(), R"({"mcpServers": {"a": )");
  d.process().Signal(SIGHUP);
  REQUIRE(WaitFor([&] { return !ReloadError(d).empty(); }));
  CHECK(ReloadError(d).find(d.config()) != std::string::npos);  // names the file
  CHECK(Row(d, "a").status == "ready");
  CHECK(Echo(d, "a", "still served"));
  CHECK(a.InitializeCount() == 1);
  CHECK(d.process().Alive());

  // Fixing the file clears the error and still keeps the session.
  WriteFile(d.config(), good);
  d.process().Signal(SIGHUP);
  CHECK(WaitFor([&] { return ReloadError(d).empty(); }));
  CHECK(a.InitializeCount() == 1);
}

TEST_CASE("reload: mcp.json saved on disk is picked up without SIGHUP, once per burst",
          "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a"), b(dir, "b");
  REQUIRE_UPSTREAM(a, b);
  Daemon d(dir, Config({{"a", Remote(a)}}));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));

  // An editor's save: a new file renamed over the old one.
  SaveByRename(d.config(), Config({{"a", Remote(a)}, {"b", Remote(b)}}));
  REQUIRE(WaitReady(d, "b", std::chrono::seconds(10)));
  CHECK(a.InitializeCount() == 1);
  const std::string session_b = b.LastSession();

  // A burst of in-place writes within the debounce window ends in one reload
  // of the last text: b is removed, c4 (refused: no network) appears.
  auto reloads = [&] {
    size_t n = 0;
    std::string log = d.Log();
    for (size_t at = log.find("reload (file)"); at != std::string::npos;
         at = log.find("reload (file)", at + 1)) {
      n++;
    }
    return n;
  };
  const size_t before = reloads();
  for (int i = 0; i < 5; i++) {
    const std::string c = "c" + std::to_string(i);
    WriteFile(d.config(), Config({{"a", Remote(a)}, {c, R"({"command":")" + c + "\"}"}}));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // The daemon serves the last text: the file does not change after it, and
  // a file event that changed neither file is no reload, so every reload the
  // burst causes is in the log by now.
  const auto namespaces = [&] {
    std::string out;
    auto doc = ParseJson(d.Cli({"status", "--json"}).out);
    if (!doc.IsObject() || !doc.HasMember("servers")) return out;
    for (const auto& s : doc["servers"].GetArray()) {
      out += (out.empty() ? "" : ",") + std::string(s["namespace"].GetString());
    }
    return out;
  };
  REQUIRE(WaitFor([&] { return namespaces() == "a,c4"; }));
  // Each write raises several change events; without the debounce this would
  // be ten reloads or so. One, or two if the test was descheduled mid-burst.
  CHECK(reloads() >= before + 1);
  CHECK(reloads() <= before + 2);
  CHECK(WaitFor([&] { return b.SessionsOf("DELETE") == std::vector<std::string>{session_b}; },
                std::chrono::seconds(5)));
  // a kept its session: a new one would have been initialized before it
  // served this call.
  CHECK(Echo(d, "a", "after the edits"));
  CHECK(a.InitializeCount() == 1);
}

TEST_CASE("reload: mcp.json deleted and made again is picked up, a file written beside it is not",
          "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a"), b(dir, "b");
  REQUIRE_UPSTREAM(a, b);
  Daemon d(dir, Config({{"a", Remote(a)}}));
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  auto reloads = [&] {
    size_t n = 0;
    const std::string log = d.Log();
    for (size_t at = log.find("reload ("); at != std::string::npos;
         at = log.find("reload (", at + 1)) {
      n++;
    }
    return n;
  };

  // A trace written beside mcp.json a thousand times changes nothing.
  {
    std::ofstream trace(dir / "trace.out");
    for (int i = 0; i < 1000; i++) trace << "event " << i << std::endl;
  }
  // Deleted and written again, as some tools save: b appears, a keeps its session.
  REQUIRE(std::remove(d.config().c_str()) == 0);
  WriteFile(d.config(), Config({{"a", Remote(a)}, {"b", Remote(b)}}));
  REQUIRE(WaitReady(d, "b", std::chrono::seconds(10)));
  CHECK(a.InitializeCount() == 1);
  // One reload, or two if the delete settled before the new file came.
  CHECK(reloads() >= 1);
  CHECK(reloads() <= 2);
  // The new file is the one watched now: writing it in place reloads too.
  WriteFile(d.config(), Config({{"a", Remote(a)}}));
  CHECK(WaitFor([&] { return !Row(d, "b").listed; }, std::chrono::seconds(10)));
  CHECK(Echo(d, "a", "after the saves"));
}

TEST_CASE("reload: settings.json saved on disk is picked up without SIGHUP", "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a");
  REQUIRE_UPSTREAM(a);
  const std::string settings = dir / "settings.json";
  WriteFile(settings, "{}");
  Daemon d(dir, Config({{"a", Remote(a)}}), {"--settings", settings});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));
  REQUIRE(Echo(d, "a", "before"));

  // The policy of the saved file applies to the next call, the session stays.
  SaveByRename(settings, R"({"policy": {"deny": ["a/echo"]}})");
  auto denied = [&] {
    auto r = d.Cli({"call", "a", "echo", R"({"text":"x"})"});
    return r.code != 0 && r.err.find("deny rule \"a/echo\"") != std::string::npos;
  };
  CHECK(WaitFor(denied, std::chrono::seconds(10)));
  CHECK(d.Log().find("reload (file)") != std::string::npos);
  CHECK(a.InitializeCount() == 1);

  // A settings file that does not parse keeps the previous policy.
  SaveByRename(settings, R"({"policy": {"denny": []}})");
  auto refused = [&] { return d.Log().find("keeping the previous policy") != std::string::npos; };
  CHECK(WaitFor(refused, std::chrono::seconds(10)));
  CHECK(denied());
}

TEST_CASE("reload: settings only a restart applies are named in the log and left as they run",
          "[service][reload]") {
  TempDir dir;
  Upstream a(dir, "a");
  REQUIRE_UPSTREAM(a);
  const std::string settings = dir / "settings.json";
  WriteFile(settings, R"({"limits": {"call_timeout_s": 5}})");
  Daemon d(dir, Config({{"a", Remote(a)}}), {"--settings", settings});
  REQUIRE(d.WaitListening());
  REQUIRE(WaitReady(d, "a"));

  // One save changes a reloadable setting (the policy) and one a restart applies.
  SaveByRename(settings, R"({"limits": {"call_timeout_s": 1}, "policy": {"deny": ["a/echo"]}})");
  auto denied = [&] {
    auto r = d.Cli({"call", "a", "echo", R"({"text":"x"})"});
    return r.code != 0 && r.err.find("deny rule \"a/echo\"") != std::string::npos;
  };
  CHECK(WaitFor(denied, std::chrono::seconds(10)));
  CHECK(d.Log().find("reload (file): limits changed in " + settings +
                     "; it applies when mcpgwd restarts") != std::string::npos);
  // The running deadline is still the start's 5 s: a 2 s call completes.
  auto slow = d.Cli({"call", "a", "slow", R"({"ms":2000})"});
  CHECK(slow.code == 0);
  CHECK(slow.out == "slept 2000 ms\n");
}
