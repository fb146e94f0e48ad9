// Small text helpers: sizes and durations as people read them in messages,
// ASCII case-insensitive comparison (HTTP header names, URL schemes, media
// types) and the HTTP token rule. Pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace mcpgw::base {

// "16 MiB", "512 KiB", "100 bytes" when exact in the largest fitting unit,
// else one decimal: "33.5 MiB", "1.5 KiB".
std::string DescribeSize(uint64_t bytes);

// "2 min", "30 s" when whole, else "250 ms".
std::string DescribeDuration(std::chrono::milliseconds d);
template <typename Rep, typename Period>
std::string DescribeDuration(std::chrono::duration<Rep, Period> d) {
  return DescribeDuration(std::chrono::duration_cast<std::chrono::milliseconds>(d));
}

char ToLowerAscii(char c);
std::string ToLowerAscii(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);

// RFC 9110 §5.6.2: tchar is a letter, a digit or one of !#$%&'*+-.^_`|~;
// token = 1*tchar (header names, auth schemes and parameters).
bool IsTchar(char c);
bool IsHttpToken(std::string_view s);

// The media type of a Content-Type value, lower-cased, parameters and blanks
// dropped: "Application/JSON; charset=utf-8" → "application/json".
std::string MediaType(std::string_view content_type);

}  // namespace mcpgw::base
