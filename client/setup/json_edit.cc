#include "client/setup/json_edit.h"

#include <optional>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_text.h"
#include "client/setup/json_text_map.h"
#include "config/document.h"

namespace mcpgw::setup {
namespace {

using rapidjson::Value;

// ---- the file's own style ----------------------------------------------------------------

std::string Newline(std::string_view text) {
  return text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
}

size_t LineStart(std::string_view text, size_t pos) {
  const size_t nl = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  return pos == 0 || nl == std::string_view::npos ? 0 : nl + 1;
}

// True when only spaces and tabs stand between the start of pos's line and pos.
bool BlankBefore(std::string_view text, size_t pos) {
  for (size_t i = LineStart(text, pos); i < pos; ++i) {
    if (text[i] != ' ' && text[i] != '\t') return false;
  }
  return true;
}

std::string LineIndent(std::string_view text, size_t pos) {
  const size_t start = LineStart(text, pos);
  size_t end = start;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  return std::string(text.substr(start, end - start));
}

// The indentation one level adds: a tab when members are indented with tabs, else the
// smallest indentation of a line that starts with a key; two spaces when nothing says.
std::string IndentUnit(std::string_view text) {
  size_t smallest = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    size_t i = pos;
    while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i > pos && i < end && text[i] == '"') {
      if (text[pos] == '\t') return "\t";
      if (smallest == 0 || i - pos < smallest) smallest = i - pos;
    }
    pos = end + 1;
  }
  return std::string(smallest == 0 ? 2 : smallest, ' ');
}

// Where the line of `pos` breaks (the offset of its line break, or the end of the text) when
// nothing but blanks or a // comment follows pos on it; nullopt when something else does.
std::optional<size_t> LineBreakAfter(std::string_view text, size_t pos) {
  size_t i = pos;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (text.substr(i, 2) == "//") i = text.find('\n', i);
  if (i == std::string_view::npos || i >= text.size()) return text.size();
  if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') return i;
  if (text[i] == '\n') return i;
  return std::nullopt;
}

// Past the line break at `eol` (as EndOfLine returned it).
size_t PastLineBreak(std::string_view text, size_t eol) {
  if (text.substr(eol, 2) == "\r\n") return eol + 2;
  if (text.substr(eol, 1) == "\n") return eol + 1;
  return eol;
}

// ---- writing a new value ------------------------------------------------------------------

bool IsScalar(const Value& v) { return !v.IsObject() && !v.IsArray(); }

struct Style {
  std::string unit;
  std::string nl;
};

void Write(const Value& v, bool pretty, const Style& style, const std::string& indent,
           std::string& out) {
  if (v.IsString()) {
    base::AppendJsonString(&out, config::StringOf(v));
  } else if (IsScalar(v)) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
    v.Accept(writer);
    out += buf.GetString();
  } else if (v.IsArray()) {
    bool flat = true;
    for (const Value& item : v.GetArray()) flat = flat && IsScalar(item);
    const bool lines = pretty && !flat && !v.Empty();
    out += '[';
    bool first = true;
    for (const Value& item : v.GetArray()) {
      if (!first) out += lines ? "," : ", ";
      if (lines) out += style.nl + indent + style.unit;
      Write(item, pretty, style, indent + style.unit, out);
      first = false;
    }
    if (lines) out += style.nl + indent;
    out += ']';
  } else {
    const bool lines = pretty && !v.ObjectEmpty();
    out += '{';
    bool first = true;
    for (const auto& m : v.GetObject()) {
      if (!first) out += lines ? "," : ", ";
      if (lines) out += style.nl + indent + style.unit;
      base::AppendJsonString(&out, config::StringOf(m.name));
      out += ": ";
      Write(m.value, pretty, style, indent + style.unit, out);
      first = false;
    }
    if (lines) out += style.nl + indent;
    out += '}';
  }
}

std::string MemberText(std::string_view key, const Value& value, bool pretty, const Style& style,
                       const std::string& indent) {
  std::string out;
  base::AppendJsonString(&out, key);
  out += ": ";
  Write(value, pretty, style, indent, out);
  return out;
}

// ---- the edits ---------------------------------------------------------------------------

std::string Splice(std::string_view text, size_t from, size_t to, std::string_view with) {
  std::string out(text.substr(0, from));
  out += with;
  out += text.substr(to);
  return out;
}

std::string InsertMember(std::string_view text, const JsonSpan& object, std::string_view key,
                         const Value& value, const Style& style) {
  if (object.members.empty()) {
    const std::string base = LineIndent(text, object.begin);
    const std::string member = MemberText(key, value, true, style, base + style.unit);
    const size_t inner = object.begin + 1;
    const size_t close = object.end - 1;
    if (SkipBlank(text, inner) == close &&
        text.substr(inner, close - inner).find("/") == std::string_view::npos) {
      return Splice(text, inner, close, style.nl + base + style.unit + member + style.nl + base);
    }
    return Splice(text, inner, inner, style.nl + base + style.unit + member);
  }
  const JsonMember& last = object.members.back();
  if (!BlankBefore(text, last.key_begin)) {  // members written on one line
    const std::string member = MemberText(key, value, false, style, "");
    if (last.comma) return Splice(text, *last.comma + 1, *last.comma + 1, " " + member + ",");
    return Splice(text, last.value->end, last.value->end, ", " + member);
  }
  const std::string indent = LineIndent(text, last.key_begin);
  const std::string member = MemberText(key, value, true, style, indent);
  if (last.comma) {  // the file keeps trailing commas: so does the new member
    const size_t at = LineBreakAfter(text, *last.comma + 1).value_or(*last.comma + 1);
    return Splice(text, at, at, style.nl + indent + member + ",");
  }
  const size_t at = LineBreakAfter(text, last.value->end).value_or(last.value->end);
  std::string out(text.substr(0, last.value->end));
  out += ',';
  out += text.substr(last.value->end, at - last.value->end);
  out += style.nl + indent + member;
  out += text.substr(at);
  return out;
}

bool OnlyBlank(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

std::string RemoveAt(std::string_view text, const JsonSpan& object, size_t index) {
  const JsonMember& m = object.members[index];
  const size_t key = m.key_begin;
  const size_t end = m.comma ? *m.comma + 1 : m.value->end;
  const std::optional<size_t> line_break = LineBreakAfter(text, end);
  const bool own_line = BlankBefore(text, key) && line_break.has_value();
  const size_t eol = line_break.value_or(end);
  if (m.comma || index == 0) {
    if (own_line) return Splice(text, LineStart(text, key), PastLineBreak(text, eol), "");
    size_t to = end;
    while (to < text.size() && (text[to] == ' ' || text[to] == '\t')) ++to;
    return Splice(text, key, to, "");
  }
  // The last member, without a comma of its own: the comma before it goes too.
  const size_t comma = *object.members[index - 1].comma;
  if (own_line) {
    std::string out = Splice(text, LineStart(text, key), PastLineBreak(text, eol), "");
    return Splice(out, comma, comma + 1, "");
  }
  if (OnlyBlank(text.substr(comma + 1, key - comma - 1))) return Splice(text, comma, end, "");
  std::string out = Splice(text, key, end, "");
  return Splice(out, comma, comma + 1, "");
}

// ---- the check ---------------------------------------------------------------------------

base::Status Parse(std::string_view text, rapidjson::Document& doc) {
  if (OnlyBlank(text)) {
    doc.SetObject();
    return base::Status();
  }
  return config::ParseJsonDocument(text, "the file", doc);
}

Value* Walk(rapidjson::Document& doc, const std::vector<std::string>& path, bool create) {
  Value* at = &doc;
  for (const std::string& key : path) {
    if (!at->IsObject()) return nullptr;
    auto it = at->FindMember(rapidjson::StringRef(key.data(), key.size()));
    if (it == at->MemberEnd()) {
      if (!create) return nullptr;
      at->AddMember(
          Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), doc.GetAllocator()),
          Value(rapidjson::kObjectType), doc.GetAllocator());
      at = &(at->MemberEnd() - 1)->value;
    } else {
      at = &it->value;
    }
  }
  return at->IsObject() ? at : nullptr;
}

void RemoveAll(Value& object, std::string_view key) {
  while (object.RemoveMember(rapidjson::StringRef(key.data(), key.size()))) {
  }
}

// Whether `after` holds exactly `before` with the edit made.
bool Intended(std::string_view before, std::string_view after, const std::vector<std::string>& path,
              std::string_view key, const Value* value) {
  rapidjson::Document want, got;
  if (!Parse(before, want).ok() || !Parse(after, got).ok()) return false;
  Value* object = Walk(want, path, value != nullptr);
  if (object == nullptr) return value == nullptr && want == got;
  RemoveAll(*object, key);
  if (value != nullptr) {
    object->AddMember(
        Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), want.GetAllocator()),
        Value(*value, want.GetAllocator()), want.GetAllocator());
  }
  return want == got;
}

base::Status Refused(std::string error) { return base::InvalidInput(std::move(error)); }

base::Result<std::string> Checked(std::string_view before, std::string text,
                                  const std::vector<std::string>& path, std::string_view key,
                                  const Value* value) {
  if (!Intended(before, text, path, key, value)) {
    return Refused("mcpgw could not make this edit without changing something else");
  }
  return text;
}

// {path[from]: {...: {key: value}}}: what a missing part of the path is created as.
Value Nest(const std::vector<std::string>& path, size_t from, std::string_view key,
           const Value& value, rapidjson::Document::AllocatorType& alloc) {
  Value inner(value, alloc);
  Value object(rapidjson::kObjectType);
  object.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc), inner,
                   alloc);
  for (size_t i = path.size(); i-- > from;) {
    Value outer(rapidjson::kObjectType);
    outer.AddMember(Value(path[i].c_str(), alloc), object, alloc);
    object = outer;
  }
  return object;
}

std::string PathText(const std::vector<std::string>& path, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < path.size(); ++i) out += (i ? "." : "") + path[i];
  return out;
}

}  // namespace

base::Result<std::string> SetMember(std::string_view text, const std::vector<std::string>& path,
                                    std::string_view key, const Value& value) {
  rapidjson::Document scratch;
  if (base::Status parsed = Parse(text, scratch); !parsed.ok()) return parsed;
  const Style style{IndentUnit(text), Newline(text)};
  rapidjson::Document nested;
  if (OnlyBlank(text)) {
    std::string out;
    Write(Nest(path, 0, key, value, nested.GetAllocator()), true, style, "", out);
    return Checked(text, out + style.nl, path, key, &value);
  }
  const std::optional<JsonSpan> map = MapJson(text);
  if (!map) return Refused("mcpgw cannot follow this file's structure");
  if (map->kind != JsonSpan::Kind::kObject) return Refused("the top level is not an object");
  const JsonSpan* object = &*map;
  size_t depth = 0;
  for (; depth < path.size(); ++depth) {
    const JsonMember* m = object->Find(path[depth]);
    if (m == nullptr) break;
    if (m->value->kind != JsonSpan::Kind::kObject) {
      return Refused("\"" + PathText(path, depth + 1) + "\" is not an object");
    }
    object = m->value.get();
  }
  if (depth == path.size()) {
    if (const JsonMember* existing = object->Find(key)) {
      const bool pretty = BlankBefore(text, existing->key_begin);
      std::string replacement;
      Write(value, pretty, style, LineIndent(text, existing->key_begin), replacement);
      return Checked(text, Splice(text, existing->value->begin, existing->value->end, replacement),
                     path, key, &value);
    }
    return Checked(text, InsertMember(text, *object, key, value, style), path, key, &value);
  }
  const Value wrapped = Nest(path, depth + 1, key, value, nested.GetAllocator());
  return Checked(text, InsertMember(text, *object, path[depth], wrapped, style), path, key, &value);
}

base::Result<std::string> RemoveMember(std::string_view text, const std::vector<std::string>& path,
                                       std::string_view key) {
  rapidjson::Document scratch;
  if (base::Status parsed = Parse(text, scratch); !parsed.ok()) return parsed;
  std::string out(text);
  for (;;) {
    const std::optional<JsonSpan> map = MapJson(out);
    if (!map) return Refused("mcpgw cannot follow this file's structure");
    const JsonSpan* object = &*map;
    for (const std::string& step : path) {
      const JsonMember* m = object->kind == JsonSpan::Kind::kObject ? object->Find(step) : nullptr;
      object = m == nullptr ? nullptr : m->value.get();
      if (object == nullptr) break;
    }
    if (object == nullptr || object->kind != JsonSpan::Kind::kObject) break;
    size_t index = object->members.size();
    for (size_t i = 0; i < object->members.size(); ++i) {
      if (object->members[i].key == key) index = i;
    }
    if (index == object->members.size()) break;
    out = RemoveAt(out, *object, index);
  }
  return Checked(text, std::move(out), path, key, nullptr);
}

}  // namespace mcpgw::setup
