#include "base/utf8.h"

#include <cstdint>
#include <cstring>

namespace mcpgw::base {

size_t Utf8SequenceAt(std::string_view s, size_t i, size_t* bad) {
  size_t ignored = 0;
  if (bad == nullptr) bad = &ignored;
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return 1;
  size_t need;
  unsigned char lower = 0x80, upper = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    if (b == 0xE0) lower = 0xA0;  // overlong below U+0800
    if (b == 0xED) upper = 0x9F;  // UTF-16 surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    if (b == 0xF0) lower = 0x90;  // overlong below U+10000
    if (b == 0xF4) upper = 0x8F;  // past U+10FFFF
  } else {
    *bad = 1;  // a continuation byte, C0/C1 (always overlong) or F5..FF
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) {
      *bad = k;
      return 0;
    }
    const auto c = static_cast<unsigned char>(s[i + k]);
    if (c < lower || c > upper) {
      *bad = k;
      return 0;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  return need + 1;
}

char32_t DecodeUtf8(std::string_view s, size_t* pos) {
  size_t bad = 0;
  const size_t len = Utf8SequenceAt(s, *pos, &bad);
  if (len == 0) {
    *pos += bad;
    return kReplacementChar;
  }
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[*pos + k]); };
  char32_t cp;
  switch (len) {
    case 1:
      cp = byte(0);
      break;
    case 2:
      cp = (char32_t{byte(0)} & 0x1F) << 6 | (byte(1) & 0x3F);
      break;
    case 3:
      cp = (char32_t{byte(0)} & 0x0F) << 12 | (char32_t{byte(1)} & 0x3F) << 6 | (byte(2) & 0x3F);
      break;
    default:
      cp = (char32_t{byte(0)} & 0x07) << 18 | (char32_t{byte(1)} & 0x3F) << 12 |
           (char32_t{byte(2)} & 0x3F) << 6 | (byte(3) & 0x3F);
  }
  *pos += len;
  return cp;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacementChar;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t Utf8ValidPrefix(std::string_view s) {
  constexpr uint64_t kHighBits = 0x8080808080808080u;
  size_t i = 0;
  while (i < s.size()) {
    // Runs of ASCII, eight bytes at a time.
    uint64_t word;
    while (i + sizeof word <= s.size()) {
      std::memcpy(&word, s.data() + i, sizeof word);
      if ((word & kHighBits) != 0) break;
      i += sizeof word;
    }
    if (i == s.size()) break;
    const size_t len = Utf8SequenceAt(s, i);
    if (len == 0) return i;
    i += len;
  }
  return i;
}

bool IsValidUtf8(std::string_view s) { return Utf8ValidPrefix(s) == s.size(); }

void AppendUtf8Replacing(std::string_view s, std::string* out) {
  size_t run = 0, i = 0;
  while (i < s.size()) {
    size_t bad = 0;
    const size_t len = Utf8SequenceAt(s, i, &bad);
    if (len != 0) {
      i += len;
      continue;
    }
    out->append(s.data() + run, i - run);
    out->append(kReplacementUtf8);
    run = i += bad;
  }
  out->append(s.data() + run, i - run);
}

std::string Utf8Replacing(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  AppendUtf8Replacing(s, &out);
  return out;
}

size_t Utf8PrefixWithin(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  size_t n = max_bytes;
  // Back off over continuation bytes (at most three) to a sequence start.
  for (int k = 0; k < 3 && n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80; ++k) --n;
  return n;
}

}  // namespace mcpgw::base
