#include "base/clean_text.h"

#include <algorithm>

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

}  // namespace mcpgw::base
