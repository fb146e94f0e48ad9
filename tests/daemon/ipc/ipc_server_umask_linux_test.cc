// IpcServer::Listen makes its socket private without touching the process's
// umask, which every thread shares: while the server listens and stops again
// and again, another thread's new files keep the mode the umask gives them.
// The other thread makes directories: they take their mode from the umask as
// regular files do, and need no descriptor, so the thread never takes the
// number of one the server just closed (ThreadSanitizer reads such a reuse
// across threads as a race on the descriptor).
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/daemon/ipc/ipc_test_fixture.h"

namespace mcpgw::testing {
namespace {

// The process's umask as the kernel reports it, read without setting it.
mode_t UmaskNow() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  FAIL("no Umask line in /proc/self/status");
  return 0;
}

TEST_CASE("listening leaves the process's umask alone while other threads make files",
          "[daemon][ipc]") {
  TempDir dir;
  const std::string socket = dir.path() + "/run/mcpgw.sock";
  const std::string file = dir.path() + "/made";
  const mode_t expected = 0777 & ~UmaskNow();

  std::atomic<bool> done{false};
  std::atomic<int> made{0};
  std::atomic<int> wrong{0};  // files made with another mode
  std::thread maker([&] {
    while (!done.load()) {
      if (mkdir(file.c_str(), 0777) != 0) continue;
      struct stat st {};
      if (stat(file.c_str(), &st) == 0 && (st.st_mode & 0777) != expected) wrong++;
      made++;
      rmdir(file.c_str());
    }
  });
  FakeHandler handler;
  uv_loop_t loop;
  uv_loop_init(&loop);
  std::string error;
  // At least 1,000 listens while the other thread has made at least 1,000
  // files (on a busy machine it may lag; the bound keeps the test finite).
  for (int i = 0; (i < 1000 || made.load() < 1000) && i < 200'000 && error.empty(); i++) {
    {
      IpcServer server(&loop, &handler, {});
      error = server.Listen(socket).message();
      struct stat st {};
      if (error.empty() && (lstat(socket.c_str(), &st) != 0 || (st.st_mode & 0777) != 0600)) {
        error = "the socket is not 0600";
      }
    }
    uv_run(&loop, UV_RUN_NOWAIT);  // the server's handles close
  }
  CHECK(uv_loop_close(&loop) == 0);
  done = true;
  maker.join();
  CHECK(error.empty());
  CHECK(made.load() >= 1000);
  CHECK(wrong.load() == 0);
}

}  // namespace
}  // namespace mcpgw::testing
