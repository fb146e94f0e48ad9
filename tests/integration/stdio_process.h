// `mcpgw stdio` as a host runs it, for the integration tests: the real
// binary between two pipes the test holds. Every read and wait is bounded.
#pragma once

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

extern char** environ;

namespace mcpgw::testing {

// `mcpgw --socket SOCKET stdio [ARGS]` with the test holding both ends of its stdin and stdout.
class StdioProcess {
 public:
  explicit StdioProcess(const std::string& socket,
                        const std::vector<std::string>& extra_args = {}) {
    REQUIRE(pipe(in_) == 0);
    REQUIRE(pipe(out_) == 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out_[1], 1);
    for (int fd : {in_[0], in_[1], out_[0], out_[1]}) posix_spawn_file_actions_addclose(&fa, fd);
    std::vector<std::string> argv = {MCPGW_CLI_PATH, "--socket", socket, "stdio"};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    REQUIRE(posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    close(in_[0]);
    close(out_[1]);
  }
  ~StdioProcess() {
    CloseInput();
    if (Wait(std::chrono::seconds(0)) == -1) {
      kill(pid_, SIGKILL);
      Wait(std::chrono::seconds(5));
    }
    close(out_[0]);
  }
  pid_t pid() const { return pid_; }
  void Write(const std::string& line) {
    const std::string bytes = line + "\n";
    REQUIRE(write(in_[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  void CloseInput() {
    if (in_[1] >= 0) close(in_[1]);
    in_[1] = -1;
  }
  // The next line of stdout, or "" after `timeout` or at its end.
  std::string ReadLine(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (const size_t nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{out_[0], POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) return "";
      char chunk[65536];
      const ssize_t n = read(out_[0], chunk, sizeof(chunk));
      if (n <= 0) return "";
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }
  // The exit code, or -1 while it runs past `timeout`.
  int Wait(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    if (exited_) return code_;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    do {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return code_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (std::chrono::steady_clock::now() < deadline);
    return -1;
  }

 private:
  int in_[2] = {-1, -1};
  int out_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
  std::string buf_;
};

}  // namespace mcpgw::testing
