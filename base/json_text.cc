#include "base/json_text.h"

#include "base/utf8.h"

namespace mcpgw::base {

void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->reserve(out->size() + s.size() + 2);
  out->push_back('"');
  size_t run = 0;  // start of the pending run of bytes copied as they are
  size_t i = 0;
  auto flush = [&] { out->append(s.data() + run, i - run); };
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\') {
      ++i;
      continue;
    }
    if (b < 0x80) {
      flush();
      switch (b) {
        case '"':
          out->append("\\\"");
          break;
        case '\\':
          out->append("\\\\");
          break;
        case '\n':
          out->append("\\n");
          break;
        case '\r':
          out->append("\\r");
          break;
        case '\t':
          out->append("\\t");
          break;
        case '\b':
          out->append("\\b");
          break;
        case '\f':
          out->append("\\f");
          break;
        default:
          out->append("\\u00");
          out->push_back(kHex[b >> 4]);
          out->push_back(kHex[b & 0xF]);
      }
      run = ++i;
      continue;
    }
    size_t bad = 0;
    const size_t len = Utf8SequenceAt(s, i, &bad);
    if (len == 0) {
      flush();
      out->append(kReplacementUtf8);
      run = i += bad;
    } else if (len == 3 && b == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
      flush();
      out->append(s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029");
      run = i += 3;
    } else {
      i += len;
    }
  }
  flush();
  out->push_back('"');
}

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

}  // namespace mcpgw::base
