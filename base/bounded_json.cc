#include "base/bounded_json.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "base/json_reader.h"
#include "base/json_stream.h"
#include "base/json_text.h"
#include "base/platform.h"
#include "base/text.h"
#include "base/utf8.h"

namespace mcpgw::base {
namespace {

// Numbers reach the filter as text and are converted there (std::from_chars
// and ParseDouble are exact; RapidJSON 1.1's own full-precision path misreads
// "0e300").
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag |
                                 rapidjson::kParseValidateEncodingFlag |
                                 rapidjson::kParseNumbersAsStringsFlag;
// For text whose UTF-8 was checked before the parse (Utf8ValidPrefix, eight
// ASCII bytes at a time): the reader need not check it again byte by byte.
// Recursive (about 2k instructions a call cheaper than the iterative reader):
// the filter in front of the handler stops it at the depth bound, so its
// stack grows with that bound (at most 1024 levels), never with the text.
// The raw-member finder and the canonical writer stay iterative: they read
// past the bound.
constexpr unsigned kCheckedParseFlags = rapidjson::kParseNumbersAsStringsFlag;
// A frame's numbers are converted by RapidJSON, as Document::Parse does.
constexpr unsigned kCheckedFrameFlags = rapidjson::kParseDefaultFlags;

// The raw input is already validated, so the only ill-formed bytes a decoded
// string can hold come from an escaped lone surrogate: ED followed by A0..BF.
bool DecodedTextIsUtf8(const char* s, size_t n) {
  const void* p = n ? std::memchr(s, 0xED, n) : nullptr;
  while (p != nullptr) {
    const auto* e = static_cast<const char*>(p);
    const size_t i = static_cast<size_t>(e - s);
    if (i + 1 < n && static_cast<unsigned char>(s[i + 1]) >= 0xA0) return false;
    p = std::memchr(e + 1, 0xED, n - i - 1);
  }
  return true;
}

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
  DepthFilter(rapidjson::Document& doc, int max_depth, bool check_text = true)
      : doc_(doc), max_depth_(max_depth), check_text_(check_text) {}

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
    const ParseDoubleResult r = ParseDouble(text, &d);
    if (r == ParseDoubleResult::kOutOfRange) {
      if (Overflows(text)) {
        too_big_ = true;
        return false;
      }
      d = text.front() == '-' ? -0.0 : 0.0;
    } else if (r != ParseDoubleResult::kOk) {
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
  bool CheckText(const char* s, size_t n) {
    if (!check_text_ || DecodedTextIsUtf8(s, n)) return true;
    bad_surrogate_ = true;
    return false;
  }

  rapidjson::Document& doc_;
  int max_depth_;
  bool check_text_;
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

Status InvalidJsonAt(size_t where, std::string_view what) {
  return InvalidInput("invalid JSON at offset " + std::to_string(where) + ": " + std::string(what));
}

// Ok, or the reason for text that is not UTF-8 (as the reader words it).
Status Utf8Failure(std::string_view text) {
  const size_t valid = Utf8ValidPrefix(text);
  if (valid == text.size()) return Status();
  return InvalidJsonAt(valid,
                       rapidjson::GetParseError_En(rapidjson::kParseErrorStringInvalidEncoding));
}

// Why a bounded parse failed, or ok when it did not: the limits' reasons
// first, then the reader's, then bytes after the root value (the reader takes
// a NUL byte for the end of input; anything from there on is trailing).
Status ParseFailure(bool too_deep, bool bad_surrogate, bool too_big,
                    const rapidjson::Reader& reader, size_t offset, size_t size, int max_depth) {
  if (too_deep) return InvalidInput("JSON nested deeper than " + std::to_string(max_depth));
  if (bad_surrogate) return InvalidJsonAt(offset, "unpaired UTF-16 surrogate in a string");
  if (too_big) return InvalidJsonAt(offset, "Number too big to be stored in double.");
  if (reader.HasParseError()) {
    return InvalidJsonAt(reader.GetErrorOffset(),
                         rapidjson::GetParseError_En(reader.GetParseErrorCode()));
  }
  if (offset != size) {
    return InvalidJsonAt(offset, "The document root must not be followed by other values.");
  }
  return Status();
}

}  // namespace

Status ParseBoundedJson(std::string_view text, const JsonLimits& limits, rapidjson::Document& doc) {
  if (text.size() > limits.max_bytes) {
    doc.SetNull();
    return InvalidInput("response exceeds " + DescribeSize(limits.max_bytes));
  }
  if (Status error = Utf8Failure(text); !error.ok()) {
    doc.SetNull();
    return error;
  }
  Status error = WithReader(text.size(), [&](rapidjson::Reader& reader) {
    JsonLocalStream stream(text);
    bool too_deep = false, bad_surrogate = false, too_big = false;
    auto generate = [&](rapidjson::Document& handler) {
      DepthFilter filter(handler, limits.max_depth);
      const bool ok = !reader.Parse<kCheckedParseFlags>(stream, filter).IsError();
      too_deep = filter.too_deep();
      bad_surrogate = filter.bad_surrogate();
      too_big = filter.too_big();
      return ok;
    };
    doc.Populate(generate);
    return ParseFailure(too_deep, bad_surrogate, too_big, reader, stream.Tell(), text.size(),
                        limits.max_depth);
  });
  if (!error.ok()) doc.SetNull();
  return error;
}

FrameParse ParseJsonWithinDepth(std::string_view text, int max_depth, rapidjson::Document& doc) {
  // A UTF-8 byte order mark is skipped, as Document::Parse does.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  const size_t start =
      text.substr(0, kByteOrderMark.size()) == kByteOrderMark ? kByteOrderMark.size() : 0;
  FrameParse outcome;
  if (const size_t valid = Utf8ValidPrefix(text); valid != text.size()) {
    outcome.error = rapidjson::kParseErrorStringInvalidEncoding;
    outcome.offset = valid;
    doc.SetNull();
    return outcome;
  }
  return WithReader(text.size(), [&](rapidjson::Reader& reader) {
    JsonLocalStream stream(text, start);
    auto generate = [&](rapidjson::Document& handler) {
      DepthFilter filter(handler, max_depth, /*check_text=*/false);
      const bool ok = !reader.Parse<kCheckedFrameFlags>(stream, filter).IsError();
      outcome.too_deep = filter.too_deep();
      return ok;
    };
    doc.Populate(generate);
    if (!outcome.too_deep && reader.HasParseError()) {
      outcome.error = reader.GetParseErrorCode();
      outcome.offset = reader.GetErrorOffset();
    }
    if (!outcome.ok()) doc.SetNull();
    return outcome;
  });
}

namespace {

// Counts depth and checks strings; builds nothing.
class Validator : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Validator> {
 public:
  explicit Validator(int max_depth) : max_depth_(max_depth) {}
  bool Default() { return true; }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return true; }
  bool String(const char* s, rapidjson::SizeType n, bool) { return Check(s, n); }
  bool Key(const char* s, rapidjson::SizeType n, bool) { return Check(s, n); }
  bool StartObject() { return Enter(); }
  bool EndObject(rapidjson::SizeType) { return Leave(); }
  bool StartArray() { return Enter(); }
  bool EndArray(rapidjson::SizeType) { return Leave(); }
  bool too_deep = false;
  bool bad_surrogate = false;

 private:
  bool Enter() {
    too_deep = ++depth_ > max_depth_;
    return !too_deep;
  }
  bool Leave() {
    --depth_;
    return true;
  }
  bool Check(const char* s, size_t n) {
    bad_surrogate = !DecodedTextIsUtf8(s, n);
    return !bad_surrogate;
  }
  int max_depth_;
  int depth_ = 0;
};

// Follows `path` from the root object and notes where the value it names
// starts (just after its key) and ends (the offset after its last byte).
class MemberFinder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, MemberFinder> {
 public:
  MemberFinder(rapidjson::MemoryStream& stream, std::initializer_list<std::string_view> path)
      : stream_(stream), path_(path.begin(), path.end()) {}
  bool Default() { return Scalar(); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return Scalar(); }
  bool String(const char*, rapidjson::SizeType, bool) { return Scalar(); }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    // A key of the object at depth d matches path[d-1] when the path so far
    // matched; its value is the target when it is the last name.
    armed_ = matched_ == depth_ - 1 && depth_ - 1 < static_cast<int>(path_.size()) &&
             std::string_view(s, n) == path_[static_cast<size_t>(depth_ - 1)];
    if (armed_) key_end_ = stream_.Tell();
    return true;
  }
  bool StartObject() { return Open(); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(); }
  bool EndArray(rapidjson::SizeType) { return Close(); }
  std::optional<std::pair<size_t, size_t>> found;  // [key end, value end)

 private:
  bool Scalar() {
    if (armed_ && Target()) {
      found.emplace(key_end_, stream_.Tell());
      return false;
    }
    armed_ = false;
    return true;
  }
  bool Open() {
    if (armed_) {
      if (Target()) target_depth_ = depth_ + 1;
      ++matched_;
    }
    armed_ = false;
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    // Containers along the path sit below the root: at most depth_ - 1.
    matched_ = std::min(matched_, std::max(depth_ - 1, 0));
    if (target_depth_ == depth_ + 1) {
      // The iterative reader reports the end before it consumes the bracket.
      const char c = stream_.Peek();
      found.emplace(key_end_, stream_.Tell() + (c == '}' || c == ']' ? 1 : 0));
      return false;
    }
    return true;
  }
  bool Target() const { return matched_ + 1 == static_cast<int>(path_.size()); }

  rapidjson::MemoryStream& stream_;
  std::vector<std::string_view> path_;
  int depth_ = 0;
  int matched_ = 0;  // how many path names the open objects matched
  bool armed_ = false;
  size_t key_end_ = 0;
  int target_depth_ = -1;
};

// RawMember's fast path: a byte scan of text that is already known to be
// well-formed JSON (no decoding, no handler calls). A key with an escape
// would have to be decoded before it can be compared: then the scan answers
// kUnsure and the reader does the work.
enum class Scan { kFound, kMissing, kUnsure };

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t SkipSpace(std::string_view t, size_t i) {
  while (i < t.size() && IsSpace(t[i])) ++i;
  return i;
}

// From an opening quote to just after its closing quote: the first quote
// that an even run of backslashes (none, or escaped backslashes) precedes.
size_t SkipString(std::string_view t, size_t i) {
  const char* const text = t.data();
  const char* const end = text + t.size();
  const char* from = text + i + 1;
  while (from < end) {
    const auto* quote = static_cast<const char*>(std::memchr(from, '"', end - from));
    if (quote == nullptr) break;
    const char* run = quote;
    while (run > from && run[-1] == '\\') --run;
    if ((quote - run) % 2 == 0) return static_cast<size_t>(quote - text) + 1;
    from = quote + 1;
  }
  return t.size();
}

// The bytes a scan through a container stops at.
constexpr std::array<bool, 256> kStructural = [] {
  std::array<bool, 256> is{};
  for (unsigned char c : {'"', '{', '[', '}', ']'}) is[c] = true;
  return is;
}();

// From a value's first byte to just after its last.
size_t SkipValue(std::string_view t, size_t i) {
  if (i >= t.size()) return i;
  if (t[i] == '"') return SkipString(t, i);
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = SkipString(t, i);
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
      ++i;
      while (i < t.size() && !kStructural[static_cast<unsigned char>(t[i])]) ++i;
    }
    return i;
  }
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && !IsSpace(t[i])) ++i;
  return i;
}

// Looks for path[0..n) from the object opening at `i`; a name seen twice is
// followed each time, as the reader's pass does.
Scan ScanMember(std::string_view t, size_t i, const std::string_view* path, size_t n,
                std::string_view* found) {
  i = SkipSpace(t, i + 1);
  while (i < t.size() && t[i] == '"') {
    const size_t key_end = SkipString(t, i);
    const std::string_view key = t.substr(i + 1, key_end - i - 2);
    if (key.find('\\') != std::string_view::npos) return Scan::kUnsure;
    i = SkipSpace(t, key_end);
    if (i >= t.size() || t[i] != ':') return Scan::kUnsure;
    i = SkipSpace(t, i + 1);
    const size_t value_end = SkipValue(t, i);
    if (key == path[0]) {
      if (n == 1) {
        *found = t.substr(i, value_end - i);
        return Scan::kFound;
      }
      if (i < t.size() && t[i] == '{') {
        const Scan inner = ScanMember(t, i, path + 1, n - 1, found);
        if (inner != Scan::kMissing) return inner;
      }
    }
    i = SkipSpace(t, value_end);
    if (i >= t.size() || t[i] != ',') break;
    i = SkipSpace(t, i + 1);
  }
  return Scan::kMissing;
}

}  // namespace

Status ValidateBoundedJson(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return InvalidInput("JSON text exceeds " + DescribeSize(limits.max_bytes));
  }
  if (Status error = Utf8Failure(text); !error.ok()) return error;
  return WithReader(text.size(), [&](rapidjson::Reader& reader) {
    JsonLocalStream stream(text);
    Validator validator(limits.max_depth);
    reader.Parse<kCheckedParseFlags>(stream, validator);
    return ParseFailure(validator.too_deep, validator.bad_surrogate, /*too_big=*/false, reader,
                        stream.Tell(), text.size(), limits.max_depth);
  });
}

std::optional<std::string_view> RawMember(std::string_view text,
                                          std::initializer_list<std::string_view> path) {
  if (path.size() == 0) return std::nullopt;
  const size_t root = SkipSpace(text, 0);
  if (root >= text.size() || text[root] != '{') return std::nullopt;
  std::string_view quick;
  switch (ScanMember(text, root, path.begin(), path.size(), &quick)) {
    case Scan::kFound:
      return quick;
    case Scan::kMissing:
      return std::nullopt;
    case Scan::kUnsure:
      break;
  }
  rapidjson::MemoryStream stream(text.data(), text.size());
  MemberFinder finder(stream, path);
  WithReader(text.size(),
             [&](rapidjson::Reader& reader) { reader.Parse<kParseFlags>(stream, finder); });
  if (!finder.found) return std::nullopt;
  // From the end of the key: skip the separator and whitespace.
  size_t begin = finder.found->first;
  const size_t end = finder.found->second;
  while (begin < end && (text[begin] == ':' || text[begin] == ' ' || text[begin] == '\t' ||
                         text[begin] == '\n' || text[begin] == '\r')) {
    ++begin;
  }
  return text.substr(begin, end - begin);
}

namespace {

bool AppendJson(std::string& out, const rapidjson::Value& value, size_t max_bytes, bool sort_keys);

// An object's members, in byte order of their names when `sort_keys` (equal
// names keep their order), else as they are.
bool AppendObject(std::string& out, const rapidjson::Value& value, size_t max_bytes,
                  bool sort_keys) {
  auto append = [&](const rapidjson::Value::Member& m, bool first) {
    if (!first) out += ',';
    AppendJsonString(&out, std::string_view(m.name.GetString(), m.name.GetStringLength()));
    out += ':';
    return out.size() <= max_bytes && AppendJson(out, m.value, max_bytes, sort_keys);
  };
  out += '{';
  if (sort_keys) {
    std::vector<const rapidjson::Value::Member*> members;
    members.reserve(value.MemberCount());
    for (const auto& m : value.GetObject()) members.push_back(&m);
    std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
             std::string_view(b->name.GetString(), b->name.GetStringLength());
    });
    for (size_t i = 0; i < members.size(); ++i) {
      if (!append(*members[i], i == 0)) return false;
    }
  } else {
    bool first = true;
    for (const auto& m : value.GetObject()) {
      if (!append(m, first)) return false;
      first = false;
    }
  }
  out += '}';
  return true;
}

bool AppendJson(std::string& out, const rapidjson::Value& value, size_t max_bytes, bool sort_keys) {
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
      AppendJsonString(&out, std::string_view(value.GetString(), value.GetStringLength()));
      break;
    case rapidjson::kObjectType:
      if (!AppendObject(out, value, max_bytes, sort_keys)) return false;
      break;
    case rapidjson::kArrayType: {
      out += '[';
      bool first = true;
      for (const auto& e : value.GetArray()) {
        if (!first) out += ',';
        first = false;
        if (out.size() > max_bytes || !AppendJson(out, e, max_bytes, sort_keys)) return false;
      }
      out += ']';
      break;
    }
  }
  return out.size() <= max_bytes;
}

}  // namespace

bool AppendCompactJson(std::string& out, const rapidjson::Value& value, size_t max_bytes) {
  return AppendJson(out, value, max_bytes, /*sort_keys=*/false);
}

namespace {

// Builds the canonical text bottom up as the reader goes: each open object
// or array is a frame; a closed one becomes one text in its parent.
class Canonicalizer : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Canonicalizer> {
 public:
  explicit Canonicalizer(int max_depth) : max_depth_(max_depth) {}
  bool Null() { return Value("null"); }
  bool Bool(bool b) { return Value(b ? "true" : "false"); }
  bool Default() { return false; }  // numbers come as RawNumber: not reached
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return Value(std::string(s, n)); }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (!Check(s, n)) return false;
    std::string text;
    AppendJsonString(&text, std::string_view(s, n));
    return Value(std::move(text));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (!Check(s, n)) return false;
    frames_.back().key.assign(s, n);
    return true;
  }
  bool StartObject() { return Open(true); }
  bool StartArray() { return Open(false); }
  bool EndObject(rapidjson::SizeType) {
    Frame frame = std::move(frames_.back());
    frames_.pop_back();
    std::stable_sort(frame.members.begin(), frame.members.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text = "{";
    for (size_t i = 0; i < frame.members.size(); ++i) {
      if (i > 0) text += ',';
      AppendJsonString(&text, frame.members[i].first);
      text += ':';
      text += frame.members[i].second;
    }
    text += '}';
    return Value(std::move(text));
  }
  bool EndArray(rapidjson::SizeType) {
    Frame frame = std::move(frames_.back());
    frames_.pop_back();
    frame.text += ']';
    return Value(std::move(frame.text));
  }

  std::string root;
  bool too_deep = false;
  bool bad_surrogate = false;

 private:
  struct Frame {
    bool object = false;
    std::string key;                                           // an object's next member's name
    std::vector<std::pair<std::string, std::string>> members;  // an object's: name, value text
    std::string text;                                          // an array's, so far
    bool empty = true;
  };
  bool Open(bool object) {
    if (static_cast<int>(frames_.size()) + 1 > max_depth_) {
      too_deep = true;
      return false;
    }
    frames_.push_back(Frame{object, {}, {}, object ? std::string() : std::string("["), true});
    return true;
  }
  bool Value(std::string text) {
    if (frames_.empty()) {
      root = std::move(text);
    } else if (Frame& f = frames_.back(); f.object) {
      f.members.emplace_back(std::move(f.key), std::move(text));
      f.key.clear();
    } else {
      if (!f.empty) f.text += ',';
      f.empty = false;
      f.text += text;
    }
    return true;
  }
  bool Check(const char* s, size_t n) {
    bad_surrogate = !DecodedTextIsUtf8(s, n);
    return !bad_surrogate;
  }
  int max_depth_;
  std::vector<Frame> frames_;
};

}  // namespace

Result<std::string> CanonicalJsonText(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return InvalidInput("JSON text exceeds " + DescribeSize(limits.max_bytes));
  }
  rapidjson::MemoryStream stream(text.data(), text.size());
  rapidjson::Reader reader;
  Canonicalizer canon(limits.max_depth);
  reader.Parse<kParseFlags>(stream, canon);
  if (Status error = ParseFailure(canon.too_deep, canon.bad_surrogate, /*too_big=*/false, reader,
                                  stream.Tell(), text.size(), limits.max_depth);
      !error.ok()) {
    return error;
  }
  return std::move(canon.root);
}

std::string CanonicalJson(const rapidjson::Value& value) {
  std::string out;
  AppendJson(out, value, static_cast<size_t>(-1), /*sort_keys=*/true);
  return out;
}

std::string ToCompactJson(const rapidjson::Value& value) {
  std::string out;
  AppendCompactJson(out, value);
  return out;
}

}  // namespace mcpgw::base
