// mcpgwd's command line: what each option sets, the defaults taken from the environment,
// and every misuse refused with exit 2 and a message naming the help.
#include "daemon/command_line.h"

#include <map>
#include <string>

#include <catch2/catch.hpp>

namespace mcpgw {
namespace {

GetEnv Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

CommandLine Parse(std::vector<std::string> args,
                  std::map<std::string, std::string> vars = {{"HOME", "/home/u"}}) {
  base::Result<CommandLineResult> r = ParseCommandLine(args, Env(vars));
  INFO(r.message());
  REQUIRE(r.ok());
  REQUIRE(r->command_line);
  return *r->command_line;
}

// What a misuse writes to stderr (mcpgwd then exits kExitMisuse).
std::string Misuse(std::vector<std::string> args) {
  base::Result<CommandLineResult> r = ParseCommandLine(args, Env({{"HOME", "/home/u"}}));
  CHECK_FALSE(r.ok());
  CHECK(r.kind() == base::ErrorKind::kInvalidInput);
  return r.message();
}

TEST_CASE("mcpgwd command line: the files default to the user's configuration directory",
          "[command_line]") {
  CommandLine home = Parse({});
  CHECK(home.config_path == "/home/u/.config/mcpgw/mcp.json");
  CHECK(home.settings_path == "/home/u/.config/mcpgw/settings.json");
  CHECK_FALSE(home.settings_named);
  CHECK(home.socket_path.empty());
  CHECK(home.workers == 0);
  CHECK_FALSE(home.check);

  CommandLine xdg = Parse({}, {{"HOME", "/home/u"}, {"XDG_CONFIG_HOME", "/cfg"}});
  CHECK(xdg.config_path == "/cfg/mcpgw/mcp.json");
  CHECK(xdg.settings_path == "/cfg/mcpgw/settings.json");
}

TEST_CASE("mcpgwd command line: options set what they name, paths made absolute",
          "[command_line]") {
  CommandLine cl = Parse({"--config", "/etc/m/../mcp.json", "--settings", "/etc/s.json", "--socket",
                          "/run/x.sock", "--workers", "3", "--log-level", "debug", "--check"});
  CHECK(cl.config_path == "/etc/mcp.json");
  CHECK(cl.settings_path == "/etc/s.json");
  CHECK(cl.settings_named);
  CHECK(cl.socket_path == "/run/x.sock");
  CHECK(cl.workers == 3);
  CHECK(cl.log_level == "debug");
  CHECK(cl.check);
  CHECK(Parse({"--config", "relative.json"}).config_path.front() == '/');
}

TEST_CASE("mcpgwd command line: --record, --replay and --replay-miss", "[command_line]") {
  const CommandLine none = Parse({});
  CHECK(none.record_path.empty());
  CHECK(none.replay_path.empty());
  CHECK_FALSE(none.replay_forward);
  const CommandLine both = Parse(
      {"--record", "/tmp/new.jsonl", "--replay", "/tmp/old.jsonl", "--replay-miss", "forward"});
  CHECK(both.record_path == "/tmp/new.jsonl");
  CHECK(both.replay_path == "/tmp/old.jsonl");
  CHECK(both.replay_forward);
  CHECK_FALSE(Parse({"--replay", "/tmp/a", "--replay-miss", "fail"}).replay_forward);
  // Relative paths are made absolute, as --config's are.
  CHECK(Parse({"--record", "tape.jsonl"}).record_path.front() == '/');
  CHECK_THAT(Misuse({"--replay-miss", "forward"}), Catch::Contains("--replay"));
  CHECK_THAT(Misuse({"--replay", "/tmp/a", "--replay-miss", "sometimes"}),
             Catch::Contains("--replay-miss"));
  CHECK_THAT(Misuse({"--record", ""}), Catch::Contains("--record needs a non-empty value"));
}

TEST_CASE("mcpgwd command line: misuse exits 2 and points at --help", "[command_line]") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--bogus"},
                                                                {"--workers", "0"},
                                                                {"--workers", "1025"},
                                                                {"--log-level", "loud"},
                                                                {"stray"}}) {
    const std::string err = Misuse(args);
    CHECK(err.rfind("mcpgwd: ", 0) == 0);
    CHECK(err.find("Run 'mcpgwd --help' for usage.") != std::string::npos);
  }
  CHECK(Misuse({"--settings", ""}) ==
        "mcpgwd: --settings needs a non-empty value\nRun 'mcpgwd --help' for usage.\n");
}

TEST_CASE("mcpgwd command line: --help and --version print to stdout and exit 0",
          "[command_line]") {
  base::Result<CommandLineResult> help = ParseCommandLine({"--help"}, Env({}));
  REQUIRE(help.ok());  // exit 0, nothing on stderr
  CHECK_FALSE(help->command_line);
  CHECK(help->out.find("--check") != std::string::npos);
  CHECK(help->out.find("SIGHUP") != std::string::npos);
  base::Result<CommandLineResult> version = ParseCommandLine({"--version"}, Env({}));
  REQUIRE(version.ok());
  CHECK_FALSE(version->command_line);
  CHECK(version->out == std::string("mcpgwd ") + MCPGW_VERSION + "\n");
}

TEST_CASE("mcpgwd command line: fatal lines carry the error priority under systemd",
          "[command_line]") {
  CHECK(FatalLine("no socket", Env({})) == "mcpgwd: no socket\n");
  CHECK(FatalLine("no socket", Env({{"JOURNAL_STREAM", "8:123"}})) == "<3>mcpgwd: no socket\n");
}

}  // namespace
}  // namespace mcpgw
