#include "client/setup/json_text_map.h"

#include <cstdint>

namespace mcpgw::setup {
namespace {

constexpr int kMaxDepth = 256;

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::optional<JsonSpan> Document() {
    size_t pos = SkipBlank(text_, 0);
    if (text_.substr(pos, 3) == "\xEF\xBB\xBF") pos = SkipBlank(text_, pos + 3);
    JsonSpan root;
    if (!Value(pos, 0, root)) return std::nullopt;
    return root;
  }

 private:
  bool Value(size_t& pos, int depth, JsonSpan& out) {
    if (depth > kMaxDepth || pos >= text_.size()) return false;
    out.begin = pos;
    const char c = text_[pos];
    if (c == '{') {
      out.kind = JsonSpan::Kind::kObject;
      if (!Object(pos, depth, out)) return false;
    } else if (c == '[') {
      out.kind = JsonSpan::Kind::kArray;
      if (!Array(pos, depth, out)) return false;
    } else if (c == '"') {
      std::string ignored;
      if (!String(pos, ignored)) return false;
    } else {
      // A number, true, false or null: up to the next delimiter.
      while (pos < text_.size() && text_[pos] != ',' && text_[pos] != '}' && text_[pos] != ']' &&
             text_[pos] != ' ' && text_[pos] != '\t' && text_[pos] != '\n' && text_[pos] != '\r' &&
             text_[pos] != '/') {
        ++pos;
      }
      if (pos == out.begin) return false;
    }
    out.end = pos;
    return true;
  }

  bool Object(size_t& pos, int depth, JsonSpan& out) {
    ++pos;  // '{'
    for (;;) {
      pos = SkipBlank(text_, pos);
      if (pos >= text_.size()) return false;
      if (text_[pos] == '}') {
        ++pos;
        return true;
      }
      JsonMember member;
      member.key_begin = pos;
      if (text_[pos] != '"' || !String(pos, member.key)) return false;
      pos = SkipBlank(text_, pos);
      if (pos >= text_.size() || text_[pos] != ':') return false;
      pos = SkipBlank(text_, pos + 1);
      member.value = std::make_unique<JsonSpan>();
      if (!Value(pos, depth + 1, *member.value)) return false;
      pos = SkipBlank(text_, pos);
      if (pos < text_.size() && text_[pos] == ',') member.comma = pos++;
      const bool more = member.comma.has_value();
      out.members.push_back(std::move(member));
      if (!more) {
        pos = SkipBlank(text_, pos);
        if (pos >= text_.size() || text_[pos] != '}') return false;
      }
    }
  }

  bool Array(size_t& pos, int depth, JsonSpan& out) {
    ++pos;  // '['
    for (;;) {
      pos = SkipBlank(text_, pos);
      if (pos >= text_.size()) return false;
      if (text_[pos] == ']') {
        ++pos;
        return true;
      }
      auto item = std::make_unique<JsonSpan>();
      if (!Value(pos, depth + 1, *item)) return false;
      out.items.push_back(std::move(item));
      pos = SkipBlank(text_, pos);
      if (pos < text_.size() && text_[pos] == ',') {
        ++pos;
      } else {
        pos = SkipBlank(text_, pos);
        if (pos >= text_.size() || text_[pos] != ']') return false;
      }
    }
  }

  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool Hex4(size_t at, uint32_t& cp) const {
    if (at + 4 > text_.size()) return false;
    cp = 0;
    for (size_t i = at; i < at + 4; ++i) {
      const int h = Hex(text_[i]);
      if (h < 0) return false;
      cp = cp * 16 + static_cast<uint32_t>(h);
    }
    return true;
  }

  // A string starting at pos (its quote); `out` gets its unescaped bytes.
  bool String(size_t& pos, std::string& out) {
    ++pos;
    while (pos < text_.size()) {
      const char c = text_[pos];
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c != '\\') {
        out += c;
        ++pos;
        continue;
      }
      if (pos + 1 >= text_.size()) return false;
      const char e = text_[pos + 1];
      pos += 2;
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(pos, cp)) return false;
          pos += 4;
          uint32_t low = 0;
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos, 2) == "\\u" && Hex4(pos + 2, low) &&
              low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            pos += 6;
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          out += e;
          break;  // \" \\ \/
      }
    }
    return false;
  }

  std::string_view text_;
};

}  // namespace

const JsonMember* JsonSpan::Find(std::string_view key) const {
  const JsonMember* found = nullptr;
  for (const JsonMember& m : members) {
    if (m.key == key) found = &m;
  }
  return found;
}

std::optional<JsonSpan> MapJson(std::string_view text) { return Scanner(text).Document(); }

size_t SkipBlank(std::string_view text, size_t pos) {
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos;
    } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
      const size_t nl = text.find('\n', pos);
      pos = nl == std::string_view::npos ? text.size() : nl + 1;
    } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '*') {
      const size_t close = text.find("*/", pos + 2);
      pos = close == std::string_view::npos ? text.size() : close + 2;
    } else {
      break;
    }
  }
  return pos;
}

}  // namespace mcpgw::setup
