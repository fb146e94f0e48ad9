#include "config/display.h"

#include <cstdio>

namespace mcpgw::config {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

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
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", c);
    out += buf;
    return;
  }
  out += static_cast<char>(c);
}

}  // namespace

bool IsPlainName(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name) {
    if (IsControl(c) || c == ' ' || c == '"' || c == '\\' || c == ':') return false;
  }
  return true;
}

std::string JsonQuote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (unsigned char c : text) AppendEscaped(out, c);
  out += '"';
  return out;
}

std::string DisplayName(std::string_view name) {
  if (IsPlainName(name)) return std::string(name);
  return JsonQuote(name);
}

}  // namespace mcpgw::config
