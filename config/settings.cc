#include "config/settings.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_text.h"
#include "config/confine.h"
#include "config/settings_table.h"

namespace mcpgw {
namespace {

using rapidjson::Value;

bool IsNumberChar(char c) { return c != '\0' && std::strchr("0123456789+-.eE", c) != nullptr; }

// Where a value's text begins, given where the reader stands when it reports
// the value: just past the token, or (for strings and numbers, which RapidJSON
// reads through a local copy of the stream) still at its start.
size_t ValueStart(std::string_view text, size_t pos, rapidjson::Type type) {
  switch (type) {
    case rapidjson::kObjectType:
    case rapidjson::kArrayType:
      return pos > 0 ? pos - 1 : 0;
    case rapidjson::kStringType: {
      if (pos < text.size() && text[pos] == '"') return pos;
      // `pos - 1` is the closing quote; find the opening one (not escaped).
      for (size_t i = pos > 0 ? pos - 1 : 0; i-- > 0;) {
        if (text[i] != '"') continue;
        size_t slashes = 0;
        while (i > slashes && text[i - 1 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 0) return i;
      }
      return 0;
    }
    case rapidjson::kNumberType: {
      if (pos < text.size() && IsNumberChar(text[pos])) return pos;
      size_t i = pos;
      while (i > 0 && IsNumberChar(text[i - 1])) --i;
      return i;
    }
    case rapidjson::kTrueType:
    case rapidjson::kNullType:
      return pos >= 4 ? pos - 4 : 0;
    case rapidjson::kFalseType:
      return pos >= 5 ? pos - 5 : 0;
  }
  return 0;
}

// A SAX handler in front of the DOM builder that remembers where each value
// starts, by key path ("policy.deny[1]"), so semantic errors can name a line
// and column as precisely as syntax errors do.
class PositionRecorder {
 public:
  PositionRecorder(std::string_view text, rapidjson::StringStream& stream, rapidjson::Document& doc)
      : text_(text), stream_(stream), doc_(doc) {}

  std::map<std::string, size_t> TakePositions() { return std::move(positions_); }

  bool Null() { return Scalar(rapidjson::kNullType) && doc_.Null(); }
  bool Bool(bool b) {
    return Scalar(b ? rapidjson::kTrueType : rapidjson::kFalseType) && doc_.Bool(b);
  }
  bool Int(int i) { return Scalar(rapidjson::kNumberType) && doc_.Int(i); }
  bool Uint(unsigned u) { return Scalar(rapidjson::kNumberType) && doc_.Uint(u); }
  bool Int64(int64_t i) { return Scalar(rapidjson::kNumberType) && doc_.Int64(i); }
  bool Uint64(uint64_t u) { return Scalar(rapidjson::kNumberType) && doc_.Uint64(u); }
  bool Double(double d) { return Scalar(rapidjson::kNumberType) && doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return Scalar(rapidjson::kNumberType) && doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return Scalar(rapidjson::kStringType) && doc_.String(s, n, copy);
  }
  bool StartObject() {
    Record(rapidjson::kObjectType);
    frames_.push_back({false, 0, {}});
    return doc_.StartObject();
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    frames_.back().key.assign(s, n);
    return doc_.Key(s, n, copy);
  }
  bool EndObject(rapidjson::SizeType n) {
    frames_.pop_back();
    Advance();
    return doc_.EndObject(n);
  }
  bool StartArray() {
    Record(rapidjson::kArrayType);
    frames_.push_back({true, 0, {}});
    return doc_.StartArray();
  }
  bool EndArray(rapidjson::SizeType n) {
    frames_.pop_back();
    Advance();
    return doc_.EndArray(n);
  }

 private:
  struct Frame {
    bool array;
    size_t index;
    std::string key;
  };

  bool Scalar(rapidjson::Type type) {
    Record(type);
    Advance();
    return true;
  }
  void Record(rapidjson::Type type) {
    std::string path;
    for (const auto& f : frames_) {
      if (f.array) {
        path += '[' + std::to_string(f.index) + ']';
      } else {
        if (!path.empty()) path += '.';
        path += f.key;
      }
    }
    positions_.emplace(std::move(path), ValueStart(text_, stream_.Tell(), type));
  }
  // A value ended: the next one in an array has the next index.
  void Advance() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string_view text_;
  rapidjson::StringStream& stream_;
  rapidjson::Document& doc_;
  std::vector<Frame> frames_;
  std::map<std::string, size_t> positions_;
};

std::string LineColumn(std::string_view text, size_t offset) {
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Quoted as a JSON string: control characters and quotes escaped.
std::string JsonQuoted(std::string_view s) {
  std::string out;
  base::AppendJsonString(&out, s);
  return out;
}

// Walks the parsed document into Settings through the table of keys
// (settings_table.h), stopping at the first error.
class SettingsReader {
 public:
  SettingsReader(std::string_view text, std::string_view path,
                 std::map<std::string, size_t> positions)
      : text_(text), path_(path), positions_(std::move(positions)) {}

  bool Read(const Value& root, Settings& s) {
    if (!root.IsObject()) return Fail("", "the settings must be a JSON object");
    return ReadObject(root, "", s);
  }

  const std::string& error() const { return error_; }

 private:
  // The members of the top level (`parent` "") or of one of its objects.
  bool ReadObject(const Value& object, const std::string& parent, Settings& s) {
    for (const auto& m : object.GetObject()) {
      const std::string name = m.name.GetString();
      const std::string at = parent.empty() ? name : parent + "." + name;
      if (const SettingKey* key = FindSettingKey(parent, name)) {
        SettingValue value;
        if (!ReadValue(key->rule, m.value, at, value)) return false;
        key->field.set(s, std::move(value));
      } else if (parent.empty() && IsSettingsObject(name)) {
        if (!m.value.IsObject()) return Fail(at, "expected an object");
        if (!ReadObject(m.value, name, s)) return false;
      } else {
        return Fail(
            at, "unknown key " + Quoted(name) + " (known keys: " + KnownSettingKeys(parent) + ")");
      }
    }
    return true;
  }

  bool ReadValue(const SettingRule& rule, const Value& v, const std::string& at,
                 SettingValue& out) {
    switch (rule.type) {
      case SettingType::kWhole:
        return Uint64(v, at, rule.min, rule.max, out.emplace<uint64_t>());
      case SettingType::kPath:
        return AbsolutePath(v, at, rule.empty_means, out.emplace<std::string>());
      case SettingType::kLoopbackAddress:
        return LoopbackAddressText(v, at, out.emplace<std::string>());
      case SettingType::kPatterns:
        return Patterns(v, at, out.emplace<std::vector<std::string>>());
      case SettingType::kNamespacePatterns:
        return NamespacePatterns(v, at, out.emplace<std::vector<std::string>>());
      case SettingType::kUids:
        return Uids(v, at, out.emplace<std::vector<uid_t>>());
      case SettingType::kPinningMode:
        return ReadPinningMode(v, at, out.emplace<PinningMode>());
      case SettingType::kLocalServers:
        return ReadLocalServers(v, at, out.emplace<std::string>());
      case SettingType::kConfine:
        return ReadConfine(v, at, out.emplace<JsonObject>());
      case SettingType::kBool:
        if (!v.IsBool()) return Fail(at, "expected true or false");
        out.emplace<uint64_t>(v.GetBool() ? 1 : 0);
        return true;
    }
    return Fail(at, "a key of no known type");
  }

  bool AbsolutePath(const Value& v, const std::string& at, std::string_view empty_means,
                    std::string& out) {
    if (!String(v, at, out)) return false;
    if (!out.empty() && out.front() != '/') {
      return Fail(at, "expected an absolute path (or \"\" for " + std::string(empty_means) + ")");
    }
    return true;
  }

  bool LoopbackAddressText(const Value& v, const std::string& at, std::string& out) {
    if (!String(v, at, out)) return false;
    if (out.empty()) return true;
    if (auto address = ParseLoopbackListen(out); !address.ok()) return Fail(at, address.message());
    return true;
  }

  bool Patterns(const Value& v, const std::string& at, std::vector<std::string>& out) {
    if (!v.IsArray()) return Fail(at, "expected an array of patterns");
    out.clear();
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      std::string p = at + "[" + std::to_string(i) + "]";
      std::string pattern;
      if (!String(v[i], p, pattern)) return false;
      if (base::Status why = CheckPolicyPattern(pattern); !why.ok()) return Fail(p, why.message());
      out.push_back(std::move(pattern));
    }
    return true;
  }

  // Namespace globs: a policy pattern without a tool part.
  bool NamespacePatterns(const Value& v, const std::string& at, std::vector<std::string>& out) {
    if (!Patterns(v, at, out)) return false;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].find('/') != std::string::npos) {
        return Fail(at + "[" + std::to_string(i) + "]",
                    "expected a namespace pattern (no \"/tool\" part), not " + JsonQuoted(out[i]));
      }
    }
    return true;
  }

  bool ReadLocalServers(const Value& v, const std::string& at, std::string& out) {
    if (!v.IsString()) return Fail(at, "expected \"run\" or \"refuse\"");
    out.assign(v.GetString(), v.GetStringLength());
    if (out == "run" || out == "refuse") return true;
    return Fail(at, "unknown value " + JsonQuoted(out) + "; expected \"run\" or \"refuse\"");
  }

  // The form only: paths are interpolated and checked when the default is
  // applied to an entry.
  bool ReadConfine(const Value& v, const std::string& at, JsonObject& out) {
    out.text.clear();
    if (v.IsNull() || (v.IsBool() && !v.GetBool())) return true;  // no default
    config::Confine confine;
    std::vector<std::string> unused;
    if (base::Status bad = config::ParseConfine(v, at, nullptr, unused, confine); !bad.ok()) {
      // The reason names the member ("local_servers_confine.read[0]: ...").
      Fail(at, "");
      error_.resize(error_.size() - at.size() - 2);
      error_ += bad.message();
      return false;
    }
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    v.Accept(writer);
    out.text.assign(buffer.GetString(), buffer.GetSize());
    return true;
  }

  bool ReadPinningMode(const Value& v, const std::string& at, PinningMode& out) {
    if (!v.IsString()) return Fail(at, "expected \"block\", \"strict\" or \"off\"");
    const std::string_view name(v.GetString(), v.GetStringLength());
    const std::optional<PinningMode> mode = ParsePinningMode(name);
    if (!mode) {
      return Fail(
          at, "unknown value " + JsonQuoted(name) + "; expected \"block\", \"strict\" or \"off\"");
    }
    out = *mode;
    return true;
  }

  bool Uids(const Value& v, const std::string& at, std::vector<uid_t>& out) {
    if (!v.IsArray()) return Fail(at, "expected an array of uids");
    out.clear();
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      std::string p = at + "[" + std::to_string(i) + "]";
      uint64_t uid = 0;
      if (!Uint64(v[i], p, 0, 0xFFFFFFFEu, uid)) return false;
      out.push_back(static_cast<uid_t>(uid));
    }
    return true;
  }

  bool String(const Value& v, const std::string& at, std::string& out) {
    if (!v.IsString()) return Fail(at, "expected a string");
    out.assign(v.GetString(), v.GetStringLength());
    return true;
  }

  bool Uint64(const Value& v, const std::string& at, uint64_t min, uint64_t max, uint64_t& out) {
    if (!v.IsUint64() || v.GetUint64() < min || v.GetUint64() > max) {
      return Fail(
          at, "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
    }
    out = v.GetUint64();
    return true;
  }

  bool Fail(const std::string& at, const std::string& message) {
    size_t offset = 0;
    if (auto it = positions_.find(at); it != positions_.end()) offset = it->second;
    error_ = std::string(path_) + ":" + LineColumn(text_, offset) + ": ";
    if (!at.empty()) error_ += at + ": ";
    error_ += message;
    return false;
  }

  std::string_view text_;
  std::string_view path_;
  std::map<std::string, size_t> positions_;
  std::string error_;
};

}  // namespace

base::Result<Settings> ParseSettings(std::string_view text, std::string_view path) {
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return base::InvalidInput(std::string(path) + ":" + LineColumn(text, nul) +
                              ": invalid JSON: NUL byte");
  }
  // RapidJSON's reader wants a NUL-terminated buffer.
  std::string buffer(text);
  rapidjson::StringStream stream(buffer.c_str());
  rapidjson::Document doc;
  PositionRecorder recorder(buffer, stream, doc);
  rapidjson::Reader reader;
  rapidjson::ParseResult parsed;
  // The recorder feeds the document's own handler; Populate moves the root
  // the handler built into `doc`.
  auto generate = [&](rapidjson::Document&) {
    parsed = reader.Parse<rapidjson::kParseCommentsFlag>(stream, recorder);
    return !parsed.IsError();
  };
  doc.Populate(generate);
  if (parsed.IsError()) {
    return base::InvalidInput(std::string(path) + ":" + LineColumn(buffer, parsed.Offset()) +
                              ": invalid JSON: " + rapidjson::GetParseError_En(parsed.Code()));
  }
  SettingsReader settings_reader(buffer, path, recorder.TakePositions());
  Settings settings;
  if (!settings_reader.Read(doc, settings)) return base::InvalidInput(settings_reader.error());
  return settings;
}

base::Result<LoadedSettings> LoadSettingsFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rbe");
  if (f == nullptr) {
    if (errno == ENOENT) return LoadedSettings{Settings{}, true};
    return base::ErrnoError(path + ": cannot read", errno);
  }
  std::string text;
  char chunk[8192];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) text.append(chunk, n);
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return base::IoError(path + ": cannot read");
  base::Result<Settings> parsed = ParseSettings(text, path);
  if (!parsed.ok()) return std::move(parsed).status();
  return LoadedSettings{std::move(*parsed), false};
}

base::Result<LoopbackAddress> ParseLoopbackListen(std::string_view text) {
  auto fail = [&](std::string why) -> base::Status {
    return base::InvalidInput(JsonQuoted(text) + ": " + why +
                              "; expected \"127.0.0.1:PORT\" or \"[::1]:PORT\" (the metrics are "
                              "served on loopback only)");
  };
  LoopbackAddress address;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return fail("no port after the address");
    }
    address.host = std::string(text.substr(1, close - 1));
    address.ipv6 = true;
    port = text.substr(close + 2);
    in6_addr a6{};
    if (inet_pton(AF_INET6, address.host.c_str(), &a6) != 1) return fail("not an IPv6 address");
    if (!IN6_IS_ADDR_LOOPBACK(&a6)) return fail("not a loopback address");
    address.host = "::1";
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return fail("no port");
    address.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    in_addr a4{};
    if (inet_pton(AF_INET, address.host.c_str(), &a4) != 1) {
      return fail("not an IP address (write 127.0.0.1, not a host name)");
    }
    if ((ntohl(a4.s_addr) >> 24) != 127) return fail("not a loopback address");
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos) {
    return fail("no port number");
  }
  address.port = std::stoi(std::string(port));
  if (address.port > 65535) return fail("a port beyond 65535");
  return address;
}

std::string DefaultSettingsPath(
    const std::function<std::optional<std::string>(std::string_view)>& get_env,
    std::string_view home) {
  if (auto xdg = get_env("XDG_CONFIG_HOME"); xdg && !xdg->empty() && xdg->front() == '/') {
    return *xdg + "/mcpgw/settings.json";
  }
  return std::string(home) + "/.config/mcpgw/settings.json";
}

base::Status CheckPolicyPattern(std::string_view pattern) {
  if (pattern.empty()) return base::InvalidInput("empty pattern");
  const std::string quoted = "pattern " + JsonQuoted(pattern);
  if (pattern.front() == '/') return base::InvalidInput(quoted + " has no namespace part");
  if (pattern.back() == '/') {
    return base::InvalidInput(quoted + " has an empty tool part (use \"ns\" or \"ns/*\")");
  }
  for (char c : pattern) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return base::InvalidInput(quoted + " holds a control character");
    }
  }
  return base::Status();
}

std::string_view PinningModeName(PinningMode mode) {
  switch (mode) {
    case PinningMode::kBlock:
      return "block";
    case PinningMode::kStrict:
      return "strict";
    case PinningMode::kOff:
      return "off";
  }
  return "block";
}

std::optional<PinningMode> ParsePinningMode(std::string_view name) {
  for (PinningMode m : {PinningMode::kBlock, PinningMode::kStrict, PinningMode::kOff}) {
    if (PinningModeName(m) == name) return m;
  }
  return std::nullopt;
}

}  // namespace mcpgw
