// Logging for the daemon: spdlog to stderr, level from --log-level or
// $MCPGW_LOG. Under systemd (JOURNAL_STREAM set) each line carries a <N>
// syslog priority prefix so journald records the level. Every message passes
// through the current Scrubber (daemon/runtime/scrub.h) before it is formatted, so a
// known secret value never reaches the log, whichever thread logs it.
#pragma once

#include <memory>
#include <string>

#include <spdlog/sinks/sink.h>

namespace mcpgw {

class Scrubber;

// `level` empty → $MCPGW_LOG → info. An unknown level falls back to info with a warning.
void SetUpLogging(const std::string& level);

// Replaces the snapshot every log message is scrubbed with (null: none).
// Any thread; messages being logged meanwhile use the old or the new one.
void SetLogScrubber(std::shared_ptr<const Scrubber> scrubber);

// `text` scrubbed with the current snapshot, for text that is cut before it
// is logged or shown (a cut could split a secret the log's own scrub would
// then not recognise).
std::string ScrubbedForLog(std::string_view text);

// A sink that scrubs each message's text with the current snapshot and hands
// it to `inner`. SetUpLogging wraps stderr with it; tests wrap their own sink.
std::shared_ptr<spdlog::sinks::sink> MakeScrubbingSink(std::shared_ptr<spdlog::sinks::sink> inner);

}  // namespace mcpgw
