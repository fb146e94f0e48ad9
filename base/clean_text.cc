#include "base/clean_text.h"

#include <algorithm>
#include <cstring>

#include "base/utf8.h"

namespace mcpgw::base {
namespace {

constexpr char32_t kEsc = 0x1B;
constexpr char32_t kBel = 0x07;

// What the stripper is in the middle of.
enum class State {
  kText,
  kEscape,        // after ESC
  kEscIntermed,   // ESC followed by intermediates (0x20–0x2F), waiting for a final byte
  kCsi,           // control sequence: parameters and intermediates until a final byte
  kString,        // OSC/DCS/SOS/PM/APC body until BEL or ST
  kStringEscape,  // ESC inside a string: '\' ends it (ST)
};

// The state after `cp` in `state`; sets *keep when `cp` is text to keep.
State Step(State state, char32_t cp, bool keep_newlines, bool* keep) {
  *keep = false;
  switch (state) {
    case State::kText:
      if (cp == kEsc) return State::kEscape;
      if (cp == 0x9B) return State::kCsi;
      if (cp == 0x90 || cp == 0x98 || cp == 0x9D || cp == 0x9E || cp == 0x9F) {
        return State::kString;
      }
      if (keep_newlines && (cp == '\n' || cp == '\t')) {
        *keep = true;
      } else {
        *keep = !(cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F));
      }
      return State::kText;
    case State::kEscape:
      if (cp == '[') return State::kCsi;
      if (cp == ']' || cp == 'P' || cp == 'X' || cp == '^' || cp == '_') return State::kString;
      if (cp >= 0x20 && cp <= 0x2F) return State::kEscIntermed;
      if (cp == kEsc) return State::kEscape;
      // A two-character sequence (ESC c, ESC 7, ...) or a stray ESC: drop both.
      return State::kText;
    case State::kEscIntermed:
      return cp < 0x20 || cp > 0x2F ? State::kText : State::kEscIntermed;
    case State::kCsi:
      if (cp >= 0x40 && cp <= 0x7E) return State::kText;
      // Not a valid sequence byte: abandon the sequence, drop this one too.
      if (cp < 0x20 || cp > 0x7E) return cp == kEsc ? State::kEscape : State::kText;
      return State::kCsi;
    case State::kString:
      if (cp == kBel || cp == 0x9C) return State::kText;
      return cp == kEsc ? State::kStringEscape : State::kString;
    case State::kStringEscape:
      return cp == '\\' ? State::kText : State::kString;
  }
  return State::kText;
}

// Appends the stripped `text` to `out` while `out` stays within `max_bytes`;
// false when something had to be left out for that.
bool Strip(std::string_view text, bool keep_newlines, size_t max_bytes, std::string* out) {
  State state = State::kText;
  size_t pos = 0;
  while (pos < text.size()) {
    const char32_t cp = DecodeUtf8(text, &pos);
    bool keep = false;
    state = Step(state, cp, keep_newlines, &keep);
    if (!keep) continue;
    const size_t before = out->size();
    AppendUtf8(cp, out);
    if (out->size() > max_bytes) {
      out->resize(before);
      return false;
    }
  }
  return true;
}

}  // namespace

std::string StripControls(std::string_view text, StripOptions options) {
  std::string out;
  out.reserve(text.size());
  Strip(text, options.keep_newlines, static_cast<size_t>(-1), &out);
  return out;
}

std::string CleanServerText(std::string_view text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 3);
  if (!Strip(text, /*keep_newlines=*/false, max_bytes, &out)) out += "...";
  return out;
}

bool IsInvisible(char32_t cp) {
  return (cp >= 0xE0000 && cp <= 0xE007F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || (cp >= 0x200B && cp <= 0x200F) || cp == 0x2060 ||
         cp == 0xFEFF;
}

size_t RemoveInvisible(std::string& text) {
  // Every invisible character encodes in three or four bytes starting 0xE2,
  // 0xEF or 0xF3: text without those lead bytes is left untouched at once.
  if (text.find_first_of("\xE2\xEF\xF3") == std::string::npos) return 0;
  size_t removed = 0, out = 0;
  for (size_t i = 0; i < text.size();) {
    size_t bad = 0;
    const size_t n = Utf8SequenceAt(text, i, &bad);
    const size_t len = n > 0 ? n : bad;
    bool drop = false;
    if (n >= 3) {
      size_t pos = i;
      drop = IsInvisible(DecodeUtf8(text, &pos));
    }
    if (drop) {
      ++removed;
    } else {
      if (out != i) std::memmove(&text[out], &text[i], len);  // out < i: moves left
      out += len;
    }
    i += len;
  }
  text.resize(out);
  return removed;
}

}  // namespace mcpgw::base
