// Watching the configuration files on macOS (see config_watch.h): libuv's
// fs_event on each directory, which wakes for every file in it; the names
// are checked after the wake-up. The directories, not the files: editors
// save by renaming a new file over the old one.
#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

#include "daemon/config_watch.h"

namespace mcpgw {

struct ConfigWatch::System {
  // One watched directory; freed by its handle's close callback.
  struct Handle {
    uv_fs_event_t handle;
    ConfigWatch* owner = nullptr;
    Dir dir;

    static void Free(uv_handle_t* h) { delete static_cast<Handle*>(h->data); }
  };
  std::vector<Handle*> handles;
};

void ConfigWatch::Watch(const std::vector<std::string>& paths) {
  if (system_ != nullptr) return;
  system_ = new System;
  for (Dir& dir : ByDirectory(paths)) {
    auto* w = new System::Handle;
    w->owner = this;
    w->dir = std::move(dir);
    uv_fs_event_init(loop_, &w->handle);
    w->handle.data = w;
    auto on_event = [](uv_fs_event_t* h, const char* filename, int, int) {
      auto* watched = static_cast<System::Handle*>(h->data);
      watched->owner->wakeups_++;
      const auto& names = watched->dir.names;
      if (filename && std::find(names.begin(), names.end(), filename) == names.end()) return;
      watched->owner->Changed();
    };
    if (int rc = uv_fs_event_start(&w->handle, on_event, w->dir.path.c_str(), 0); rc != 0) {
      spdlog::warn("not watching {} for changes: {}", w->dir.path, uv_strerror(rc));
      uv_close(reinterpret_cast<uv_handle_t*>(&w->handle), System::Handle::Free);
      continue;
    }
    system_->handles.push_back(w);
  }
}

void ConfigWatch::Close() {
  if (system_ != nullptr) {
    for (System::Handle* w : system_->handles) {
      uv_close(reinterpret_cast<uv_handle_t*>(&w->handle), System::Handle::Free);
    }
    delete system_;
    system_ = nullptr;
  }
  if (debounce_) debounce_->Stop();
}

}  // namespace mcpgw
