// How status shows confinement (BEHAVIOR.md §18): what the kernel offers, and
// for one local server what is confined, what is not enforced, its limits.
// JSON objects for the status writer; paths as configured, with every
// ${env:..} value redacted.
#pragma once

#include <string>

#include "config/config.h"

namespace mcpgw {

// {"landlock_abi", "seccomp", "summary"} for this kernel.
std::string ConfinementSupportJson();

// The server's `confine` as enforced ({"source", "landlock_abi", "read",
// "write", "network", "connect", "ports", "not_enforced", "temp_dir"}), or ""
// when it is not confined.
std::string ConfineStatusJson(const config::LocalServer& server, const std::string& temp_dir);

// {"memory_mb", "open_files", "processes", "not_enforced"}, or "" when the
// entry sets no limit.
std::string LimitsStatusJson(const config::LocalServer& server);

}  // namespace mcpgw
