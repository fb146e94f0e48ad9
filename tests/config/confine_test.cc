// A local entry's `confine`, `limits` and `confine_required`, and the settings
// default `local_servers_confine`: what is read, what refuses the entry (and
// only it), and how the default is given to the entries that say nothing.
#include "config/confine.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "config/config.h"
#include "config/settings.h"
#include "config_test_util.h"

namespace mcpgw::config {
namespace {

// The paths the fake file system holds.
const std::set<std::string> kExisting = {
    "/",        "/usr/share",        "/srv/data",      "/srv/data/sub",
    "/tmp/out", "/home/tester/proj", "/home/tester/x", "/home/other/x"};

// A ParseEnv whose home is /home/tester and whose file system holds kExisting.
ParseEnv Env(std::map<std::string, std::string, std::less<>> vars = {}) {
  ParseEnv env = testing::FakeEnv(std::move(vars));
  env.path_exists = [](const std::string& path) { return kExisting.count(path) != 0; };
  return env;
}

// Parses a file of two entries: "s", a local entry with `keys` added to its
// command, and "other", a plain local entry, which must stay accepted.
Entry Local(std::string_view keys, const ParseEnv& env = Env()) {
  const std::string text = R"({"mcpServers": {"s": {"command": "npx", )" + std::string(keys) +
                           R"(}, "other": {"command": "node"}}})";
  ParseResult r = Parse(text, "mcp.json", env);
  INFO(keys);
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 2);
  CHECK(r->entries[1].accepted());
  CHECK(r->entries[1].refusal.empty());
  return r->entries[0];
}

// The reason `keys` refuse the entry for.
std::string Refusal(std::string_view keys) {
  Entry e = Local(keys);
  INFO(keys);
  CHECK_FALSE(e.accepted());
  CHECK_FALSE(e.refusal.empty());
  return e.refusal;
}

bool Has(const std::vector<Secret>& secrets, const std::string& value) {
  return std::find(secrets.begin(), secrets.end(), Secret(value)) != secrets.end();
}

TEST_CASE("a confined entry is read whole", "[config][confine]") {
  Entry e = Local(R"("confine": {"read": ["/usr/share/", "/srv/data"], "write": ["/tmp/out//"],
                                 "network": ["api.example.com:443", "[::1]:8443",
                                             "10.0.0.1:443", "localhost:80"]},
                     "confine_required": false,
                     "limits": {"memory_mb": 512, "open_files": 256, "processes": 64})");
  REQUIRE(e.accepted());
  REQUIRE(e.local->confine.has_value());
  const Confine& c = *e.local->confine;
  REQUIRE(c.read.size() == 2);
  CHECK(c.read[0].path == "/usr/share");
  CHECK(c.read[0].shown == "/usr/share");
  CHECK(c.read[1].path == "/srv/data");
  REQUIRE(c.write.size() == 1);
  CHECK(c.write[0].path == "/tmp/out");
  CHECK(c.write[0].shown == "/tmp/out");
  CHECK(c.network == ConfineNetwork::kPorts);
  REQUIRE(c.connect.size() == 4);
  CHECK(c.connect[0] == ConfineEndpoint{"api.example.com", 443, "api.example.com:443"});
  CHECK(c.connect[1] == ConfineEndpoint{"[::1]", 8443, "[::1]:8443"});
  CHECK(c.connect[2].host == "10.0.0.1");
  CHECK(c.connect[3].port == 80);
  CHECK(c.Ports() == std::vector<int>{80, 443, 8443});
  CHECK_FALSE(c.from_settings);
  CHECK_FALSE(e.local->unconfined);
  CHECK_FALSE(e.local->confine_required);
  CHECK(e.local->limits.memory_mb == 512);
  CHECK(e.local->limits.open_files == 256);
  CHECK(e.local->limits.processes == 64);
  CHECK(e.local->limits.any());
  // The keys are known: nothing is "ignored".
  CHECK(e.notes.empty());
}

TEST_CASE("network is false, true or a list, and none when absent", "[config][confine]") {
  Entry none = Local(R"("confine": {"read": ["/srv/data"], "network": false})");
  REQUIRE(none.accepted());
  CHECK(none.local->confine->network == ConfineNetwork::kNone);
  CHECK(none.local->confine->connect.empty());
  CHECK(none.local->confine->Ports().empty());

  Entry all = Local(R"("confine": {"network": true})");
  REQUIRE(all.accepted());
  CHECK(all.local->confine->network == ConfineNetwork::kAll);
  CHECK(all.local->confine->read.empty());
  CHECK(all.local->confine->write.empty());

  Entry absent = Local(R"("confine": {"read": ["/"]})");
  REQUIRE(absent.accepted());
  CHECK(absent.local->confine->network == ConfineNetwork::kNone);
  CHECK(absent.local->confine->read[0].path == "/");  // the root keeps its slash

  Entry one = Local(R"("confine": {"network": ["h:1", "h:65535", "h:65535"]})");
  REQUIRE(one.accepted());
  CHECK(one.local->confine->connect.size() == 3);
  CHECK(one.local->confine->Ports() == std::vector<int>{1, 65535});
}

TEST_CASE("confine false, null and absent keep the defaults of the other keys",
          "[config][confine]") {
  Entry off = Local(R"("confine": false)");
  REQUIRE(off.accepted());
  CHECK(off.local->unconfined);
  CHECK_FALSE(off.local->confine.has_value());
  CHECK(off.notes.empty());

  for (const char* keys : {R"("confine": null)", R"("args": [])"}) {
    Entry e = Local(keys);
    REQUIRE(e.accepted());
    CHECK_FALSE(e.local->unconfined);
    CHECK_FALSE(e.local->confine.has_value());
    CHECK(e.local->confine_required);
    CHECK_FALSE(e.local->limits.any());
    CHECK(e.local->limits == Limits{});
  }

  Entry required = Local(R"("confine": {"network": true}, "confine_required": true)");
  REQUIRE(required.accepted());
  CHECK(required.local->confine_required);

  Entry some = Local(R"("limits": {"open_files": 1, "processes": null})");
  REQUIRE(some.accepted());
  CHECK(some.local->limits.open_files == 1);
  CHECK(some.local->limits.memory_mb == 0);
  CHECK(some.local->limits.processes == 0);
  CHECK(some.local->limits.any());
  CHECK(Local(R"("limits": {})").local->limits.any() == false);
  CHECK(Local(R"("limits": {"memory_mb": 16777216, "open_files": 1048576, "processes": 4194304})")
            .accepted());
}

TEST_CASE("confine paths expand ${userHome} and ${env:..}, shown redacted", "[config][confine]") {
  const ParseEnv env = Env({{"DIR", "/srv/data"}});
  ParseResult r = Parse(
      R"({"mcpServers": {"s": {"command": "npx",
          "confine": {"read": ["${userHome}/proj"], "write": ["${env:DIR}/sub/"]}}}})",
      "mcp.json", env);
  REQUIRE(r.ok());
  const Entry& e = r->entries[0];
  REQUIRE(e.accepted());
  const Confine& c = *e.local->confine;
  REQUIRE(c.read.size() == 1);
  CHECK(c.read[0].path == "/home/tester/proj");
  CHECK(c.read[0].shown == "/home/tester/proj");
  REQUIRE(c.write.size() == 1);
  CHECK(c.write[0].path == "/srv/data/sub");
  CHECK(c.write[0].shown == "<redacted>/sub");
  CHECK(c.write[0].shown.find("/srv/data") == std::string::npos);
  CHECK(Has(r->secrets, "/srv/data"));

  // The whole path from the environment.
  ParseResult whole =
      Parse(R"({"mcpServers": {"s": {"command": "npx", "confine": {"read": ["${env:DIR}"]}}}})",
            "mcp.json", env);
  REQUIRE(whole.ok());
  REQUIRE(whole->entries[0].accepted());
  CHECK(whole->entries[0].local->confine->read[0].path == "/srv/data");
  CHECK(whole->entries[0].local->confine->read[0].shown == "<redacted>");

  // An unset variable refuses the entry, naming the variable and the key.
  CHECK(Refusal(R"("confine": {"read": ["${env:UNSET_DIR}"]})") ==
        "confine.read[0]: environment variable UNSET_DIR is not set");
}

TEST_CASE("a bad path refuses the entry, naming the key", "[config][confine]") {
  CHECK(Refusal(R"("confine": {"read": ["/nope"]})") ==
        "confine.read[0]: \"/nope\" does not exist");
  CHECK(Refusal(R"("confine": {"read": ["/srv/data", "/nope/"]})") ==
        "confine.read[1]: \"/nope\" does not exist");
  CHECK(Refusal(R"("confine": {"read": ["rel/dir"]})") ==
        "confine.read[0]: \"rel/dir\" is not an absolute path");
  CHECK(Refusal(R"("confine": {"write": [""]})") ==
        "confine.write[0]: \"\" is not an absolute path");
  CHECK(Refusal(R"("confine": {"read": [5]})") == "confine.read[0]: must be a string (got number)");
  CHECK(Refusal(R"("confine": {"read": "/usr/share"})") ==
        "confine.read: must be an array of paths (got string)");
  CHECK(Refusal(R"("confine": {"write": {"a": "/tmp/out"}})") ==
        "confine.write: must be an array of paths (got object)");
  CHECK(Refusal(R"("confine": {"write": ["/tmp/out", "/nope"]})").find("confine.write[1]") == 0);
  CHECK(Refusal(R"("confine": {"read": ["/srv/\u0000data"]})").find("confine.read[0]") == 0);
  // A path from the environment that does not exist is named redacted.
  Entry e = Local(R"("confine": {"read": ["${env:GONE}/x"]})", Env({{"GONE", "/gone-secret"}}));
  CHECK_FALSE(e.accepted());
  CHECK(e.refusal == "confine.read[0]: \"<redacted>/x\" does not exist");
}

TEST_CASE("a bad network refuses the entry, naming the key", "[config][confine]") {
  CHECK(Refusal(R"("confine": {"network": ["h:0"]})") ==
        "confine.network[0]: \"h:0\": port 0 is out of range (1-65535)");
  CHECK(Refusal(R"("confine": {"network": ["h:443", "h:70000"]})") ==
        "confine.network[1]: \"h:70000\": port 70000 is out of range (1-65535)");
  CHECK(Refusal(R"("confine": {"network": ["h:x"]})") ==
        "confine.network[0]: \"h:x\": the port is not a number");
  CHECK(Refusal(R"("confine": {"network": ["h:"]})") ==
        "confine.network[0]: \"h:\": the port is not a number");
  CHECK(Refusal(R"("confine": {"network": ["host"]})") ==
        "confine.network[0]: \"host\" is not host:port");
  CHECK(Refusal(R"("confine": {"network": [":443"]})") ==
        "confine.network[0]: \":443\" is not host:port");
  CHECK(Refusal(R"("confine": {"network": ["::1:443"]})") ==
        "confine.network[0]: \"::1:443\": an IPv6 address goes in brackets ([::1]:443)");
  CHECK(Refusal(R"("confine": {"network": "all"})") ==
        "confine.network: must be true, false or an array of \"host:port\" (got string)");
  CHECK(Refusal(R"("confine": {"network": 443})").find("confine.network: ") == 0);
  CHECK(Refusal(R"("confine": {"network": [443]})") ==
        "confine.network[0]: must be a string (got number)");
  for (const char* port : {"-1", "+80", "8O", "99999999999", "80 ", "0x50"}) {
    INFO(port);
    CHECK(Refusal(std::string(R"("confine": {"network": ["h:)") + port + "\"]}")
              .find("confine.network[0]: ") == 0);
  }
}

TEST_CASE("a bad confine, limits or confine_required refuses the entry, naming the key",
          "[config][confine]") {
  CHECK(Refusal(R"("confine": {"files": []})") ==
        "confine: unknown key \"files\" (known keys: read, write, network)");
  CHECK(Refusal(R"("confine": true)") == "confine: must be an object or false (got boolean)");
  CHECK(Refusal(R"("confine": "strict")") == "confine: must be an object or false (got string)");
  CHECK(Refusal(R"("confine": [])").find("confine: ") == 0);

  CHECK(Refusal(R"("limits": {"cpu": 1})") ==
        "limits: unknown key \"cpu\" (known keys: memory_mb, open_files, processes)");
  CHECK(Refusal(R"("limits": {"memory_mb": 0})") ==
        "limits.memory_mb: must be a whole number from 1 to 16777216");
  CHECK(Refusal(R"("limits": {"open_files": -1})") ==
        "limits.open_files: must be a whole number from 1 to 1048576");
  CHECK(Refusal(R"("limits": {"processes": 2.5})") ==
        "limits.processes: must be a whole number from 1 to 4194304");
  CHECK(Refusal(R"("limits": {"memory_mb": 16777217})").find("limits.memory_mb: ") == 0);
  CHECK(Refusal(R"("limits": {"open_files": 1048577})").find("limits.open_files: ") == 0);
  CHECK(Refusal(R"("limits": {"processes": 18446744073709551615})").find("limits.processes: ") ==
        0);
  CHECK(Refusal(R"("limits": {"open_files": "100"})").find("limits.open_files: ") == 0);
  CHECK(Refusal(R"("limits": {"memory_mb": true})").find("limits.memory_mb: ") == 0);
  CHECK(Refusal(R"("limits": 5)") == "limits: must be an object (got number)");

  CHECK(Refusal(R"("confine_required": "yes")") ==
        "\"confine_required\" must be true or false (got string)");
  CHECK(Refusal(R"("confine_required": 0)").find("\"confine_required\"") == 0);
}

// No refusal carries an env value (as for every other key of an entry).
TEST_CASE("a bad network endpoint from the environment is named redacted", "[config][confine]") {
  constexpr std::string_view kValue = "ENVSENTINEL-7f3a";
  const ParseEnv env = Env({{"S", std::string(kValue)}});
  for (const char* keys :
       {R"("confine": {"network": ["${env:S}"]})", R"("confine": {"network": ["h:${env:S}"]})",
        R"("confine": {"network": ["${env:S}:0"]})"}) {
    INFO(keys);
    Entry e = Local(keys, env);
    CHECK_FALSE(e.accepted());
    CHECK(e.refusal.find("confine.network[0]") == 0);
    CHECK(e.refusal.find(kValue) == std::string::npos);
  }

  // Accepted, the endpoint keeps the value to use and shows it redacted.
  Entry e = Local(R"("confine": {"network": ["${env:S}:443"]})", env);
  REQUIRE(e.accepted());
  REQUIRE(e.local->confine->connect.size() == 1);
  CHECK(e.local->confine->connect[0].host == kValue);
  CHECK(e.local->confine->connect[0].port == 443);
  CHECK(e.local->confine->connect[0].text == "<redacted>:443");
}

TEST_CASE("two parses of one confined entry are equal and a changed path is not",
          "[config][confine]") {
  const char* confined = R"("confine": {"read": ["/srv/data"], "network": ["h:443"]},
                            "limits": {"open_files": 64})";
  Entry a = Local(confined);
  Entry b = Local(confined);
  REQUIRE(a.accepted());
  REQUIRE(b.accepted());
  CHECK(*a.local == *b.local);

  // A reload restarts a server whose LocalServer changed.
  CHECK_FALSE(*a.local == *Local(R"("confine": {"read": ["/usr/share"], "network": ["h:443"]},
                                    "limits": {"open_files": 64})")
                               .local);
  CHECK_FALSE(*a.local == *Local(R"("confine": {"read": ["/srv/data"], "network": ["h:444"]},
                                    "limits": {"open_files": 64})")
                               .local);
  CHECK_FALSE(*a.local == *Local(R"("confine": {"read": ["/srv/data"], "network": ["h:443"]},
                                    "limits": {"open_files": 65})")
                               .local);
  CHECK_FALSE(*a.local == *Local(R"("confine": {"read": ["/srv/data"], "network": ["h:443"]},
                                    "limits": {"open_files": 64}, "confine_required": false)")
                               .local);
  CHECK_FALSE(*Local(R"("confine": false)").local == *Local(R"("args": [])").local);
}

// --- The settings default ---------------------------------------------------

base::Result<Settings> ReadSettings(const std::string& text) {
  return ParseSettings(text, "settings.json");
}

TEST_CASE("local_servers_confine is read as its form, kept as compact JSON",
          "[config][confine][settings]") {
  auto s = ReadSettings(R"({"local_servers_confine": {"read": ["${userHome}/x"],
                                                  "network": false}})");
  INFO(s.message());
  REQUIRE(s.ok());
  CHECK(s->local_servers_confine.text == R"({"read":["${userHome}/x"],"network":false})");

  auto full = ReadSettings(R"({"local_servers_confine": {"read": ["/usr/share", "${env:D}"],
      "write": ["/tmp/x"], "network": ["api.example.com:443", "[::1]:8443"]}})");
  INFO(full.message());
  REQUIRE(full.ok());
  CHECK(full->local_servers_confine.text ==
        R"({"read":["/usr/share","${env:D}"],"write":["/tmp/x"],)"
        R"("network":["api.example.com:443","[::1]:8443"]})");

  auto null = ReadSettings(R"({"local_servers_confine": null})");
  REQUIRE(null.ok());
  CHECK(null->local_servers_confine.text.empty());
  auto off = ReadSettings(R"({"local_servers_confine": false})");
  REQUIRE(off.ok());
  CHECK(off->local_servers_confine.text.empty());
  auto absent = ReadSettings("{}");
  REQUIRE(absent.ok());
  CHECK(absent->local_servers_confine.text.empty());
}

TEST_CASE("a bad local_servers_confine is an error naming the member",
          "[config][confine][settings]") {
  auto error = [](const std::string& text) {
    auto s = ReadSettings(text);
    REQUIRE_FALSE(s.ok());
    CHECK(s.message().rfind("settings.json:1:", 0) == 0);
    return s.message();
  };
  CHECK_THAT(error(R"({"local_servers_confine": {"read": ["rel"]}})"),
             Catch::EndsWith(": local_servers_confine.read[0]: \"rel\" is not an absolute path"));
  CHECK_THAT(error(R"({"local_servers_confine": {"write": ["/a", "x/${userHome}"]}})"),
             Catch::Contains("local_servers_confine.write[1]: "));
  CHECK_THAT(error(R"({"local_servers_confine": {"x": 1}})"),
             Catch::EndsWith(": local_servers_confine: unknown key \"x\" "
                             "(known keys: read, write, network)"));
  CHECK_THAT(error(R"({"local_servers_confine": {"network": ["h:0"]}})"),
             Catch::EndsWith(": local_servers_confine.network[0]: \"h:0\": port 0 is out of "
                             "range (1-65535)"));
  CHECK_THAT(error(R"({"local_servers_confine": {"network": "none"}})"),
             Catch::Contains("local_servers_confine.network: "));
  CHECK_THAT(error(R"({"local_servers_confine": {"read": "/usr"}})"),
             Catch::Contains("local_servers_confine.read: must be an array of paths"));
  CHECK_THAT(error(R"({"local_servers_confine": [1]})"),
             Catch::Contains("local_servers_confine: "));
  // The message is the member's, once, after the file's position.
  const std::string once = error(R"({"local_servers_confine": {"read": [1]}})");
  CHECK_THAT(once, Catch::EndsWith(": local_servers_confine.read[0]: must be a string "
                                   "(got number)"));
  CHECK(once.find("local_servers_confine") == once.rfind("local_servers_confine"));
}

// The file of ApplyConfineDefault's tests: one entry of each kind.
Config Entries(const ParseEnv& env) {
  ParseResult r = Parse(R"({"mcpServers": {
      "plain": {"command": "a"},
      "own": {"command": "b", "confine": {"read": ["/srv/data"], "network": true}},
      "free": {"command": "c", "confine": false},
      "remote": {"url": "https://h/mcp"},
      "refused": {"command": 5},
      "limited": {"command": "d", "limits": {"processes": 10}, "confine_required": false}}})",
                        "mcp.json", env);
  REQUIRE(r.ok());
  REQUIRE(r->entries.size() == 6);
  return *r;
}

TEST_CASE("the settings default confines local entries that say nothing of confine",
          "[config][confine][settings]") {
  ParseEnv env = Env();
  env.home = "/home/other";
  Config config = Entries(env);
  const Config before = config;
  ApplyConfineDefault(config, R"({"read":["${userHome}/x"],"network":false})", env);

  const Entry& plain = config.entries[0];
  REQUIRE(plain.accepted());
  REQUIRE(plain.local->confine.has_value());
  CHECK(plain.local->confine->from_settings);
  REQUIRE(plain.local->confine->read.size() == 1);
  CHECK(plain.local->confine->read[0].path == "/home/other/x");
  CHECK(plain.local->confine->network == ConfineNetwork::kNone);
  CHECK(plain.local->command == "a");

  // Its own confine is kept.
  const Entry& own = config.entries[1];
  REQUIRE(own.accepted());
  CHECK(*own.local == *before.entries[1].local);
  CHECK_FALSE(own.local->confine->from_settings);
  CHECK(own.local->confine->read[0].path == "/srv/data");
  CHECK(own.local->confine->network == ConfineNetwork::kAll);

  // "confine": false: no default either.
  const Entry& free = config.entries[2];
  REQUIRE(free.accepted());
  CHECK_FALSE(free.local->confine.has_value());
  CHECK(free.local->unconfined);

  // Remote and refused entries are not touched.
  CHECK(config.entries[3].remote == before.entries[3].remote);
  CHECK_FALSE(config.entries[3].local.has_value());
  CHECK_FALSE(config.entries[4].accepted());
  CHECK(config.entries[4].refusal == before.entries[4].refusal);

  // An entry with limits only gets the default, its other keys kept.
  const Entry& limited = config.entries[5];
  REQUIRE(limited.accepted());
  REQUIRE(limited.local->confine.has_value());
  CHECK(limited.local->confine->from_settings);
  CHECK(limited.local->limits.processes == 10);
  CHECK_FALSE(limited.local->confine_required);
}

TEST_CASE("a settings default that cannot be applied refuses the entries it is for",
          "[config][confine][settings]") {
  const ParseEnv env = Env();
  Config config = Entries(env);
  ApplyConfineDefault(config, R"({"read":["/srv/data","/nope"]})", env);
  for (size_t i : {size_t{0}, size_t{5}}) {
    INFO(config.entries[i].name);
    CHECK_FALSE(config.entries[i].accepted());
    CHECK(config.entries[i].refusal ==
          "the settings default local_servers_confine.read[1]: \"/nope\" does not exist");
  }
  CHECK(config.entries[1].accepted());
  CHECK(config.entries[2].accepted());
  CHECK(config.entries[3].accepted());

  // An unset variable, likewise.
  Config unset = Entries(env);
  ApplyConfineDefault(unset, R"({"write":["${env:NOPE}"]})", env);
  CHECK_FALSE(unset.entries[0].accepted());
  CHECK_THAT(unset.entries[0].refusal, Catch::Contains("local_servers_confine.write[0]"));
  CHECK_THAT(unset.entries[0].refusal, Catch::Contains("NOPE"));
}

TEST_CASE("a settings default's env values are secrets and shown redacted",
          "[config][confine][settings]") {
  const ParseEnv env = Env({{"DIR", "/srv/data"}});
  Config config = Entries(env);
  ApplyConfineDefault(config, R"({"read":["${env:DIR}/sub"]})", env);
  REQUIRE(config.entries[0].accepted());
  const ConfinePath& p = config.entries[0].local->confine->read[0];
  CHECK(p.path == "/srv/data/sub");
  CHECK(p.shown == "<redacted>/sub");
  CHECK(Has(config.secrets, "/srv/data"));
  CHECK(std::count(config.secrets.begin(), config.secrets.end(), Secret("/srv/data")) == 1);

  // A missing path from the environment is named redacted.
  const ParseEnv gone = Env({{"DIR", "/gone-secret"}});
  Config refused = Entries(gone);
  ApplyConfineDefault(refused, R"({"read":["${env:DIR}"]})", gone);
  CHECK(refused.entries[0].refusal ==
        "the settings default local_servers_confine.read[0]: \"<redacted>\" does not exist");
}

TEST_CASE("an empty settings default changes nothing", "[config][confine][settings]") {
  const ParseEnv env = Env();
  Config config = Entries(env);
  const Config before = config;
  ApplyConfineDefault(config, "", env);
  REQUIRE(config.entries.size() == before.entries.size());
  for (size_t i = 0; i < config.entries.size(); ++i) {
    INFO(config.entries[i].name);
    CHECK(config.entries[i].local == before.entries[i].local);
    CHECK(config.entries[i].refusal == before.entries[i].refusal);
  }
  CHECK_FALSE(config.entries[0].local->confine.has_value());
}

TEST_CASE("what the settings file accepts applies, through the same parse",
          "[config][confine][settings]") {
  auto s = ReadSettings(R"({"local_servers_confine": {"read": ["${userHome}/x"],
                                                  "network": ["h:443"]}})");
  REQUIRE(s.ok());
  const ParseEnv env = Env();
  Config config = Entries(env);
  ApplyConfineDefault(config, s->local_servers_confine.text, env);
  REQUIRE(config.entries[0].accepted());
  CHECK(config.entries[0].local->confine->read[0].path == "/home/tester/x");
  CHECK(config.entries[0].local->confine->Ports() == std::vector<int>{443});
}

// The default's strings are expanded when it is applied (docs/SETTINGS.md),
// so a host from the environment must pass the settings file's form check.
TEST_CASE("a settings default endpoint may take its host from the environment",
          "[config][confine][settings]") {
  auto s = ReadSettings(R"({"local_servers_confine": {"network": ["${env:API_HOST}:443"]}})");
  INFO(s.message());
  REQUIRE(s.ok());
  const ParseEnv env = Env({{"API_HOST", "api.example.com"}});
  Config config = Entries(env);
  ApplyConfineDefault(config, s->local_servers_confine.text, env);
  REQUIRE(config.entries[0].accepted());
  CHECK(config.entries[0].local->confine->connect[0].host == "api.example.com");
  CHECK(config.entries[0].local->confine->Ports() == std::vector<int>{443});
}

}  // namespace
}  // namespace mcpgw::config
