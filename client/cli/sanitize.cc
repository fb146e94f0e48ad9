#include "client/cli/sanitize.h"

#include <algorithm>

#include "base/utf8.h"

namespace mcpgw::cli {

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    base::DecodeUtf8(text, &pos);
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
    base::DecodeUtf8(text, &pos);
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
      for (size_t n = 0; n < width; ++n) base::DecodeUtf8(word, &cut);
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
