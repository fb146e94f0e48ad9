// SystemParseEnv: the one place the config layer reads the real process
// environment; everything else takes a ParseEnv.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "config/config.h"

namespace mcpgw::config {
namespace {

std::optional<std::string> GetEnv(std::string_view name) {
  std::string key(name);
  if (key.find('\0') != std::string::npos || key.find('=') != std::string::npos) {
    return std::nullopt;
  }
  const char* value = std::getenv(key.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string HomeDirectory() {
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return home;
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size > 0 ? static_cast<size_t>(size) : 16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  return "";
}

}  // namespace

ParseEnv SystemParseEnv() {
  ParseEnv env;
  env.get_env = GetEnv;
  env.home = HomeDirectory();
  env.path_exists = [](const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
  };
  return env;
}

}  // namespace mcpgw::config
