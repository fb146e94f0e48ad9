// The default socket path on macOS (socket_path.h): in the user's Application
// Support folder, where the launchd agent has launchd make it
// (packaging/launchd/com.mcpgw.mcpgwd.plist.in, SockPathName).
#include <pwd.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "proto/socket_path.h"

namespace mcpgw::proto {
namespace {

// Under the home folder; tests/service/launchd_plist.py reads this line.
constexpr char kSocketUnderHome[] = "Library/Application Support/mcpgw/mcpgw.sock";

// The home folder the user database gives `uid`: not $HOME, which MCP hosts
// may strip from a server's environment. "" when there is none.
std::string HomeOf(uid_t uid) {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(static_cast<size_t>(size > 0 ? size : 16384));
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr ||
      pw.pw_dir == nullptr || pw.pw_dir[0] != '/') {
    return "";
  }
  std::string home = pw.pw_dir;
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  return home;
}

}  // namespace

std::string DefaultSocketPath(const GetEnvFn& get_env, uid_t uid,
                              const IsUserDirFn& /*is_user_dir*/) {
  const char* explicit_path = get_env ? get_env("MCPGW_SOCKET") : nullptr;
  if (explicit_path != nullptr && explicit_path[0] != '\0') return explicit_path;
  const std::string home = HomeOf(uid);
  if (!home.empty()) return home + "/" + kSocketUnderHome;
  return "/tmp/mcpgw-" + std::to_string(uid) + "/mcpgw.sock";
}

}  // namespace mcpgw::proto
