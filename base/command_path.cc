#include "base/command_path.h"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <unordered_set>

extern char** environ;

namespace mcpgw::base {
namespace {

// Printed before the PATH so that whatever the shell's start-up files print
// (a banner, a fortune) is not taken for it.
constexpr std::string_view kMarker = "__mcpgw_login_path__";

bool Executable(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// Reads what `fd` holds now without waiting; false at its end.
bool Drain(int fd, std::string& out) {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 && errno == EAGAIN;
    if (out.size() < 1024 * 1024) out.append(buf, static_cast<size_t>(n));
  }
}

// Reads `fd` (non-blocking) until `pid` has exited and what it wrote is
// read, or `deadline`; false when the deadline came first. A background job
// the program left holding the pipe is not waited for. `status` is pid's.
bool ReadUntilExit(int fd, pid_t pid, std::chrono::steady_clock::time_point deadline,
                   std::string& out, int* status) {
  constexpr int kSliceMs = 50;
  bool open = true;
  for (;;) {
    const pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid) {
      Drain(fd, out);
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int wait_ms = static_cast<int>(std::min<int64_t>(left.count(), kSliceMs));
    if (!open) {
      poll(nullptr, 0, wait_ms);
      continue;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready > 0) open = Drain(fd, out);
  }
}

// The line after the marker.
std::string PathAfterMarker(const std::string& text) {
  const size_t at = text.rfind(kMarker);
  if (at == std::string::npos) return {};
  size_t begin = text.find('\n', at);
  if (begin == std::string::npos) return {};
  ++begin;
  size_t end = text.find('\n', begin);
  if (end == std::string::npos) end = text.size();
  return text.substr(begin, end - begin);
}

}  // namespace

std::optional<std::string> RunBounded(const std::vector<std::string>& argv,
                                      const std::vector<std::string>* env,
                                      std::chrono::milliseconds timeout) {
  if (argv.empty()) return std::nullopt;
  int out[2];
  if (pipe(out) != 0) return std::nullopt;
  fcntl(out[0], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  arg_ptrs.push_back(nullptr);
  std::vector<std::string> env_text = env != nullptr ? *env : std::vector<std::string>();
  std::vector<char*> env_ptrs;
  for (std::string& e : env_text) env_ptrs.push_back(e.data());
  env_ptrs.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, args[0].c_str(), &actions, &attr, arg_ptrs.data(),
                                   env != nullptr ? env_ptrs.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return std::nullopt;
  }
  std::string text;
  int status = 0;
  fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
  const bool finished =
      ReadUntilExit(out[0], pid, std::chrono::steady_clock::now() + timeout, text, &status);
  close(out[0]);
  if (!finished) {
    // Still running, so its group cannot be anyone else's yet: it ends here.
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return std::nullopt;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return text;
}

std::string LoginShellPath(const std::string& shell, const std::string& home,
                           std::chrono::milliseconds timeout) {
  if (shell.empty() || shell[0] != '/' || !Executable(shell)) return {};
  // The shell gets what a login gives it; its start-up files do the rest.
  std::vector<std::string> env = {"HOME=" + home, "SHELL=" + shell, "TERM=dumb"};
  for (const char* name : {"USER", "LOGNAME", "PATH", "LANG"}) {
    if (const char* v = getenv(name)) env.push_back(std::string(name) + "=" + v);
  }
  const std::string script = "echo " + std::string(kMarker) + "; printenv PATH";
  const std::optional<std::string> out =
      RunBounded({shell, "-l", "-i", "-c", script}, &env, timeout);
  return out ? PathAfterMarker(*out) : std::string();
}

std::string UserShell() {
  if (const char* shell = getenv("SHELL"); shell != nullptr && shell[0] == '/') return shell;
  if (const passwd* pw = getpwuid(getuid());
      pw != nullptr && pw->pw_shell != nullptr && pw->pw_shell[0] == '/') {
    return pw->pw_shell;
  }
  return "/bin/sh";
}

std::vector<std::string> SearchDirs(std::string_view login_path, std::string_view own_path) {
  std::vector<std::string> dirs;
  std::unordered_set<std::string> seen;
  for (std::string_view path : {login_path, own_path}) {
    while (!path.empty()) {
      const size_t colon = path.find(':');
      std::string_view dir = path.substr(0, colon);
      path = colon == std::string_view::npos ? std::string_view() : path.substr(colon + 1);
      while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
      if (dir.empty() || dir[0] != '/') continue;
      if (seen.emplace(dir).second) dirs.emplace_back(dir);
    }
  }
  return dirs;
}

std::string DescribeDirs(const std::vector<std::string>& dirs) {
  if (dirs.empty()) return "no directories";
  std::string out;
  for (size_t i = 0; i < dirs.size(); ++i) {
    if (i > 0) out += i + 1 == dirs.size() ? " and " : ", ";
    out += dirs[i];
  }
  return out;
}

Result<std::string> FindCommand(const std::string& command, const std::vector<std::string>& dirs,
                                const std::string& cwd) {
  if (command.empty()) return InvalidInput("\"command\" is empty");
  if (command.find('/') != std::string::npos) {
    std::string path = command[0] == '/' || cwd.empty() ? command : cwd + "/" + command;
    if (Executable(path)) return path;
    return NotFound("command " + command + " is not an executable file");
  }
  for (const std::string& dir : dirs) {
    std::string path = dir + "/" + command;
    if (Executable(path)) return path;
  }
  return NotFound("command " + command + " not found in " + DescribeDirs(dirs));
}

}  // namespace mcpgw::base
