// The Catch2 main shared by the unit and integration binaries. Like mcpgwd
// (daemon/mcpgwd_main.cc), the test binaries ignore SIGPIPE: they host the
// daemon's IpcServer in-process, and a client that closes its end first must
// fail a write, not kill the binary.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <csignal>

int main(int argc, char* argv[]) {
  std::signal(SIGPIPE, SIG_IGN);
  return Catch::Session().run(argc, argv);
}
