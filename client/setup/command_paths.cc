#include "client/setup/command_paths.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "base/command_path.h"
#include "client/setup/file_io.h"

extern char** environ;

namespace mcpgw::setup {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kLoginShellTimeout = std::chrono::milliseconds(5000);
constexpr auto kSystemctlTimeout = std::chrono::milliseconds(2000);

// What `systemctl --user show-environment` prints, "" when it cannot be run, fails or takes
// longer than the timeout (it is then killed).
std::string SystemdUserEnvironment() {
  int out[2];
  if (pipe(out) != 0) return "";
  fcntl(out[0], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  std::string program = "systemctl", user = "--user", show = "show-environment";
  char* argv[] = {program.data(), user.data(), show.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, "systemctl", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return "";
  }
  std::string text;
  bool finished = false;
  const Clock::time_point deadline = Clock::now() + kSystemctlTimeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char buf[4096];
    const ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      finished = n == 0;
      break;
    }
    if (text.size() < 1024 * 1024) text.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  return text;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::string PathLine(std::string_view text) {
  std::string found;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.substr(0, 5) != "PATH=") continue;
    std::string_view value = line.substr(5);
    if (value.size() >= 3 && value.substr(0, 2) == "$'" && value.back() == '\'') {
      value = value.substr(2, value.size() - 3);
    } else if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
               value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    found = std::string(value);  // the last line holds, as systemd reads the file
  }
  return found;
}

CommandPaths SystemCommandPaths(const SetupEnv& env) {
  CommandPaths paths;
  const std::string home = env.home;
  paths.login_path = [home] {
    return base::LoginShellPath(base::UserShell(), home, kLoginShellTimeout);
  };
  if (env.platform == Platform::kMacos) {
    paths.service_path = [] { return std::string(kLaunchdPath); };
    return paths;
  }
  const std::string environment_file =
      env.Env("XDG_CONFIG_HOME").value_or(env.home + "/.config") + "/mcpgw/environment";
  paths.service_path = [environment_file] {
    const base::Result<FileText> file = ReadText(environment_file);
    if (file.ok() && file->exists()) {
      if (std::string path = PathLine(file->text); !path.empty()) return path;
    }
    if (std::string path = PathLine(SystemdUserEnvironment()); !path.empty()) return path;
    return std::string(kSystemdUserPath);
  };
  return paths;
}

}  // namespace mcpgw::setup
