#include "daemon/guard/cassette.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include <rapidjson/document.h>

#include "base/bounded_json.h"
#include "base/json_text.h"
#include "daemon/guard/call_log.h"

namespace mcpgw {
namespace {

// The format's version: a reader refuses a cassette of another.
constexpr int kVersion = 1;
constexpr size_t kMaxShortText = std::numeric_limits<uint16_t>::max();  // a title, a wire name

std::string_view TaskSupportName(mcp::TaskSupport support) {
  switch (support) {
    case mcp::TaskSupport::kOptional:
      return "optional";
    case mcp::TaskSupport::kRequired:
      return "required";
    case mcp::TaskSupport::kForbidden:
      break;
  }
  return "forbidden";
}

void AppendTool(std::string& line, const mcp::Tool& tool) {
  line += "{\"name\":";
  base::AppendJsonString(&line, tool.name);
  if (tool.wire_name != tool.name) {
    line += ",\"wireName\":";
    base::AppendJsonString(&line, tool.wire_name);
  }
  if (!tool.title.empty()) {
    line += ",\"title\":";
    base::AppendJsonString(&line, tool.title);
  }
  line += ",\"description\":";
  base::AppendJsonString(&line, tool.description);
  if (!tool.described) line += ",\"described\":false";
  // Both are compact JSON the session wrote: read back and written again
  // by the same writer, they come out byte for byte the same.
  line += ",\"inputSchema\":";
  line += tool.input_schema_json;
  if (!tool.annotations_json.empty()) {
    line += ",\"annotations\":";
    line += tool.annotations_json;
  }
  if (tool.read_only_hint) line += ",\"readOnlyHint\":true";
  if (tool.task_support != mcp::TaskSupport::kForbidden) {
    line += ",\"taskSupport\":\"";
    line += TaskSupportName(tool.task_support);
    line += '"';
  }
  if (tool.hidden_text_removed) line += ",\"hiddenTextRemoved\":true";
  line += '}';
}

using Value = rapidjson::Value;

std::optional<std::string_view> StringMember(const Value& v, const char* name) {
  auto m = v.FindMember(name);
  if (m == v.MemberEnd() || !m->value.IsString()) return std::nullopt;
  return std::string_view(m->value.GetString(), m->value.GetStringLength());
}

bool BoolMember(const Value& v, const char* name, bool fallback) {
  auto m = v.FindMember(name);
  return m != v.MemberEnd() && m->value.IsBool() ? m->value.GetBool() : fallback;
}

// A tool of a listing line, added to `tools`; an error says what is wrong.
base::Status ReadTool(const Value& v, mcp::ToolList& tools) {
  if (!v.IsObject()) return base::InvalidInput("a tool that is not an object");
  const auto name = StringMember(v, "name");
  const auto description = StringMember(v, "description");
  auto schema = v.FindMember("inputSchema");
  if (!name || name->empty()) return base::InvalidInput("a tool without a name");
  if (!description)
    return base::InvalidInput("tool \"" + std::string(*name) + "\" has no description");
  if (schema == v.MemberEnd() || !schema->value.IsObject()) {
    return base::InvalidInput("tool \"" + std::string(*name) + "\" has no inputSchema object");
  }
  const std::string_view title = StringMember(v, "title").value_or("");
  const std::string_view wire = StringMember(v, "wireName").value_or("");
  if (title.size() > kMaxShortText || wire.size() > kMaxShortText) {
    return base::InvalidInput("tool \"" + std::string(*name) +
                              "\" has a title or wireName over 65535 bytes");
  }
  std::string annotations;
  if (auto a = v.FindMember("annotations"); a != v.MemberEnd() && a->value.IsObject()) {
    base::AppendCompactJson(annotations, a->value);
  }
  mcp::TaskSupport support = mcp::TaskSupport::kForbidden;
  if (auto t = StringMember(v, "taskSupport")) {
    if (*t == "required") support = mcp::TaskSupport::kRequired;
    if (*t == "optional") support = mcp::TaskSupport::kOptional;
  }
  std::string& text = tools.OpenTool(*name, *description);
  base::AppendCompactJson(text, schema->value);
  mcp::ToolExtras extras;
  extras.wire_name = wire;
  extras.hidden_text_removed = BoolMember(v, "hiddenTextRemoved", false);
  extras.title = title;
  extras.annotations_json = annotations;
  extras.described = BoolMember(v, "described", true);
  tools.CloseTool(BoolMember(v, "readOnlyHint", false), support, extras);
  return base::Status();
}

bool KindFromName(std::string_view name, RecordedKind* kind) {
  if (name == "ok") {
    *kind = RecordedKind::kOk;
  } else if (name == "backend") {
    *kind = RecordedKind::kBackend;
  } else if (name == "transport") {
    *kind = RecordedKind::kTransport;
  } else {
    return false;
  }
  return true;
}

bool IsDigest(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string_view RecordedKindName(RecordedKind kind) {
  switch (kind) {
    case RecordedKind::kOk:
      return "ok";
    case RecordedKind::kBackend:
      return "backend";
    case RecordedKind::kTransport:
      break;
  }
  return "transport";
}

std::string FormatHeaderLine() {
  return "{\"type\":\"cassette\",\"version\":" + std::to_string(kVersion) +
         ",\"note\":\"recorded by mcpgwd --record: holds tool results; keep it private\"}";
}

std::string FormatCallLine(const CallLine& call) {
  std::string line = "{\"type\":\"call\",\"time\":\"" + Iso8601Utc(call.time) + "\"";
  line += ",\"digest\":\"" + call.digest + "\"";
  line += ",\"namespace\":";
  base::AppendJsonString(&line, call.ns);
  line += ",\"tool\":";
  base::AppendJsonString(&line, call.tool);
  line += ",\"outcome\":\"";
  line += RecordedKindName(call.outcome.kind);
  line += call.outcome.kind == RecordedKind::kOk ? "\",\"result\":" : "\",\"error\":";
  base::AppendJsonString(&line, call.outcome.text);
  line += ",\"duration_ms\":" + std::to_string(call.duration_ms) + "}";
  return line;
}

std::string FormatListingLine(std::chrono::system_clock::time_point time, std::string_view ns,
                              const mcp::ToolList& tools) {
  std::string line = "{\"type\":\"listing\",\"time\":\"" + Iso8601Utc(time) + "\"";
  line += ",\"namespace\":";
  base::AppendJsonString(&line, ns);
  line += ",\"tools\":[";
  bool first = true;
  for (const mcp::Tool tool : tools) {
    if (!first) line += ',';
    first = false;
    AppendTool(line, tool);
  }
  line += "]}";
  return line;
}

base::Result<Cassette::Loaded> Cassette::Load(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::ErrnoError("cassette " + path + ": cannot open", errno);
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      base::Status error = base::ErrnoError("cassette " + path + ": cannot read", errno);
      ::close(fd);
      return error;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return Parse(text, path);
}

base::Result<Cassette::Loaded> Cassette::Parse(std::string_view text, const std::string& path) {
  Loaded loaded;
  auto cassette = std::make_unique<Cassette>();
  std::map<std::string, mcp::ToolList> listings;
  size_t line_no = 0;
  size_t at = 0;
  while (at < text.size()) {
    ++line_no;
    const size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      loaded.warning = "cassette " + path + ": line " + std::to_string(line_no) +
                       " is cut off (the recording daemon stopped while writing it); loaded the " +
                       std::to_string(line_no - 1) + " whole lines before it";
      break;
    }
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    auto fail = [&](const std::string& what) {
      return base::InvalidInput("cassette " + path + ":" + std::to_string(line_no) + ": " + what);
    };
    if (line.empty()) continue;
    rapidjson::Document doc;
    if (base::Status parsed = base::ParseBoundedJson(line, base::JsonLimits{line.size(), 512}, doc);
        !parsed.ok()) {
      return fail(parsed.message());
    }
    const auto type = doc.IsObject() ? StringMember(doc, "type") : std::nullopt;
    if (!type) return fail("not a cassette line (an object with a \"type\")");
    ++cassette->lines_;
    if (*type == "cassette") {
      auto v = doc.FindMember("version");
      if (v == doc.MemberEnd() || !v->value.IsInt() || v->value.GetInt() != kVersion) {
        return fail("a cassette of another version (this mcpgwd reads version " +
                    std::to_string(kVersion) + ")");
      }
    } else if (*type == "listing") {
      const auto ns = StringMember(doc, "namespace");
      auto tools = doc.FindMember("tools");
      if (!ns || tools == doc.MemberEnd() || !tools->value.IsArray()) {
        return fail("a listing needs \"namespace\" and a \"tools\" array");
      }
      mcp::ToolList list;
      for (const Value& tool : tools->value.GetArray()) {
        if (base::Status read = ReadTool(tool, list); !read.ok()) return fail(read.message());
      }
      list.SortByName();
      list.DropLaterDuplicates();
      list.Shrink();
      listings[std::string(*ns)] = std::move(list);  // the last listing wins
    } else if (*type == "call") {
      const auto digest = StringMember(doc, "digest");
      RecordedKind kind = RecordedKind::kOk;
      if (!digest || !IsDigest(*digest)) return fail("a call needs its \"digest\"");
      if (!KindFromName(StringMember(doc, "outcome").value_or(""), &kind)) {
        return fail("a call's \"outcome\" is ok, backend or transport");
      }
      const auto body = StringMember(doc, kind == RecordedKind::kOk ? "result" : "error");
      if (!body) {
        return fail(kind == RecordedKind::kOk ? "an ok call needs its \"result\" text"
                                              : "a failed call needs its \"error\" message");
      }
      cassette->calls_[std::string(*digest)].outcomes.push_back(
          RecordedCall{kind, std::string(*body)});
      ++cassette->call_lines_;
    } else {
      return fail("unknown line type \"" + std::string(*type) + "\"");
    }
  }
  for (auto& [ns, list] : listings) {
    cassette->listings_[ns] = std::make_shared<const mcp::ToolList>(std::move(list));
  }
  loaded.cassette = std::move(cassette);
  return loaded;
}

std::shared_ptr<const mcp::ToolList> Cassette::Listing(const std::string& ns) const {
  auto it = listings_.find(ns);
  return it == listings_.end() ? nullptr : it->second;
}

std::vector<std::string> Cassette::Namespaces() const {
  std::vector<std::string> names;
  for (const auto& [ns, list] : listings_) names.push_back(ns);
  return names;
}

std::optional<RecordedCall> Cassette::Next(const std::string& digest) {
  auto it = calls_.find(digest);
  if (it == calls_.end() || it->second.outcomes.empty()) return std::nullopt;
  Recordings& r = it->second;
  const RecordedCall& call = r.outcomes[std::min(r.next, r.outcomes.size() - 1)];
  if (r.next < r.outcomes.size()) ++r.next;
  return call;
}

// --- the writer ---

CassetteWriter::~CassetteWriter() {
  if (fd_ >= 0) ::close(fd_);
}

base::Status CassetteWriter::Open(const std::string& path, std::string* notice) {
  path_ = path;
  auto fail = [&](std::string_view what) {
    base::Status error = base::ErrnoError("cassette " + path + ": " + std::string(what), errno);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return error;
  };
  struct stat existing {};
  if (::lstat(path.c_str(), &existing) == 0) {
    if (S_ISLNK(existing.st_mode)) {
      return base::InvalidInput("cassette " + path + ": is a symbolic link");
    }
    if (!S_ISREG(existing.st_mode)) {
      return base::InvalidInput("cassette " + path + ": not a regular file");
    }
  }
  fd_ =
      ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd_ < 0) return fail("cannot open");
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return fail("cannot stat");
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    return base::InvalidInput("cassette " + path + ": not a regular file");
  }
  if ((st.st_mode & 077) != 0 && ::fchmod(fd_, 0600) != 0) return fail("cannot make it private");
  ::fcntl(fd_, F_SETFL, O_APPEND);
  if (st.st_size == 0) return Append(FormatHeaderLine());
  // A last line without its newline was cut off: keep only the whole lines.
  off_t size = st.st_size;
  char last = '\n';
  if (::pread(fd_, &last, 1, size - 1) != 1) return fail("cannot read");
  if (last == '\n') return base::Status();
  char buf[4096];
  off_t keep = 0;
  for (off_t end = size; end > 0 && keep == 0;) {
    const off_t start =
        end > static_cast<off_t>(sizeof buf) ? end - static_cast<off_t>(sizeof buf) : 0;
    const ssize_t n = ::pread(fd_, buf, static_cast<size_t>(end - start), start);
    if (n <= 0) return fail("cannot read");
    for (ssize_t i = n - 1; i >= 0; --i) {
      if (buf[i] == '\n') {
        keep = start + i + 1;
        break;
      }
    }
    end = start;
  }
  if (::ftruncate(fd_, keep) != 0) return fail("cannot cut off its last, partial line");
  if (notice) {
    *notice = "cassette " + path + ": removed its last line, cut off mid-line (" +
              std::to_string(size - keep) + " bytes)";
  }
  if (keep == 0) return Append(FormatHeaderLine());
  return base::Status();
}

base::Status CassetteWriter::Append(std::string_view line) {
  if (fd_ < 0) return base::Status();
  std::string out(line);
  out += '\n';
  size_t written = 0;
  while (written < out.size()) {
    const ssize_t n = ::write(fd_, out.data() + written, out.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (failing_) return base::Status();
      failing_ = true;
      return base::ErrnoError("cassette " + path_ + ": cannot write", errno);
    }
    written += static_cast<size_t>(n);
  }
  failing_ = false;
  return base::Status();
}

}  // namespace mcpgw
