// The parts of base/platform.h that are the same on every system.
#include "base/platform.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

namespace mcpgw::base {

ParseDoubleResult ParseDouble(std::string_view text, double* out) {
  // strtod skips leading white space, and needs a terminated string.
  if (text.empty() || text.front() == ' ' || (text.front() >= '\t' && text.front() <= '\r')) {
    return ParseDoubleResult::kInvalid;
  }
  if (text.find_first_of(std::string_view("xX\0", 3)) != std::string_view::npos) {
    return ParseDoubleResult::kInvalid;  // hexadecimal, or a NUL strtod would stop at
  }
  // A terminated copy: on the stack for the numbers JSON carries.
  char small[128];
  std::string large;
  const char* s = small;
  if (text.size() < sizeof(small)) {
    std::memcpy(small, text.data(), text.size());
    small[text.size()] = '\0';
  } else {
    large.assign(text);
    s = large.c_str();
  }
  char* end = nullptr;
  const int saved_errno = errno;
  errno = 0;
  const double value = platform_detail::StrtodC(s, &end);
  const int err = errno;
  errno = saved_errno;
  if (end != s + text.size()) return ParseDoubleResult::kInvalid;
  *out = value;
  // ERANGE also comes with an exact subnormal result on some C libraries:
  // only infinity and a zero from a nonzero number are out of range.
  if (err == ERANGE && (std::isinf(value) || value == 0)) return ParseDoubleResult::kOutOfRange;
  return ParseDoubleResult::kOk;
}

}  // namespace mcpgw::base
