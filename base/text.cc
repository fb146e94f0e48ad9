#include "base/text.h"

#include <cstdio>

namespace mcpgw::base {

std::string DescribeSize(uint64_t bytes) {
  struct Unit {
    uint64_t size;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
  for (const Unit& unit : kUnits) {
    if (bytes < unit.size) continue;
    if (bytes % unit.size == 0) return std::to_string(bytes / unit.size) + " " + unit.name;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f %s", static_cast<double>(bytes) / unit.size, unit.name);
    return buf;
  }
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

std::string DescribeDuration(std::chrono::milliseconds d) {
  using std::chrono::minutes;
  using std::chrono::seconds;
  if (d >= minutes(1) && d % minutes(1) == d.zero()) {
    return std::to_string(std::chrono::duration_cast<minutes>(d).count()) + " min";
  }
  if (d >= seconds(1) && d % seconds(1) == d.zero()) {
    return std::to_string(std::chrono::duration_cast<seconds>(d).count()) + " s";
  }
  return std::to_string(d.count()) + " ms";
}

char ToLowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string ToLowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ToLowerAscii(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ToLowerAscii(a[i]) != ToLowerAscii(b[i])) return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

bool IsTchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsHttpToken(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!IsTchar(c)) return false;
  }
  return true;
}

std::string MediaType(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  std::string out;
  out.reserve(content_type.size());
  for (char c : content_type) {
    if (c != ' ' && c != '\t') out += ToLowerAscii(c);
  }
  return out;
}

}  // namespace mcpgw::base
