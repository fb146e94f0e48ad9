#include "client/cli/sanitize.h"

#include <algorithm>
#include <cstdint>

#include "base/utf8.h"

namespace mcpgw::cli {
namespace {

constexpr char32_t kEsc = 0x1B;
constexpr char32_t kBel = 0x07;

// One code point at text[*pos], *pos moved past it; ill-formed UTF-8 reads
// as U+FFFD (base/utf8.h).
char32_t Decode(std::string_view text, size_t* pos) { return base::DecodeUtf8(text, pos); }

void Encode(char32_t cp, std::string* out) { base::AppendUtf8(cp, out); }

// What the stripper is in the middle of.
enum class State {
  kText,
  kEscape,        // after ESC
  kEscIntermed,   // ESC followed by intermediates (0x20–0x2F), waiting for a final byte
  kCsi,           // control sequence: parameters and intermediates until a final byte
  kString,        // OSC/DCS/SOS/PM/APC body until BEL or ST
  kStringEscape,  // ESC inside a string: '\' ends it (ST)
};

}  // namespace

std::string StripControls(std::string_view text, StripOptions options) {
  std::string out;
  out.reserve(text.size());
  State state = State::kText;
  size_t pos = 0;
  while (pos < text.size()) {
    const char32_t cp = Decode(text, &pos);
    switch (state) {
      case State::kText:
        if (cp == kEsc) {
          state = State::kEscape;
        } else if (cp == 0x9B) {
          state = State::kCsi;
        } else if (cp == 0x90 || cp == 0x98 || cp == 0x9D || cp == 0x9E || cp == 0x9F) {
          state = State::kString;
        } else if (options.keep_newlines && (cp == '\n' || cp == '\t')) {
          out.push_back(static_cast<char>(cp));
        } else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
          // Dropped.
        } else {
          Encode(cp, &out);
        }
        break;
      case State::kEscape:
        if (cp == '[') {
          state = State::kCsi;
        } else if (cp == ']' || cp == 'P' || cp == 'X' || cp == '^' || cp == '_') {
          state = State::kString;
        } else if (cp >= 0x20 && cp <= 0x2F) {
          state = State::kEscIntermed;
        } else if (cp == kEsc) {
          state = State::kEscape;
        } else {
          // A two-character sequence (ESC c, ESC 7, ...) or a stray ESC: drop both.
          state = State::kText;
        }
        break;
      case State::kEscIntermed:
        if (cp < 0x20 || cp > 0x2F) state = State::kText;
        break;
      case State::kCsi:
        if (cp >= 0x40 && cp <= 0x7E) {
          state = State::kText;
        } else if (cp < 0x20 || cp > 0x7E) {
          // Not a valid sequence byte: abandon it, drop this one too.
          state = cp == kEsc ? State::kEscape : State::kText;
        }
        break;
      case State::kString:
        if (cp == kBel || cp == 0x9C) {
          state = State::kText;
        } else if (cp == kEsc) {
          state = State::kStringEscape;
        }
        break;
      case State::kStringEscape:
        state = cp == '\\' ? State::kText : State::kString;
        break;
    }
  }
  return out;
}

std::string ValidUtf8(std::string_view text) { return base::Utf8Replacing(text); }

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    Decode(text, &pos);
    ++width;
  }
  return width;
}

std::string Truncate(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return {};
  std::string out;
  size_t pos = 0;
  for (size_t n = 0; n + 1 < width; ++n) {
    const size_t start = pos;
    Decode(text, &pos);
    out.append(text.substr(start, pos - start));
  }
  out += "…";
  return out;
}

std::vector<std::string> Wrap(std::string_view text, size_t width) {
  if (width == 0 || DisplayWidth(text) <= width) return {std::string(text)};
  std::vector<std::string> lines;
  std::string line;
  size_t line_width = 0;
  const auto flush = [&] {
    lines.push_back(line);
    line.clear();
    line_width = 0;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == ' ') {
      ++pos;
      continue;
    }
    const size_t end = std::min(text.find(' ', pos), text.size());
    std::string_view word = text.substr(pos, end - pos);
    pos = end;
    size_t word_width = DisplayWidth(word);
    if (line_width > 0 && line_width + 1 + word_width <= width) {
      line += ' ';
      line += word;
      line_width += 1 + word_width;
      continue;
    }
    if (line_width > 0) flush();
    // The word starts a line; cut it while it is wider than one.
    while (word_width > width) {
      size_t cut = 0;
      for (size_t n = 0; n < width; ++n) Decode(word, &cut);
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
      word_width -= width;
    }
    line = std::string(word);
    line_width = word_width;
  }
  if (line_width > 0 || lines.empty()) flush();
  return lines;
}

}  // namespace mcpgw::cli
