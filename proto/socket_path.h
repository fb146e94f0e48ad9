// Where mcpgwd listens and where clients connect (SPEC §7), resolved the same
// way at both ends: --socket PATH, else $MCPGW_SOCKET, else
// $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock, else /tmp/mcpgw-<uid>/mcpgw.sock.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

namespace mcpgw::proto {

// Reads one environment variable; nullptr when unset. Tests pass a fake.
using GetEnvFn = std::function<const char*(const char* name)>;

// The default socket path for `uid` with environment `get_env` (an empty
// variable counts as unset).
std::string DefaultSocketPath(const GetEnvFn& get_env, uid_t uid);
// The same with the process environment and geteuid().
std::string DefaultSocketPath();
// `flag` (from --socket) when not empty, else DefaultSocketPath().
std::string ResolveSocketPath(std::string_view flag);

// Longest path a Unix socket address can hold (sun_path minus its NUL).
size_t MaxSocketPathLength();
// "" if `path` can name a Unix socket, else a message saying why not.
std::string CheckSocketPath(std::string_view path);

}  // namespace mcpgw::proto
