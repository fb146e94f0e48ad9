#include "config/display.h"

#include <cstdio>

namespace mcpgw::config {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// True when text[i] starts a UTF-8 encoded C1 control (U+0080..U+009F), which
// some terminals act on like an escape sequence.
bool IsC1At(std::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

void AppendUnicodeEscape(std::string& out, unsigned code) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", code);
  out += buf;
}

void AppendEscaped(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    default:
      break;
  }
  if (IsControl(c)) {
    AppendUnicodeEscape(out, c);
    return;
  }
  out += static_cast<char>(c);
}

}  // namespace

bool IsPlainName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (IsControl(c) || c == ' ' || c == '"' || c == '\\' || c == ':' || IsC1At(name, i)) {
      return false;
    }
  }
  return true;
}

std::string JsonQuote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsC1At(text, i)) {
      AppendUnicodeEscape(out, static_cast<unsigned char>(text[++i]));
    } else {
      AppendEscaped(out, static_cast<unsigned char>(text[i]));
    }
  }
  out += '"';
  return out;
}

std::string DisplayName(std::string_view name) {
  if (IsPlainName(name)) return std::string(name);
  return JsonQuote(name);
}

}  // namespace mcpgw::config
