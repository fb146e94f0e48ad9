#include "client/setup/command_paths.h"

#include <chrono>

#include "base/command_path.h"
#include "client/setup/file_io.h"

namespace mcpgw::setup {
namespace {

// As long as the daemon waits for it (BEHAVIOR.md §17): a shell slower than
// that finds nothing for the daemon either.
constexpr auto kLoginShellTimeout = std::chrono::milliseconds(3000);
constexpr auto kSystemctlTimeout = std::chrono::milliseconds(2000);

// What `systemctl --user show-environment` prints, "" when it cannot be run, fails or takes
// longer than the timeout (it is then killed).
std::string SystemdUserEnvironment() {
  return base::RunBounded({"systemctl", "--user", "show-environment"}, nullptr, kSystemctlTimeout)
      .value_or("");
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
