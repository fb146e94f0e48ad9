// Laying out text on a terminal: display widths, cutting a cell to a width, wrapping a line.
// The text is cleaned first with base::StripControls (base/clean_text.h), the same rule the
// daemon applies to server text. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::cli {

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
