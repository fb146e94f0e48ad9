#include "daemon/guard/glob.h"

#include <cstddef>

namespace mcpgw {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the character starting at text[i]: a UTF-8 lead byte and its
// continuation bytes (invalid sequences count one byte at a time).
size_t CharLength(std::string_view text, size_t i) {
  size_t n = 1;
  if (static_cast<unsigned char>(text[i]) >= 0xC0) {
    while (i + n < text.size() && n < 4 &&
           IsContinuation(static_cast<unsigned char>(text[i + n]))) {
      ++n;
    }
  }
  return n;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0;
  size_t t = 0;
  // Where to resume after the most recent `*`: the pattern just past it and
  // the text position it has absorbed up to.
  size_t star_p = std::string_view::npos;
  size_t star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = ++p;
      star_t = t;
    } else if (p < pattern.size() && pattern[p] == '?') {
      ++p;
      t += CharLength(text, t);
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star_p != std::string_view::npos) {
      p = star_p;
      star_t += CharLength(text, star_t);
      t = star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace mcpgw
