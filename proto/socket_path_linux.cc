// The default socket path on Linux (socket_path.h): the user's runtime directory.
#include <string>

#include "proto/socket_path.h"

namespace mcpgw::proto {

std::string DefaultSocketPath(const GetEnvFn& get_env, uid_t uid, const IsUserDirFn& is_user_dir) {
  auto value = [&](const char* name) -> std::string {
    const char* v = get_env ? get_env(name) : nullptr;
    return v != nullptr ? std::string(v) : std::string();
  };
  if (std::string explicit_path = value("MCPGW_SOCKET"); !explicit_path.empty()) {
    return explicit_path;
  }
  std::string runtime = value("XDG_RUNTIME_DIR");
  if (!runtime.empty()) {
    while (runtime.size() > 1 && runtime.back() == '/') runtime.pop_back();
    return runtime + "/mcpgw/mcpgw.sock";
  }
  std::string user_runtime = "/run/user/" + std::to_string(uid);
  if (is_user_dir && is_user_dir(user_runtime, uid)) return user_runtime + "/mcpgw/mcpgw.sock";
  return "/tmp/mcpgw-" + std::to_string(uid) + "/mcpgw.sock";
}

}  // namespace mcpgw::proto
