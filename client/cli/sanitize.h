// Text hygiene for anything the daemon or a remote server sent before it reaches a
// terminal or a JSON writer: control characters and escape sequences are removed, invalid
// UTF-8 is replaced, and long cells are cut to a display width. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::cli {

struct StripOptions {
  // Keep '\n' and '\t' (multi-line results); otherwise they are dropped too.
  bool keep_newlines = false;
};

// Removes C0 controls, DEL, C1 controls (U+0080–U+009F, the UTF-8 encoded form), and whole
// escape sequences (ESC [ ... final, ESC ] ... BEL/ST, DCS/SOS/PM/APC strings, and their
// single-character C1 introducers). Invalid UTF-8 bytes become U+FFFD.
std::string StripControls(std::string_view text, StripOptions options = {});

// Replaces every invalid UTF-8 sequence with U+FFFD; everything else is kept byte for byte.
std::string ValidUtf8(std::string_view text);

// Number of code points (the display width this tool assumes for one line).
size_t DisplayWidth(std::string_view text);

// Cuts text to at most `width` code points, ending in "…" when something was cut.
// width 0 yields the empty string.
std::string Truncate(std::string_view text, size_t width);

// Breaks one line of (stripped) text into lines of at most `width` code points, at spaces;
// a word longer than a line is cut. Runs of spaces at a break are dropped. width 0 means no
// limit: the text comes back as one line. Never returns an empty vector.
std::vector<std::string> Wrap(std::string_view text, size_t width);

}  // namespace mcpgw::cli
