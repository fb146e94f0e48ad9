// ConfigWatch: tells its owner, once a burst of changes settles, that one of
// a few files (mcp.json, settings.json) may have changed on disk: written,
// its mode changed, deleted, or replaced by a new file of its name (editors
// and `mcpgw import` save by renaming a new file over the old one). Other
// files written in the same directory should not wake the daemon at all: a
// log or a tracer's output beside mcp.json would otherwise cost a wake-up per
// write. How it watches is the system's: on Linux (config_watch_linux.cc)
// inotify watches each file for its own changes and its directory only for
// new names, so others' writes wake nothing; on macOS (config_watch_macos.cc)
// libuv's fs_event watches the directories and the names are checked after
// each wake-up. Lives on one libuv loop; made, used and destroyed on that
// loop's thread. The Supervisor owns it and reloads when told.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <uv.h>

#include "daemon/runtime/env.h"

namespace mcpgw {

// How long a burst of changes must be quiet before the owner is told.
inline constexpr auto kReloadDebounce = std::chrono::milliseconds(200);

class ConfigWatch {
 public:
  // `changed` runs on the loop, kReloadDebounce after the last change seen.
  ConfigWatch(Env* env, uv_loop_t* loop, std::function<void()> changed);
  ~ConfigWatch();  // Close()
  ConfigWatch(const ConfigWatch&) = delete;
  ConfigWatch& operator=(const ConfigWatch&) = delete;

  // Watches `paths` (once). The first one's directory must be watchable (a
  // warning says why not); the others are skipped quietly when their
  // directory does not exist (an absent settings directory: SIGHUP still
  // reloads). A file that does not exist yet is watched for from its
  // directory.
  void Watch(const std::vector<std::string>& paths);
  // Stops watching; `changed` never runs after it.
  void Close();

  // How often the system woke the loop for this watch, whatever the cause.
  uint64_t wakeups() const { return wakeups_; }

 private:
  // The watched names of one directory ("dir/" ends in a slash).
  struct Dir {
    std::string path;
    std::vector<std::string> names;
  };
  // `paths` by directory, in order, without the skipped ones.
  static std::vector<Dir> ByDirectory(const std::vector<std::string>& paths);
  // The system's handles; made by Watch, freed once closed (the platform's file).
  struct System;
  void Changed();

  uv_loop_t* loop_;
  std::function<void()> changed_;
  std::unique_ptr<Timer> debounce_;
  System* system_ = nullptr;
  uint64_t wakeups_ = 0;
};

}  // namespace mcpgw
