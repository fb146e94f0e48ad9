// Text from elsewhere (a remote server, the daemon's answers) made safe to
// show: one rule for reasons and logs in the daemon and for the terminal in
// the CLI, so an escape sequence a server hides in an error message is removed
// the same way wherever it ends up. Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mcpgw::base {

struct StripOptions {
  // Keep '\n' and '\t' (multi-line text); otherwise they are removed too.
  bool keep_newlines = false;
};

// Removes C0 controls, DEL, C1 controls (U+0080..U+009F, the UTF-8 encoded
// form) and whole escape sequences (ESC [ ... final, ESC ] ... BEL/ST,
// DCS/SOS/PM/APC strings, and their single-character C1 introducers). Every
// ill-formed UTF-8 subpart becomes U+FFFD first, so removing a control can
// never join bytes into a new character.
std::string StripControls(std::string_view text, StripOptions options = {});

// Server text fit for one line of a reason or a log: StripControls without
// newlines, cut to at most `max_bytes` on a UTF-8 boundary ("..." appended
// when cut). Reads no further than it writes, so a huge message costs little.
std::string CleanServerText(std::string_view text, size_t max_bytes = 200);

// A character no person sees that can carry instructions to a model: the
// Unicode tag characters (U+E0000..U+E007F), the bidirectional controls
// (U+202A..U+202E, U+2066..U+2069) and the zero-width characters
// (U+200B..U+200F, U+2060, U+FEFF).
bool IsInvisible(char32_t cp);

// Removes every invisible character (IsInvisible) from `text`, in place;
// everything else, ill-formed bytes included, stays as it was. Returns how
// many characters were removed.
size_t RemoveInvisible(std::string& text);

}  // namespace mcpgw::base
