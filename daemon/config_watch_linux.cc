// Watching the configuration files on Linux (see config_watch.h), with
// inotify on one descriptor the loop polls. Each file is watched itself, for
// a write, a change of mode or links (a chmod, a delete) and its removal or
// move; its directory only for a new name (a file created, or renamed into
// place), checked against the watched names. So a file written beside
// mcp.json wakes nothing (its creation wakes the loop once), where a watch of
// the directory (libuv's fs_event, whose mask is fixed) woke it for every
// write. A file watch follows its inode: whenever the name may stand for
// another one (replaced, deleted, moved, or created), the watch is set again
// on what the name is now.
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include <spdlog/spdlog.h>

#include "daemon/config_watch.h"

namespace mcpgw {
namespace {

constexpr uint32_t kFileEvents =
    IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
constexpr uint32_t kDirEvents = IN_CREATE | IN_MOVED_TO | IN_ONLYDIR;
// After these the name may stand for another inode, or none.
constexpr uint32_t kRenamedEvents = IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED;

}  // namespace

struct ConfigWatch::System {
  struct File {
    std::string path;
    std::string name;
    int dir_wd = -1;
    int wd = -1;  // -1: the file does not exist (or cannot be watched) now
  };

  ConfigWatch* owner = nullptr;
  int fd = -1;
  uv_poll_t poll;
  std::vector<File> files;
  std::vector<int> dir_wds;

  // Watches what `file`'s name stands for now; drops the watch of what it
  // stood for before, unless another watched name shares it.
  void Rearm(File& file) {
    int wd = inotify_add_watch(fd, file.path.c_str(), kFileEvents);
    if (wd < 0) wd = -1;
    const int old = file.wd;
    file.wd = wd;
    if (old < 0 || old == wd) return;
    const bool shared =
        std::any_of(files.begin(), files.end(), [&](const File& f) { return f.wd == old; });
    if (!shared) inotify_rm_watch(fd, old);  // may be gone already (IN_IGNORED)
  }

  void OnEvent(const inotify_event& event) {
    if (event.mask & IN_Q_OVERFLOW) {  // events were lost: anything may have changed
      for (File& file : files) Rearm(file);
      owner->Changed();
      return;
    }
    const bool in_dir = std::find(dir_wds.begin(), dir_wds.end(), event.wd) != dir_wds.end();
    for (File& file : files) {
      if (in_dir) {
        if (file.dir_wd != event.wd || event.len == 0 || file.name != event.name) continue;
        Rearm(file);
        owner->Changed();
      } else if (file.wd == event.wd) {
        if (event.mask & kRenamedEvents) Rearm(file);
        if (event.mask != IN_IGNORED) owner->Changed();
      }
    }
  }

  // Reads every queued event (the descriptor is non-blocking).
  void Drain() {
    alignas(inotify_event) char buffer[4096];
    for (;;) {
      const ssize_t n = read(fd, buffer, sizeof(buffer));
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        return;  // EAGAIN: nothing more
      }
      for (ssize_t at = 0; at < n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
        OnEvent(*event);
        at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      }
    }
  }

  static void Free(uv_handle_t* h) {
    auto* system = static_cast<System*>(h->data);
    close(system->fd);
    delete system;
  }
};

void ConfigWatch::Watch(const std::vector<std::string>& paths) {
  if (system_ != nullptr) return;
  std::vector<Dir> dirs = ByDirectory(paths);
  if (dirs.empty()) return;
  auto system = std::make_unique<System>();
  system->owner = this;
  system->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (system->fd < 0) {
    spdlog::warn("not watching {} for changes: {}", dirs.front().path,
                 uv_strerror(uv_translate_sys_error(errno)));
    return;
  }
  for (const Dir& dir : dirs) {
    const int dir_wd = inotify_add_watch(system->fd, dir.path.c_str(), kDirEvents);
    if (dir_wd < 0) {
      spdlog::warn("not watching {} for changes: {}", dir.path,
                   uv_strerror(uv_translate_sys_error(errno)));
      continue;
    }
    system->dir_wds.push_back(dir_wd);
    for (const std::string& name : dir.names) {
      system->files.push_back(System::File{dir.path + name, name, dir_wd, -1});
    }
  }
  for (System::File& file : system->files) system->Rearm(file);
  if (system->files.empty()) {
    close(system->fd);
    return;
  }
  uv_poll_init(loop_, &system->poll, system->fd);
  system->poll.data = system.get();
  uv_poll_start(&system->poll, UV_READABLE, [](uv_poll_t* h, int status, int) {
    auto* watch = static_cast<System*>(h->data);
    watch->owner->wakeups_++;
    if (status == 0) watch->Drain();
  });
  system_ = system.release();  // freed by its poll handle's close callback
}

void ConfigWatch::Close() {
  if (system_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(&system_->poll), System::Free);
    system_ = nullptr;
  }
  if (debounce_) debounce_->Stop();
}

}  // namespace mcpgw
