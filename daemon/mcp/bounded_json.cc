#include "daemon/mcp/bounded_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace mcpgw::mcp {
namespace {

// Numbers reach the filter as text and are converted there (std::from_chars
// is exact; RapidJSON 1.1's own full-precision path misreads "0e300").
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag |
                                 rapidjson::kParseValidateEncodingFlag |
                                 rapidjson::kParseNumbersAsStringsFlag;

// "16 MiB", "64 KiB" or "1000 bytes": how a byte bound reads in an error.
std::string DescribeBytes(size_t n) {
  if (n != 0 && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n != 0 && n % (1u << 10) == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

// The length of the well-formed UTF-8 sequence starting at s[i], or 0 when
// it is ill-formed; then `*skip` is the length of its maximal ill-formed
// subpart (at least 1), which is replaced by a single U+FFFD.
size_t Utf8SequenceAt(std::string_view s, size_t i, size_t* skip) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return 1;
  size_t need;
  unsigned char lower = 0x80, upper = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    if (b == 0xE0) lower = 0xA0;
    if (b == 0xED) upper = 0x9F;  // no UTF-16 surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    if (b == 0xF0) lower = 0x90;
    if (b == 0xF4) upper = 0x8F;  // nothing past U+10FFFF
  } else {
    *skip = 1;
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) {
      *skip = k;
      return 0;
    }
    const auto c = static_cast<unsigned char>(s[i + k]);
    if (c < lower || c > upper) {
      *skip = k;
      return 0;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  return need + 1;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// For a JSON number out of double's range: whether it is too large (rather
// than too small, which reads as zero). The decimal exponent of the leading
// significant digit decides.
bool Overflows(std::string_view number) {
  const size_t e = number.find_first_of("eE");
  long exponent = 0;
  if (e != std::string_view::npos) {
    size_t i = e + 1;
    const bool negative = i < number.size() && number[i] == '-';
    if (i < number.size() && (number[i] == '-' || number[i] == '+')) ++i;
    for (; i < number.size(); ++i) exponent = std::min(exponent * 10 + (number[i] - '0'), 1L << 40);
    if (negative) exponent = -exponent;
  }
  const std::string_view mantissa = number.substr(0, e);
  const size_t dot = std::min(mantissa.find('.'), mantissa.size());
  const size_t first = mantissa.find_first_of("123456789");
  if (first == std::string_view::npos) return false;  // zero
  const long lead =
      first < dot ? static_cast<long>(dot - first) - 1 : -static_cast<long>(first - dot);
  return lead + exponent > 0;
}

// Sits between the reader and the document: counts nesting and stops the
// parse past the bound, so a hostile depth never builds a tree. It also
// refuses strings whose decoded form is not UTF-8 (a lone "\udc00" escape,
// which the reader lets through as a raw surrogate).
class DepthFilter {
 public:
  DepthFilter(rapidjson::Document& doc, int max_depth) : doc_(doc), max_depth_(max_depth) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  // `s` is a number the reader has checked against the JSON grammar.
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    const std::string_view text(s, n);
    if (text.find_first_of(".eE") == std::string_view::npos) {
      // Integers as RapidJSON types them; beyond 64 bits they become doubles.
      if (text.front() == '-') {
        int64_t v;
        if (std::from_chars(s, s + n, v).ec == std::errc()) {
          return v >= INT32_MIN ? doc_.Int(static_cast<int>(v)) : doc_.Int64(v);
        }
      } else {
        uint64_t v;
        if (std::from_chars(s, s + n, v).ec == std::errc()) {
          return v <= UINT32_MAX ? doc_.Uint(static_cast<unsigned>(v)) : doc_.Uint64(v);
        }
      }
    }
    double d = 0;
    const auto r = std::from_chars(s, s + n, d);
    if (r.ec == std::errc::result_out_of_range) {
      if (Overflows(text)) {
        too_big_ = true;
        return false;
      }
      d = text.front() == '-' ? -0.0 : 0.0;
    } else if (r.ec != std::errc() || r.ptr != s + n) {
      too_big_ = true;  // not reached: the grammar was checked
      return false;
    }
    return doc_.Double(d);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return CheckText(s, n) && doc_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    return CheckText(s, n) && doc_.Key(s, n, copy);
  }
  bool StartObject() { return Enter() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    return doc_.EndObject(n);
  }
  bool StartArray() { return Enter() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    return doc_.EndArray(n);
  }

  bool too_deep() const { return too_deep_; }
  bool bad_surrogate() const { return bad_surrogate_; }
  bool too_big() const { return too_big_; }

 private:
  bool Enter() {
    if (++depth_ > max_depth_) {
      too_deep_ = true;
      return false;
    }
    return true;
  }
  // The raw input is already validated, so the only ill-formed bytes a
  // string can hold are an escaped lone low surrogate: ED followed by A0..BF.
  bool CheckText(const char* s, size_t n) {
    const void* p = n ? std::memchr(s, 0xED, n) : nullptr;
    while (p != nullptr) {
      const auto* e = static_cast<const char*>(p);
      const size_t i = static_cast<size_t>(e - s);
      if (i + 1 < n && static_cast<unsigned char>(s[i + 1]) >= 0xA0) {
        bad_surrogate_ = true;
        return false;
      }
      p = std::memchr(e + 1, 0xED, n - i - 1);
    }
    return true;
  }

  rapidjson::Document& doc_;
  int max_depth_;
  int depth_ = 0;
  bool too_deep_ = false;
  bool bad_surrogate_ = false;
  bool too_big_ = false;
};

bool AppendNumber(std::string& out, const rapidjson::Value& v) {
  char buf[64];
  std::to_chars_result r;
  if (v.IsInt()) {
    r = std::to_chars(buf, buf + sizeof buf, v.GetInt());
  } else if (v.IsUint()) {
    r = std::to_chars(buf, buf + sizeof buf, v.GetUint());
  } else if (v.IsInt64()) {
    r = std::to_chars(buf, buf + sizeof buf, v.GetInt64());
  } else if (v.IsUint64()) {
    r = std::to_chars(buf, buf + sizeof buf, v.GetUint64());
  } else {
    const double d = v.GetDouble();
    if (!std::isfinite(d)) {  // not representable in JSON
      out += "null";
      return true;
    }
    r = std::to_chars(buf, buf + sizeof buf, d);
    std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
    out.append(text);
    // Keep a double a double when read back ("3.0", not "3").
    if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
    return true;
  }
  out.append(buf, r.ptr);
  return true;
}

}  // namespace

bool ParseBoundedJson(std::string_view text, const JsonLimits& limits, rapidjson::Document& doc,
                      std::string& error) {
  if (text.size() > limits.max_bytes) {
    error = "response exceeds " + DescribeBytes(limits.max_bytes);
    doc.SetNull();
    return false;
  }
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::Reader reader;
  bool too_deep = false, bad_surrogate = false, too_big = false;
  auto generate = [&](rapidjson::Document& handler) {
    DepthFilter filter(handler, limits.max_depth);
    const bool ok = !reader.Parse<kParseFlags>(stream, filter).IsError();
    too_deep = filter.too_deep();
    bad_surrogate = filter.bad_surrogate();
    too_big = filter.too_big();
    return ok;
  };
  doc.Populate(generate);
  if (too_deep) {
    error = "JSON nested deeper than " + std::to_string(limits.max_depth);
  } else if (bad_surrogate) {
    error = "invalid JSON at offset " + std::to_string(stream.Tell()) +
            ": unpaired UTF-16 surrogate in a string";
  } else if (too_big) {
    error = "invalid JSON at offset " + std::to_string(stream.Tell()) +
            ": Number too big to be stored in double.";
  } else if (reader.HasParseError()) {
    error = "invalid JSON at offset " + std::to_string(reader.GetErrorOffset()) + ": " +
            rapidjson::GetParseError_En(reader.GetParseErrorCode());
  } else if (stream.Tell() != text.size()) {
    // The reader takes a NUL byte for the end of input; anything from there
    // on is trailing garbage.
    error = "invalid JSON at offset " + std::to_string(stream.Tell()) +
            ": The document root must not be followed by other values.";
  } else {
    return true;
  }
  doc.SetNull();
  return false;
}

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + s.size() + 2);
  out += '"';
  size_t run = 0;  // start of the pending run of bytes copied as they are
  size_t i = 0;
  auto flush = [&] { out.append(s.data() + run, i - run); };
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
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          out += "\\u00";
          out += kHex[b >> 4];
          out += kHex[b & 0xF];
      }
      run = ++i;
      continue;
    }
    size_t skip = 0;
    const size_t len = Utf8SequenceAt(s, i, &skip);
    if (len == 0) {
      flush();
      out.append(kReplacement);
      run = i += skip;
    } else if (len == 3 && b == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
      // U+2028 / U+2029 are valid JSON but end lines in JavaScript.
      flush();
      out += s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      run = i += 3;
    } else {
      i += len;
    }
  }
  flush();
  out += '"';
}

bool AppendCompactJson(std::string& out, const rapidjson::Value& value, size_t max_bytes) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      break;
    case rapidjson::kFalseType:
      out += "false";
      break;
    case rapidjson::kTrueType:
      out += "true";
      break;
    case rapidjson::kNumberType:
      AppendNumber(out, value);
      break;
    case rapidjson::kStringType:
      AppendJsonString(out, std::string_view(value.GetString(), value.GetStringLength()));
      break;
    case rapidjson::kObjectType: {
      out += '{';
      bool first = true;
      for (const auto& m : value.GetObject()) {
        if (!first) out += ',';
        first = false;
        AppendJsonString(out, std::string_view(m.name.GetString(), m.name.GetStringLength()));
        out += ':';
        if (out.size() > max_bytes || !AppendCompactJson(out, m.value, max_bytes)) return false;
      }
      out += '}';
      break;
    }
    case rapidjson::kArrayType: {
      out += '[';
      bool first = true;
      for (const auto& e : value.GetArray()) {
        if (!first) out += ',';
        first = false;
        if (out.size() > max_bytes || !AppendCompactJson(out, e, max_bytes)) return false;
      }
      out += ']';
      break;
    }
  }
  return out.size() <= max_bytes;
}

std::string ToCompactJson(const rapidjson::Value& value) {
  std::string out;
  AppendCompactJson(out, value);
  return out;
}

void AppendUtf8Replacing(std::string& out, std::string_view s) {
  size_t run = 0, i = 0;
  while (i < s.size()) {
    size_t skip = 0;
    const size_t len = Utf8SequenceAt(s, i, &skip);
    if (len != 0) {
      i += len;
      continue;
    }
    out.append(s.data() + run, i - run);
    out.append(kReplacement);
    run = i += skip;
  }
  out.append(s.data() + run, i - run);
}

size_t Utf8PrefixWithin(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  size_t n = max_bytes;
  // Back off over continuation bytes (at most three) to a sequence start.
  for (int k = 0; k < 3 && n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80; ++k) --n;
  return n;
}

}  // namespace mcpgw::mcp
