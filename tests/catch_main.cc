// The Catch2 main shared by the unit and integration binaries. Like mcpgwd
// (daemon/mcpgwd_main.cc), the test binaries ignore SIGPIPE: they host the
// daemon's IpcServer in-process, and a client that closes its end first must
// fail a write, not kill the binary.
//
// Every run also gets a state folder of its own (XDG_STATE_HOME), which the
// daemons it starts inherit: their OAuth tokens and pinned tool definitions
// (docs/BEHAVIOR.md §13) stay out of the user's ~/.local/state, and a
// server on a port an earlier test used is not measured against that test's
// pins. The daemons one test case starts share it, as a restarted daemon
// shares the user's.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <csignal>
#include <filesystem>
#include <string>

int main(int argc, char* argv[]) {
  std::signal(SIGPIPE, SIG_IGN);
  std::string state = (std::filesystem::temp_directory_path() / "mcpgw-test-state.XXXXXX").string();
  const bool made = mkdtemp(state.data()) != nullptr;
  if (made) setenv("XDG_STATE_HOME", state.c_str(), 1);
  const int code = Catch::Session().run(argc, argv);
  if (made) {
    std::error_code ignored;
    std::filesystem::remove_all(state, ignored);
  }
  return code;
}
