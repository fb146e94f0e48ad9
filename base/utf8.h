// UTF-8, strictly: the one decoder and validator every layer uses. Well-formed
// means RFC 3629 / Unicode: no overlong forms, no UTF-16 surrogates
// (U+D800..U+DFFF), nothing past U+10FFFF. An ill-formed sequence is replaced
// by one U+FFFD per maximal ill-formed subpart (Unicode's recommended
// practice, which WHATWG's decoder follows). Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mcpgw::base {

inline constexpr char32_t kReplacementChar = 0xFFFD;
inline constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";

// The length (1..4) of the well-formed sequence that starts at s[i], or 0
// when it is ill-formed; then `*bad` (if given) is the length of its maximal
// ill-formed subpart, at least 1. `i` must be < s.size().
size_t Utf8SequenceAt(std::string_view s, size_t i, size_t* bad = nullptr);

// Decodes the code point at s[*pos] and moves *pos past it. An ill-formed
// sequence reads as U+FFFD and *pos moves past its maximal subpart.
char32_t DecodeUtf8(std::string_view s, size_t* pos);

// Appends the UTF-8 encoding of `cp` (a scalar value; anything else is
// written as U+FFFD).
void AppendUtf8(char32_t cp, std::string* out);

bool IsValidUtf8(std::string_view s);

// Where the first ill-formed sequence of `s` starts, or s.size() when there is
// none. ASCII is checked eight bytes at a time.
size_t Utf8ValidPrefix(std::string_view s);

// Appends `s` with every ill-formed subpart replaced by U+FFFD.
void AppendUtf8Replacing(std::string_view s, std::string* out);
std::string Utf8Replacing(std::string_view s);

// The length of the longest prefix of `s` of at most `max_bytes` bytes that
// does not end inside a UTF-8 sequence (for cutting untrusted text short).
size_t Utf8PrefixWithin(std::string_view s, size_t max_bytes);

}  // namespace mcpgw::base
