// Process-wide hardening of mcpgwd (BEHAVIOR.md §8): the daemon holds tokens,
// refresh tokens and client secrets in memory, so it makes no core dumps and
// (on Linux) other processes of the same user cannot ptrace it or read its
// memory through /proc. Called once from main, before any secret is loaded.
#pragma once

#include "base/status.h"

namespace mcpgw {

// Ok, or why it could not (the daemon goes on: a warning is logged).
base::Status ForbidCoreDumps();

}  // namespace mcpgw
