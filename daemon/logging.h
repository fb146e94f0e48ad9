// Logging for the daemon: spdlog to stderr, level from --log-level or
// $MCPGW_LOG. Under systemd (JOURNAL_STREAM set) each line carries a <N>
// syslog priority prefix so journald records the level.
#pragma once

#include <string>

namespace mcpgw {

// `level` empty → $MCPGW_LOG → info. An unknown level falls back to info with a warning.
void SetUpLogging(const std::string& level);

}  // namespace mcpgw
