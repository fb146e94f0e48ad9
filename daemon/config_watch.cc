// What the platforms' watches share (see config_watch.h): the grouping of
// the files by directory and the debounce.
#include "daemon/config_watch.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <spdlog/spdlog.h>

namespace mcpgw {
namespace {

// "dir/" and "name" of a path ("./" when it has no slash).
std::pair<std::string, std::string> SplitPath(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return {"./", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

}  // namespace

ConfigWatch::ConfigWatch(Env* env, uv_loop_t* loop, std::function<void()> changed)
    : loop_(loop), changed_(std::move(changed)), debounce_(env->NewTimer()) {}

ConfigWatch::~ConfigWatch() { Close(); }

std::vector<ConfigWatch::Dir> ConfigWatch::ByDirectory(const std::vector<std::string>& paths) {
  // mcp.json and settings.json usually share a directory: one watch.
  std::vector<Dir> dirs;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    auto [dir, name] = SplitPath(paths[i]);
    struct stat dir_stat;
    if (i > 0 && stat(dir.c_str(), &dir_stat) != 0) {
      spdlog::debug("not watching {}: {}", dir, std::strerror(errno));
      continue;
    }
    auto same = std::find_if(dirs.begin(), dirs.end(), [&](const Dir& d) { return d.path == dir; });
    if (same == dirs.end()) same = dirs.insert(dirs.end(), Dir{dir, {}});
    same->names.push_back(name);
  }
  return dirs;
}

void ConfigWatch::Changed() {
  debounce_->Start(kReloadDebounce, [this] { changed_(); });
}

}  // namespace mcpgw
