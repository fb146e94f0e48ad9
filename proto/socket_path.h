// Where mcpgwd listens and where clients connect (BEHAVIOR.md §7), resolved the same
// way at both ends: --socket PATH, else $MCPGW_SOCKET, else the system's default.
// On Linux (socket_path_linux.cc): $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock; without
// XDG_RUNTIME_DIR (MCP hosts strip the environment of the servers they spawn)
// /run/user/<uid>/mcpgw/mcpgw.sock when /run/user/<uid> is the user's own
// runtime directory, else /tmp/mcpgw-<uid>/mcpgw.sock.
// On macOS (socket_path_macos.cc): ~/Library/Application Support/mcpgw/mcpgw.sock,
// the home folder taken from the user database (not $HOME), where the launchd
// agent's socket is; /tmp/mcpgw-<uid>/mcpgw.sock for a user without one.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace mcpgw::proto {

// Reads one environment variable; nullptr when unset. Tests pass a fake.
using GetEnvFn = std::function<const char*(const char* name)>;
// True when `dir` is a directory (not a symlink) owned by `uid` with mode
// 0700: a runtime directory the service manager made for that user. Tests
// pass a fake.
using IsUserDirFn = std::function<bool(const std::string& dir, uid_t uid)>;

// The default socket path for `uid` with environment `get_env` (an empty
// variable counts as unset). `is_user_dir` is asked on Linux only.
std::string DefaultSocketPath(const GetEnvFn& get_env, uid_t uid, const IsUserDirFn& is_user_dir);
// The same with the process environment, geteuid() and the real file system.
std::string DefaultSocketPath();
// `flag` (from --socket) when not empty, else DefaultSocketPath().
std::string ResolveSocketPath(std::string_view flag);

// IsUserDirFn on the real file system (lstat).
bool IsUserRuntimeDir(const std::string& dir, uid_t uid);

// Longest path a Unix socket address can hold (sun_path minus its NUL).
size_t MaxSocketPathLength();
// Ok if `path` can name a Unix socket, else an InvalidInput saying why not.
base::Status CheckSocketPath(std::string_view path);

}  // namespace mcpgw::proto
