// The command lines of `mcpgw import`, `mcpgw hosts` and `mcpgw doctor` (BEHAVIOR.md §7):
// what they parse to, and misuse named with the command's --help (exit 2).
#include <catch2/catch.hpp>

#include "client/cli/args.h"
#include "client/cli/setup_commands.h"
#include "client/cli/setup_exec.h"
#include "client/cli/subcommands.h"

namespace mcpgw::cli {

// These tests run import, hosts and doctor in this process, as mcpgw-setup does.
TEST_CASE("setup args: import takes --from HOST..., --dry-run, --move, --config", "[setup][cli]") {
  UseSetupCommandsHere("");
  const base::Result<ParseResult> r =
      ParseArgs({"import", "--from", "cursor", "codex", "--dry-run", "--config", "/x/mcp.json"});
  REQUIRE((r.ok() && r->invocation));
  CHECK(r->invocation->command->name == "import");
  CHECK(r->invocation->from == std::vector<std::string>{"cursor", "codex"});
  CHECK(r->invocation->dry_run);
  CHECK_FALSE(r->invocation->move);
  CHECK(r->invocation->config == "/x/mcp.json");

  const base::Result<ParseResult> bad = ParseArgs({"import", "--from", "emacs"});
  CHECK_FALSE(bad.ok());  // misuse: exit 2
  CHECK(bad.message().find("Run 'mcpgw import --help' for usage.") != std::string::npos);
}

TEST_CASE("setup args: hosts list, add HOST, remove HOST", "[setup][cli]") {
  UseSetupCommandsHere("");
  const base::Result<ParseResult> plain = ParseArgs({"hosts"});
  REQUIRE((plain.ok() && plain->invocation));
  CHECK_FALSE(plain->invocation->action);
  const base::Result<ParseResult> add = ParseArgs({"hosts", "add", "claude-code"});
  REQUIRE((add.ok() && add->invocation));
  CHECK(add->invocation->action == "add");
  CHECK(add->invocation->host == "claude-code");
  CHECK_FALSE(ParseArgs({"hosts", "frob"}).ok());
  CHECK(ParseArgs({"hosts", "add", "notepad"}).kind() == base::ErrorKind::kInvalidInput);

  // add without a HOST is misuse, said by the command with the hosts it knows.
  std::ostringstream out, err;
  std::istringstream in;
  CommandIo io{out, err, in, false, false, 0, nullptr};
  const base::Result<ParseResult> no_host = ParseArgs({"hosts", "add"});
  REQUIRE((no_host.ok() && no_host->invocation));
  CHECK(RunHostsCommand(*no_host->invocation, io) == kExitMisuse);
  CHECK(err.str().find("hosts add needs a HOST (claude-desktop, claude-code, cursor, vscode, "
                       "windsurf, gemini, codex)") != std::string::npos);
  CHECK(err.str().find("Run 'mcpgw hosts --help' for usage.") != std::string::npos);
}

TEST_CASE("setup args: every new command has --help", "[setup][cli]") {
  UseSetupCommandsHere("");
  for (const char* command : {"import", "hosts", "doctor"}) {
    const base::Result<ParseResult> help = ParseArgs({command, "--help"});
    REQUIRE(help.ok());
    CHECK(help->out.find(std::string("mcpgw ") + command) != std::string::npos);
  }
  const base::Result<ParseResult> top = ParseArgs({"--help"});
  REQUIRE(top.ok());
  for (const char* command : {"import", "hosts", "doctor"}) {
    CHECK(top->out.find(command) != std::string::npos);
  }
}

TEST_CASE("setup exec: mcpgw looks for mcpgw-setup beside itself, then in the install's libexec",
          "[setup][cli]") {
  const std::vector<std::string> paths = SetupHelperPaths("/opt/mcpgw/bin/mcpgw");
  REQUIRE(paths.size() == 2);
  CHECK(paths[0] == "/opt/mcpgw/bin/mcpgw-setup");
  CHECK(paths[1] == "/opt/mcpgw/bin/../libexec/mcpgw/mcpgw-setup");
}

TEST_CASE("setup exec: a program without the setup commands parses none of their options",
          "[setup][cli]") {
  RunSetupCommandsHere({});
  CHECK(IsSetupCommand("import"));
  CHECK(IsSetupCommand("doctor"));
  CHECK_FALSE(IsSetupCommand("stdio"));
  CHECK(SetupCommandHere("hosts") == nullptr);
  // cli::Main hands such a command line to mcpgw-setup before parsing it.
  CHECK_FALSE(ParseArgs({"import", "--from", "cursor"}).ok());
  UseSetupCommandsHere("");
  REQUIRE(SetupCommandHere("hosts") != nullptr);
  const base::Result<ParseResult> here = ParseArgs({"import", "--from", "cursor"});
  CHECK((here.ok() && here->invocation));
}

}  // namespace mcpgw::cli
