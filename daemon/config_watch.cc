// Watching the configuration files' directories (see config_watch.h).
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

// One watched directory and the names in it whose change matters.
struct ConfigWatch::Dir {
  uv_fs_event_t handle;
  ConfigWatch* owner = nullptr;
  std::string path;
  std::vector<std::string> names;
};

ConfigWatch::ConfigWatch(Env* env, uv_loop_t* loop, std::function<void()> changed)
    : loop_(loop), changed_(std::move(changed)), debounce_(env->NewTimer()) {}

ConfigWatch::~ConfigWatch() { Close(); }

void ConfigWatch::Watch(const std::vector<std::string>& paths) {
  // mcp.json and settings.json usually share a directory: one watch.
  std::vector<std::unique_ptr<Dir>> wanted;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    auto [dir, name] = SplitPath(paths[i]);
    struct stat dir_stat;
    if (i > 0 && stat(dir.c_str(), &dir_stat) != 0) {
      spdlog::debug("not watching {}: {}", dir, std::strerror(errno));
      continue;
    }
    auto same =
        std::find_if(wanted.begin(), wanted.end(), [&](const auto& w) { return w->path == dir; });
    if (same != wanted.end()) {
      (*same)->names.push_back(name);
      continue;
    }
    auto w = std::make_unique<Dir>();
    w->owner = this;
    w->path = dir;
    w->names.push_back(name);
    wanted.push_back(std::move(w));
  }
  for (auto& w : wanted) {
    uv_fs_event_init(loop_, &w->handle);
    w->handle.data = w.get();
    auto on_event = [](uv_fs_event_t* h, const char* filename, int, int) {
      auto* dir = static_cast<Dir*>(h->data);
      const auto& names = dir->names;
      if (filename && std::find(names.begin(), names.end(), filename) == names.end()) return;
      dir->owner->Changed();
    };
    Dir* dir = w.release();  // freed by its close callback
    if (int rc = uv_fs_event_start(&dir->handle, on_event, dir->path.c_str(), 0); rc != 0) {
      spdlog::warn("not watching {} for changes: {}", dir->path, uv_strerror(rc));
      uv_close(reinterpret_cast<uv_handle_t*>(&dir->handle),
               [](uv_handle_t* h) { delete static_cast<Dir*>(h->data); });
      continue;
    }
    dirs_.push_back(dir);
  }
}

void ConfigWatch::Changed() {
  debounce_->Start(kReloadDebounce, [this] { changed_(); });
}

void ConfigWatch::Close() {
  for (Dir* dir : dirs_) {
    uv_close(reinterpret_cast<uv_handle_t*>(&dir->handle),
             [](uv_handle_t* h) { delete static_cast<Dir*>(h->data); });
  }
  dirs_.clear();
  if (debounce_) debounce_->Stop();
}

}  // namespace mcpgw
