// Helpers for the integration tests: temporary directories, child processes
// (the real mcpgwd and mcpgw binaries) with captured output, and polling with
// a deadline. Every wait is bounded.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

extern char** environ;

namespace mcpgw::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/mcpgw-it-XXXXXX";
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Polls `pred` every 20 ms until it holds or `timeout` passes.
inline bool WaitFor(const std::function<bool()>& pred,
                    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

// A child process with stdout and stderr sent to files.
class Process {
 public:
  Process(std::vector<std::string> argv, const std::string& out_path, const std::string& err_path,
          std::vector<std::string> extra_env = {})
      : out_path_(out_path), err_path_(err_path) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    // `extra_env` wins over an inherited variable of the same name.
    auto name_of = [](std::string_view e) { return e.substr(0, e.find('=') + 1); };
    std::vector<std::string> env_store;
    for (char** e = environ; *e; ++e) {
      const std::string_view inherited(*e);
      const bool replaced = std::any_of(extra_env.begin(), extra_env.end(), [&](const auto& x) {
        return name_of(x) == name_of(inherited);
      });
      if (!replaced) env_store.emplace_back(inherited);
    }
    for (auto& e : extra_env) env_store.push_back(e);
    std::vector<char*> env;
    for (auto& e : env_store) env.push_back(e.data());
    env.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), env.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Process() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      int st;
      waitpid(pid_, &st, 0);
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  void Signal(int sig) { kill(pid_, sig); }
  // The exit code (128+signal when killed), or -1 if still running at the timeout.
  int Wait(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    if (exited_) return code_;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    do {
      int st;
      pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        code_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return code_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (std::chrono::steady_clock::now() < deadline);
    return -1;
  }
  bool Alive() { return Wait(std::chrono::milliseconds(0)) == -1; }
  std::string Out() const { return ReadFile(out_path_); }
  std::string Err() const { return ReadFile(err_path_); }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
  std::string out_path_;
  std::string err_path_;
};

struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs a command to completion (bounded by `timeout`; killed after it).
inline CommandResult Run(std::vector<std::string> argv, const TempDir& dir,
                         std::vector<std::string> extra_env = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  static int counter = 0;
  std::string base = dir / ("run" + std::to_string(counter++));
  Process p(std::move(argv), base + ".out", base + ".err", std::move(extra_env));
  CommandResult r;
  r.code = p.Wait(timeout);
  r.out = p.Out();
  r.err = p.Err();
  return r;
}

// A running mcpgwd on a private socket, stopped with SIGTERM at the end.
class Daemon {
 public:
  Daemon(const TempDir& dir, const std::string& config_json,
         std::vector<std::string> extra_args = {}, std::vector<std::string> extra_env = {})
      : dir_(dir), config_(dir / "mcp.json"), socket_(dir / "run/mcpgw.sock") {
    WriteFile(config_, config_json);
    std::vector<std::string> argv = {MCPGW_MCPGWD_PATH, "--config",    config_, "--socket",
                                     socket_,           "--log-level", "debug"};
    for (auto& a : extra_args) argv.push_back(a);
    proc_ = std::make_unique<Process>(argv, dir / "mcpgwd.out", dir / "mcpgwd.err",
                                      std::move(extra_env));
  }
  bool WaitListening() {
    return WaitFor([&] {
      struct stat st;
      return stat(socket_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
    });
  }
  CommandResult Cli(std::vector<std::string> args) {
    std::vector<std::string> argv = {MCPGW_CLI_PATH, "--socket", socket_};
    for (auto& a : args) argv.push_back(a);
    return Run(argv, dir_);
  }
  Process& process() { return *proc_; }
  const std::string& socket() const { return socket_; }
  const std::string& config() const { return config_; }
  std::string Log() const { return proc_->Err(); }

 private:
  const TempDir& dir_;
  std::string config_;
  std::string socket_;
  std::unique_ptr<Process> proc_;
};

}  // namespace mcpgw::testing
