// Learned search words (BEHAVIOR.md §10) through a real mcpgwd and the
// official SDK's server: a host connection asks get_dynamic_tools with a
// query, then calls a tool; what is learned, what is not, a flood, the
// learned file across a restart, a damaged file, and queries kept out of
// the log, status and metrics.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "integration/service_harness.h"
#include "mcpgw.h"
#include "test_paths.h"

using namespace mcpgw::testing;

namespace {

std::string StateDir() { return std::string(std::getenv("XDG_STATE_HOME")) + "/mcpgw"; }
std::string LearnedFile() { return StateDir() + "/learned.json"; }

std::string Config(const Upstream& up) {
  return R"({"mcpServers":{"up":{"url":")" + up.Url() + R"("}}})";
}

// One host connection through libmcpgw.
class Host {
 public:
  explicit Host(const Daemon& d) : client_(mcpgw_open(d.socket().c_str()), &mcpgw_close) {}
  // The tools a query finds, "ns/name", best first.
  std::vector<std::string> Find(const std::string& query) {
    char* out = nullptr;
    std::vector<std::string> names;
    if (mcpgw_find_tools(client_.get(), nullptr, query.c_str(), 5, nullptr, &out) != MCPGW_OK) {
      mcpgw_free(out);
      return {"error"};
    }
    const rapidjson::Document doc = ParseJson(out);
    mcpgw_free(out);
    for (const auto& t : doc["tools"].GetArray()) {
      names.push_back(std::string(t["namespace"].GetString()) + "/" + t["name"].GetString());
    }
    return names;
  }
  mcpgw_status Call(const std::string& tool, const std::string& arguments) {
    char* out = nullptr;
    const mcpgw_status s = mcpgw_call_dynamic_tool(client_.get(), "up", tool.c_str(),
                                                   arguments.c_str(), nullptr, &out);
    mcpgw_free(out);
    return s;
  }

 private:
  std::unique_ptr<mcpgw_client, decltype(&mcpgw_close)> client_;
};

// A temporary folder and the SDK's server with its fixture tools. The
// daemons of one run of the test binary share its state folder: each case
// starts with nothing learned.
struct Rig {
  Rig() {
    std::filesystem::remove(LearnedFile());
    std::filesystem::remove(LearnedFile() + ".bad");
  }
  TempDir dir;
  Upstream up{dir, "up", 3};
};

bool Serving(Daemon& d) { return d.WaitListening() && WaitReady(d, "up"); }

std::string First(const std::vector<std::string>& names) {
  return names.empty() ? std::string() : names.front();
}

// The learned file once it holds `text` (it is written a few seconds after a change).
bool WaitLearned(const std::string& text) {
  return WaitFor([&] { return ReadFile(LearnedFile()).find(text) != std::string::npos; },
                 std::chrono::seconds(10));
}

TEST_CASE("learning: a query then a successful call teaches the tool, kept across a restart",
          "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  {
    Daemon d(rig.dir, Config(rig.up));
    REQUIRE(Serving(d));
    Host host(d);
    // No tool's text holds these words.
    REQUIRE(First(host.Find("parrot my sentence back verbatim")) != "up/echo");
    REQUIRE(host.Call("echo", R"({"text":"hi"})") == MCPGW_OK);
    // Learned at once: other wording sharing the user's words finds it.
    CHECK(First(host.Find("parrot this verbatim")) == "up/echo");
    REQUIRE(WaitLearned("parrot my sentence back verbatim"));
    struct stat st;
    REQUIRE(stat(LearnedFile().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    REQUIRE(stat(StateDir().c_str(), &st) == 0);
    CHECK((st.st_mode & 0077) == 0);
    // The query appears nowhere else: not in the log (at debug), status or metrics.
    CHECK(d.Log().find("parrot") == std::string::npos);
    CHECK(d.Cli({"status", "--json"}).out.find("parrot") == std::string::npos);
    CHECK(d.Cli({"metrics"}).out.find("parrot") == std::string::npos);
  }
  Daemon again(rig.dir, Config(rig.up));
  REQUIRE(Serving(again));
  Host host(again);
  CHECK(First(host.Find("parrot this verbatim")) == "up/echo");
}

TEST_CASE("learning: failed, refused and unrelated calls teach nothing", "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  Daemon d(rig.dir, Config(rig.up));
  REQUIRE(Serving(d));
  Host host(d), other(d);
  // A call whose result is an error (isError).
  host.Find("flamingo choreography");
  REQUIRE(host.Call("fail", "{}") != MCPGW_OK);
  // A call the gateway refuses (no such tool).
  host.Find("pelican choreography");
  REQUIRE(host.Call("nope", "{}") != MCPGW_OK);
  // A call on another connection than the query's.
  host.Find("heron choreography");
  REQUIRE(other.Call("add", R"({"a":1,"b":2})") == MCPGW_OK);
  // A call with no query before it on its connection.
  REQUIRE(other.Call("echo", R"({"text":"x"})") == MCPGW_OK);
  for (const char* q : {"flamingo", "pelican", "heron", "choreography"}) {
    CAPTURE(q);
    CHECK(host.Find(q).empty());
  }
}

TEST_CASE("learning: a flood of one query to an unrelated tool stays within its cap",
          "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  Daemon d(rig.dir, Config(rig.up));
  REQUIRE(Serving(d));
  const std::string add_query = "add two numbers and give me the sum";
  const std::string sleep_query = "sleep for some milliseconds";
  Host host(d);
  REQUIRE(First(host.Find(add_query)) == "up/add");
  REQUIRE(First(host.Find(sleep_query)) == "up/slow");
  // A confused or hostile host: the same query, then echo, 300 times; and
  // 40 different queries naming add's words, each then echo.
  for (int i = 0; i < 300; ++i) {
    host.Find(add_query);
    REQUIRE(host.Call("echo", R"({"text":"x"})") == MCPGW_OK);
  }
  for (int i = 0; i < 40; ++i) {
    host.Find("sum numbers variant" + std::to_string(i));
    REQUIRE(host.Call("echo", R"({"text":"x"})") == MCPGW_OK);
  }
  // The right tools keep their place: the flooded query's own, and others.
  CHECK(First(host.Find(add_query)) == "up/add");
  CHECK(First(host.Find("sum of two numbers")) == "up/add");
  CHECK(First(host.Find(sleep_query)) == "up/slow");
  CHECK(First(host.Find("return my text unchanged")) == "up/echo");
  // One query 300 times is one entry; echo keeps its 16 most recent.
  REQUIRE(WaitLearned("variant39"));
  const rapidjson::Document file = ParseJson(ReadFile(LearnedFile()));
  const auto& queries = file["servers"]["up"]["echo"]["queries"];
  CHECK(queries.Size() == 16);
  CHECK(std::string(queries[0]["text"].GetString()) == "sum numbers variant39");
  CHECK(ReadFile(LearnedFile()).find(add_query) == std::string::npos);  // pushed out by newer ones
}

TEST_CASE("learning: a damaged learned file is set aside and the daemon starts",
          "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  std::filesystem::create_directories(StateDir());
  WriteFile(LearnedFile(), R"({"version":1,"servers":{"up":{"echo":{"definition":"x","queri)");
  chmod(LearnedFile().c_str(), 0600);
  Daemon d(rig.dir, Config(rig.up));
  REQUIRE(Serving(d));
  CHECK(d.Log().find("is unusable") != std::string::npos);
  CHECK(d.Log().find("set aside as " + LearnedFile() + ".bad") != std::string::npos);
  CHECK(ReadFile(LearnedFile() + ".bad").find("queri") != std::string::npos);
  // It learns afresh, into a new file.
  Host host(d);
  host.Find("ostrich sprint");
  REQUIRE(host.Call("echo", R"({"text":"x"})") == MCPGW_OK);
  REQUIRE(WaitLearned("ostrich sprint"));
  CHECK(ParseJson(ReadFile(LearnedFile())).IsObject());
}

TEST_CASE("learning: search.learn false learns nothing and uses nothing learned",
          "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  const std::string settings = rig.dir / "settings.json";
  WriteFile(settings, R"({"search":{"learn":false}})");
  Daemon d(rig.dir, Config(rig.up), {"--settings", settings});
  REQUIRE(Serving(d));
  Host host(d);
  host.Find("toucan juggling");
  REQUIRE(host.Call("echo", R"({"text":"x"})") == MCPGW_OK);
  CHECK(host.Find("toucan juggling").empty());
  // On at a reload: learns from then on.
  WriteFile(settings, R"({"search":{"learn":true}})");
  kill(d.process().pid(), SIGHUP);
  REQUIRE(WaitFor([&] { return d.Log().find("reload (") != std::string::npos; }));
  REQUIRE(WaitFor(
      [&] {
        host.Find("toucan juggling");
        host.Call("echo", R"({"text":"x"})");
        return First(host.Find("toucan juggling")) == "up/echo";
      },
      std::chrono::seconds(10)));
}

}  // namespace

namespace {

TEST_CASE("learning: a query teaches at most three tools, each once", "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  Daemon d(rig.dir, Config(rig.up));
  REQUIRE(Serving(d));
  Host host(d);
  host.Find("zebra migration season");
  for (int i = 0; i < 5; ++i) REQUIRE(host.Call("echo", R"({"text":"x"})") == MCPGW_OK);
  REQUIRE(host.Call("add", R"({"a":1,"b":2})") == MCPGW_OK);
  REQUIRE(host.Call("image", "{}") == MCPGW_OK);
  REQUIRE(host.Call("slow", R"({"ms":1})") == MCPGW_OK);  // a fourth tool: not taught
  const std::vector<std::string> found = host.Find("zebra migration season");
  CHECK(found.size() == 3);
  CHECK(std::find(found.begin(), found.end(), "up/slow") == found.end());
  REQUIRE(WaitLearned("zebra"));
  const rapidjson::Document file = ParseJson(ReadFile(LearnedFile()));
  CHECK(file["servers"]["up"]["echo"]["queries"][0]["uses"].GetUint() == 1);  // five calls, one use
}

}  // namespace

namespace {

TEST_CASE("learning: what was learned just before a stop is written at the stop",
          "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  {
    Daemon d(rig.dir, Config(rig.up));
    REQUIRE(Serving(d));
    Host host(d);
    host.Find("capybara siesta");
    REQUIRE(host.Call("echo", R"({"text":"x"})") == MCPGW_OK);
    // Stopped at once (SIGTERM), well before the write a few seconds after
    // a change.
    d.process().Signal(SIGTERM);
    CHECK(d.process().Wait() == 0);
  }
  CHECK(ReadFile(LearnedFile()).find("capybara siesta") != std::string::npos);
}

}  // namespace

namespace {

TEST_CASE("learning: mcpgw tools --learned shows it and mcpgw forget forgets it",
          "[daemon][learn]") {
  Rig rig;
  REQUIRE_UPSTREAM(rig.up);
  Daemon d(rig.dir, Config(rig.up));
  REQUIRE(Serving(d));
  Host host(d);
  host.Find("walrus yodel");
  REQUIRE(host.Call("echo", R"({"text":"x"})") == MCPGW_OK);
  host.Find("narwhal gizmo");
  REQUIRE(host.Call("add", R"({"a":1,"b":2})") == MCPGW_OK);

  const CommandResult shown = d.Cli({"tools", "up", "echo", "--learned", "--json"});
  REQUIRE(shown.code == 0);
  const rapidjson::Document doc = ParseJson(shown.out);
  REQUIRE(doc["tools"].Size() == 1);
  CHECK(std::string(doc["tools"][0]["queries"][0]["text"].GetString()) == "walrus yodel");
  CHECK(doc["learning"].GetBool());

  const CommandResult forgot = d.Cli({"forget", "up", "echo"});
  CHECK(forgot.code == 0);
  CHECK(forgot.out.find("forgot 1") != std::string::npos);
  CHECK(host.Find("walrus yodel").empty());
  CHECK(First(host.Find("narwhal gizmo")) == "up/add");  // another tool keeps its own
  CHECK(WaitFor([&] { return ReadFile(LearnedFile()).find("walrus") == std::string::npos; },
                std::chrono::seconds(10)));
  CHECK(d.Cli({"forget"}).code == 0);
  CHECK(host.Find("narwhal gizmo").empty());
  CHECK(ParseJson(d.Cli({"tools", "--learned", "--json"}).out)["tools"].Empty());
}

}  // namespace

namespace {

TEST_CASE("learning: many hosts learning at once each teach their own tool", "[daemon][learn]") {
  TempDir dir;
  std::filesystem::remove(LearnedFile());
  Upstream up(dir, "up", 8);  // echo, add, slow, fail, image, tool_06 .. tool_08
  REQUIRE_UPSTREAM(up);
  Daemon d(dir, Config(up));
  REQUIRE(Serving(d));
  const std::vector<std::pair<std::string, std::string>> tools = {
      {"echo", R"({"text":"x"})"}, {"add", R"({"a":1,"b":2})"}, {"image", "{}"},
      {"tool_06", "{}"},           {"tool_07", "{}"},           {"tool_08", "{}"}};
  constexpr int kQueries = 12;
  std::vector<std::thread> hosts;
  std::atomic<int> failures{0};
  for (size_t t = 0; t < tools.size(); ++t) {
    hosts.emplace_back([&, t] {
      Host host(d);
      for (int i = 0; i < kQueries; ++i) {
        host.Find("host" + std::to_string(t) + " errand" + std::to_string(i));
        if (host.Call(tools[t].first, tools[t].second) != MCPGW_OK) failures++;
      }
    });
  }
  // Meanwhile another host searches and reads the status.
  Host watcher(d);
  for (int i = 0; i < 20; ++i) {
    watcher.Find("sum of two numbers");
    CHECK(d.Cli({"status", "--json"}).code == 0);
  }
  for (auto& h : hosts) h.join();
  CHECK(failures == 0);
  for (size_t t = 0; t < tools.size(); ++t) {
    CAPTURE(t);
    CHECK(First(watcher.Find("host" + std::to_string(t) + " errand")) == "up/" + tools[t].first);
  }
  REQUIRE(WaitFor(
      [&] {
        const rapidjson::Document file = ParseJson(ReadFile(LearnedFile()));
        if (!file.IsObject() || !file.HasMember("servers")) return false;
        const auto& up_tools = file["servers"]["up"];
        for (const auto& [name, args] : tools) {
          if (!up_tools.HasMember(name.c_str()) ||
              up_tools[name.c_str()]["queries"].Size() != kQueries) {
            return false;
          }
        }
        return true;
      },
      std::chrono::seconds(10)));
}

}  // namespace
