// ConfigWatch: tells its owner, once a burst of changes settles, that one of
// a few files (mcp.json, settings.json) may have changed on disk. It watches
// their directories, not the files: editors save by writing a new file and
// renaming it over the old one. Lives on one libuv loop; made, used and
// destroyed on that loop's thread. The Supervisor owns it and reloads when
// told.
#pragma once

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

  // Watches `paths`. The first must be watchable (a warning says why not);
  // the others are skipped quietly when their directory does not exist (an
  // absent settings directory: SIGHUP still reloads).
  void Watch(const std::vector<std::string>& paths);
  // Stops watching; `changed` never runs after it.
  void Close();

 private:
  struct Dir;
  void Changed();

  uv_loop_t* loop_;
  std::function<void()> changed_;
  std::unique_ptr<Timer> debounce_;
  std::vector<Dir*> dirs_;  // open handles; each freed by its close callback
};

}  // namespace mcpgw
