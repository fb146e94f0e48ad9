#include "client/cli/status_view.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include <rapidjson/document.h>
#include <rapidjson/encodings.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/clean_text.h"
#include "client/cli/sanitize.h"

namespace mcpgw::cli {
namespace {

using rapidjson::Value;

// Widest a cell may grow before it is cut with "…" (the reason column is sized separately).
constexpr size_t kMaxNamespaceWidth = 32;
constexpr size_t kMaxStatusWidth = 10;
constexpr size_t kMaxNumberWidth = 12;
constexpr size_t kMaxVersionWidth = 32;
constexpr const char* kGap = "  ";
// Where the header block's values start ("settings error: " is the longest label).
constexpr size_t kHeaderLabelWidth = 16;
// A server's detail lines: indented under its row, values in one column.
constexpr std::string_view kDetailIndent = "  ";
constexpr size_t kDetailLabelWidth = 14;

constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kYellow = "\x1b[33m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kReset = "\x1b[0m";

const Value* Member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string String(const Value& object, const char* name, std::string fallback = "-") {
  const Value* v = Member(object, name);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength())
                                       : fallback;
}

std::optional<double> Number(const Value& object, const char* name) {
  const Value* v = Member(object, name);
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  const double d = v->GetDouble();
  if (!std::isfinite(d) || d < 0) return std::nullopt;
  return d;
}

std::string Count(const Value& object, const char* name) {
  const Value* v = Member(object, name);
  if (v == nullptr || !v->IsNumber()) return "-";
  if (v->IsUint64()) return std::to_string(v->GetUint64());
  const double d = v->GetDouble();
  if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d > 1e15) return "-";
  return std::to_string(static_cast<uint64_t>(d));
}

std::string Millis(const Value& object, const char* name) {
  const auto d = Number(object, name);
  if (!d) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", *d);
  return buf;
}

// One rendered cell: the visible text, and how to align and colour it.
struct Cell {
  std::string text;
  bool right = false;
  const char* color = nullptr;
};

std::string Pad(const Cell& cell, size_t width, bool color) {
  const size_t visible = DisplayWidth(cell.text);
  const std::string fill(width > visible ? width - visible : 0, ' ');
  std::string body = cell.text;
  if (color && cell.color != nullptr) body = cell.color + body + kReset;
  return cell.right ? fill + body : body + fill;
}

const char* StatusColor(std::string_view status) {
  if (status == "ready" || status == "replay") return kGreen;
  if (status == "loading") return kYellow;
  if (status == "error") return kRed;
  return nullptr;
}

void RTrim(std::string* s) {
  while (!s->empty() && s->back() == ' ') s->pop_back();
}

// "label:" padded to `label_width`, then the text wrapped to the terminal with every
// further line indented to the text's column.
std::string Labelled(size_t label_width, std::string_view label, const std::string& text,
                     size_t width, const char* color = nullptr) {
  std::string head(label);
  head.resize(std::max(label_width, head.size() + 1), ' ');
  const size_t indent = DisplayWidth(head);
  const size_t room = width > indent ? width - indent : 0;
  std::string out;
  // A terminal too narrow for any text after the label: wrap at the full width instead.
  const std::vector<std::string> lines = Wrap(text, width > 0 && room == 0 ? width : room);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string body = color != nullptr ? color + lines[i] + kReset : lines[i];
    out += (i == 0 ? head : std::string(indent, ' ')) + body;
    RTrim(&out);
    out += "\n";
  }
  return out;
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The strings of the array `key` of `object`.
std::vector<std::string> Strings(const Value& object, const char* key) {
  std::vector<std::string> out;
  if (const Value* a = Member(object, key); a != nullptr && a->IsArray()) {
    for (const Value& v : a->GetArray()) {
      if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
    }
  }
  return out;
}

// `local.confine` and `local.limits` in words (BEHAVIOR.md §18).
void ReadConfinement(const Value& local, ServerRow& row) {
  if (const Value* c = Member(local, "confine"); c != nullptr && c->IsObject()) {
    const std::vector<std::string> read = Strings(*c, "read");
    const std::vector<std::string> write = Strings(*c, "write");
    std::string text = "read " + Plural(read.size(), "path", "paths") + ", write " +
                       Plural(write.size(), "path", "paths") + ", network ";
    const std::string network = String(*c, "network", "");
    if (network == "ports") {
      text += "TCP ports";
      if (const Value* ports = Member(*c, "ports"); ports != nullptr && ports->IsArray()) {
        for (const Value& port : ports->GetArray()) {
          if (port.IsInt()) text += " " + std::to_string(port.GetInt());
        }
      }
    } else {
      text += network;
    }
    if (String(*c, "source", "") == "settings") text += " (the settings default)";
    row.confined = text;
    row.not_enforced = Strings(*c, "not_enforced");
  }
  if (const Value* l = Member(local, "limits"); l != nullptr && l->IsObject()) {
    std::string text;
    auto add = [&](const char* key, const char* one, const char* many, const char* unit) {
      const Value* v = Member(*l, key);
      if (v == nullptr || !v->IsUint64()) return;
      if (!text.empty()) text += ", ";
      text += unit != nullptr ? std::to_string(v->GetUint64()) + unit
                              : Plural(v->GetUint64(), one, many);
    };
    add("memory_mb", "", "", " MB of data a process");
    add("open_files", "open file", "open files", nullptr);
    add("processes", "process", "processes", nullptr);
    row.limits = text;
    for (std::string& gap : Strings(*l, "not_enforced")) row.not_enforced.push_back(std::move(gap));
  }
}

// A local server's lines: its command, its process, and the last lines it wrote on stderr.
template <typename Add>
void LocalDetails(const ServerRow& row, const RenderOptions& options, const Add& add) {
  add("command:", base::StripControls(row.command));
  std::string process = "not running";
  if (row.pid) {
    process = "pid " + std::to_string(static_cast<long long>(*row.pid));
    if (row.uptime_s) {
      process += ", up " + RelativeTime(options.now_unix - *row.uptime_s, options.now_unix);
      const size_t ago = process.rfind(" ago");
      if (ago != std::string::npos) process.erase(ago);
    }
    char mb[32];
    std::snprintf(mb, sizeof mb, "%.1f MB", static_cast<double>(row.rss_bytes) / 1e6);
    process += std::string(", ") + mb + " resident (with its children)";
  }
  process += ", " + std::to_string(row.restarts) + (row.restarts == 1 ? " restart" : " restarts");
  if (row.stdout_skipped > 0) {
    process += ", " + std::to_string(row.stdout_skipped) + " stdout lines skipped (not JSON-RPC)";
  }
  add("process:", process);
  if (!row.confined.empty()) add("confined:", base::StripControls(row.confined));
  if (!row.limits.empty()) add("limits:", base::StripControls(row.limits));
  for (size_t i = 0; i < row.not_enforced.size(); ++i) {
    add(i == 0 ? "not enforced:" : "", base::StripControls(row.not_enforced[i]));
  }
  constexpr size_t kShownStderrLines = 3;
  const size_t first =
      row.stderr_tail.size() > kShownStderrLines ? row.stderr_tail.size() - kShownStderrLines : 0;
  for (size_t i = first; i < row.stderr_tail.size(); ++i) {
    add(i == first ? "stderr:" : "", base::StripControls(row.stderr_tail[i]));
  }
}

// The lines under a server's row: why it is not ready, where it is, what last went wrong.
std::string Details(const ServerRow& row, const RenderOptions& options) {
  std::string out;
  const auto add = [&](std::string_view label, const std::string& text) {
    out += Labelled(kDetailLabelWidth, std::string(kDetailIndent) + std::string(label), text,
                    options.width);
  };
  if (!row.reason.empty()) add("reason:", base::StripControls(row.reason));
  if (!row.url.empty()) {
    std::string url = base::StripControls(row.url);
    std::string how;
    if (!row.protocol_version.empty())
      how = "protocol " + base::StripControls(row.protocol_version);
    if (!row.http_version.empty()) {
      how += (how.empty() ? "" : ", ") + base::StripControls(row.http_version);
    }
    if (!how.empty()) url += " (" + how + ")";
    add("url:", url);
  }
  if (!row.proxy.empty()) add("proxy:", base::StripControls(row.proxy));
  if (row.local) LocalDetails(row, options, add);
  if (row.queued > 0) {
    add("queued:", std::to_string(row.queued) +
                       " waiting for a connection (limits.max_connections_per_server)");
  }
  if (row.pins_changed > 0 || row.pins_new > 0 || !row.pins_error.empty()) {
    std::string pins;
    if (row.pins_changed > 0) pins = std::to_string(row.pins_changed) + " changed";
    if (row.pins_new > 0) {
      pins += (pins.empty() ? "" : ", ") + std::to_string(row.pins_new) + " new";
    }
    if (!pins.empty()) {
      pins += " withheld until approved (\"mcpgw pins " + base::StripControls(row.ns) + "\")";
    }
    if (!row.pins_error.empty()) {
      pins += (pins.empty() ? "" : "; ") + base::StripControls(row.pins_error);
    }
    add("pins:", pins);
  }
  if (!row.last_error.empty()) {
    std::string error = base::StripControls(row.last_error);
    if (row.last_error_unix)
      error += " (" + RelativeTime(*row.last_error_unix, options.now_unix) + ")";
    add("last error:", error);
  }
  return out;
}

// The OAuth block under the table: one line per server that uses OAuth.
std::string RenderOAuth(const StatusView& view, const RenderOptions& options) {
  size_t name_width = 0;
  for (const ServerRow& row : view.servers) {
    if (row.oauth)
      name_width = std::max(
          name_width, DisplayWidth(Truncate(base::StripControls(row.ns), kMaxNamespaceWidth)));
  }
  if (name_width == 0) return "";
  std::string out = "\nOAUTH\n";
  for (const ServerRow& row : view.servers) {
    if (!row.oauth) continue;
    std::string line =
        Pad({Truncate(base::StripControls(row.ns), kMaxNamespaceWidth)}, name_width, false) + kGap +
        base::StripControls(row.oauth_state);
    if (!row.oauth_subject.empty()) line += " as " + base::StripControls(row.oauth_subject);
    if (!row.oauth_scopes.empty()) line += ", scopes " + base::StripControls(row.oauth_scopes);
    if (row.oauth_expires_unix) {
      const double left = *row.oauth_expires_unix - options.now_unix;
      line +=
          left > 0 ? ", token expires in " + HumanDuration(left) : std::string(", token expired");
    }
    if (!row.oauth_error.empty()) line += ": " + base::StripControls(row.oauth_error);
    if (options.width > 0) line = Truncate(line, options.width);
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::optional<StatusView> ParseStatus(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  StatusView view;
  if (const Value* d = Member(doc, "daemon"); d != nullptr && d->IsObject()) {
    view.version = String(*d, "version");
    view.pid = Count(*d, "pid");
    view.uptime_s = Number(*d, "uptime_s");
    view.config = String(*d, "config");
    view.settings = String(*d, "settings", "");
    view.socket = String(*d, "socket");
    view.last_reload_unix = Number(*d, "last_reload_unix");
    view.reload_error = String(*d, "reload_error", "");
    view.settings_error = String(*d, "settings_error", "");
    view.record = String(*d, "record", "");
    view.metrics = String(*d, "metrics", "");
    if (const Value* replay = Member(*d, "replay"); replay != nullptr && replay->IsObject()) {
      view.replay =
          String(*replay, "cassette", "") + " (misses " + String(*replay, "misses", "fail") + ")";
    }
  }
  if (const Value* s = Member(doc, "servers"); s != nullptr && s->IsArray()) {
    for (const Value& server : s->GetArray()) {
      if (!server.IsObject()) continue;
      ServerRow row;
      row.ns = String(server, "namespace");
      row.status = String(server, "status");
      // Ready from the cassette (mcpgwd --replay): no connection behind it.
      if (row.status == "ready" && String(server, "source", "") == "replay") row.status = "replay";
      row.reason = String(server, "reason", "");
      row.proxy = String(server, "proxy", "");
      row.tools = Count(server, "tools");
      row.in_flight = Count(server, "in_flight");
      if (const Value* q = Member(server, "queued"); q != nullptr && q->IsUint64()) {
        row.queued = q->GetUint64();
      }
      row.calls = Count(server, "calls");
      row.errors = Count(server, "errors");
      row.p50_ms = Millis(server, "latency_p50_ms");
      row.since_unix = Number(server, "since_unix");
      row.url = String(server, "url", "");
      row.protocol_version = String(server, "protocol_version", "");
      row.http_version = String(server, "http_version", "");
      row.last_error = String(server, "last_error", "");
      row.last_error_unix = Number(server, "last_error_unix");
      if (const Value* l = Member(server, "local"); l != nullptr && l->IsObject()) {
        const auto count = [&](const char* key) -> uint64_t {
          const Value* v = Member(*l, key);
          return v != nullptr && v->IsUint64() ? v->GetUint64() : 0;
        };
        row.local = true;
        row.command = String(*l, "command", "");
        row.pid = Number(*l, "pid");
        row.uptime_s = Number(*l, "uptime_s");
        row.restarts = count("restarts");
        row.rss_bytes = count("rss_bytes");
        row.stdout_skipped = count("stdout_skipped");
        if (const Value* t = Member(*l, "stderr_tail"); t != nullptr && t->IsArray()) {
          for (const Value& line : t->GetArray()) {
            if (line.IsString())
              row.stderr_tail.emplace_back(line.GetString(), line.GetStringLength());
          }
        }
        ReadConfinement(*l, row);
      }
      if (const Value* o = Member(server, "oauth"); o != nullptr && o->IsObject()) {
        row.oauth = true;
        row.oauth_state = String(*o, "state");
        row.oauth_subject = String(*o, "subject", "");
        row.oauth_scopes = String(*o, "scopes", "");
        row.oauth_expires_unix = Number(*o, "expires_unix");
        row.oauth_error = String(*o, "error", "");
      }
      if (const Value* p = Member(server, "pins"); p != nullptr && p->IsObject()) {
        const auto count = [&](const char* key) -> uint64_t {
          const Value* v = Member(*p, key);
          return v != nullptr && v->IsUint64() ? v->GetUint64() : 0;
        };
        row.pins_changed = count("changed");
        row.pins_new = count("new");
        row.pins_error = String(*p, "error", "");
      }
      view.servers.push_back(std::move(row));
    }
  }
  return view;
}

std::optional<std::string> SafeStatusJson(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError()) return std::nullopt;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::ASCII<>> writer(buffer);
  if (!doc.Accept(writer)) return std::nullopt;
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::vector<std::string> LoadingServers(const StatusView& view) {
  std::vector<std::string> names;
  for (const ServerRow& row : view.servers) {
    if (row.status == "loading") names.push_back(base::StripControls(row.ns));
  }
  return names;
}

std::string HumanDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  const auto s = static_cast<uint64_t>(seconds);
  char buf[64];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(s));
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%llum %llus", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  } else if (s < 86400) {
    std::snprintf(buf, sizeof buf, "%lluh %llum", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s % 3600 / 60));
  } else {
    std::snprintf(buf, sizeof buf, "%llud %lluh", static_cast<unsigned long long>(s / 86400),
                  static_cast<unsigned long long>(s % 86400 / 3600));
  }
  return buf;
}

std::string RelativeTime(double then_unix, double now_unix) {
  const double ago = now_unix - then_unix;
  if (!std::isfinite(ago) || ago < 1) return "just now";
  const auto s = static_cast<uint64_t>(ago);
  const auto n = [](uint64_t v, const char* unit) { return std::to_string(v) + unit + " ago"; };
  if (s < 60) return n(s, "s");
  if (s < 3600) return n(s / 60, "m");
  if (s < 86400) return n(s / 3600, "h");
  return n(s / 86400, "d");
}

bool UseColor(bool stdout_is_tty, const char* no_color_env, const char* term_env) {
  if (!stdout_is_tty) return false;
  if (no_color_env != nullptr && no_color_env[0] != '\0') return false;
  if (term_env != nullptr && std::string_view(term_env) == "dumb") return false;
  return true;
}

std::string RenderStatus(const StatusView& view, const RenderOptions& options) {
  const bool color = options.color;
  std::string out;
  // Header block: one fact per line; values from the daemon are stripped.
  std::string uptime = view.uptime_s ? HumanDuration(*view.uptime_s) : "-";
  out += "mcpgwd " + Truncate(base::StripControls(view.version), kMaxVersionWidth) + "  pid " +
         view.pid + "  up " + uptime + "\n";
  out += Labelled(kHeaderLabelWidth, "config:", base::StripControls(view.config), options.width);
  if (!view.settings.empty()) {
    out +=
        Labelled(kHeaderLabelWidth, "settings:", base::StripControls(view.settings), options.width);
  }
  out += Labelled(kHeaderLabelWidth, "socket:", base::StripControls(view.socket), options.width);
  out += Labelled(kHeaderLabelWidth, "last reload:",
                  view.last_reload_unix ? RelativeTime(*view.last_reload_unix, options.now_unix)
                                        : std::string("never"),
                  options.width);
  for (auto [label, value] :
       {std::pair{"recording:", &view.record}, std::pair{"replaying:", &view.replay},
        std::pair{"metrics:", &view.metrics}}) {
    if (!value->empty()) {
      out += Labelled(kHeaderLabelWidth, label, base::StripControls(*value), options.width);
    }
  }
  if (!view.reload_error.empty()) {
    out += Labelled(kHeaderLabelWidth, "reload error:", base::StripControls(view.reload_error),
                    options.width, color ? kRed : nullptr);
  }
  if (!view.settings_error.empty()) {
    out += Labelled(kHeaderLabelWidth, "settings error:", base::StripControls(view.settings_error),
                    options.width, color ? kRed : nullptr);
  }
  out += "\n";
  if (view.servers.empty()) {
    out += "no servers configured\n";
    return out;
  }

  // Table: the fixed columns; each row's texts follow on lines of their own.
  static const char* kHeaders[] = {"NAMESPACE", "STATUS", "TOOLS",    "IN FLIGHT",
                                   "CALLS",     "ERRORS", "P50 (ms)", "SINCE"};
  constexpr size_t kColumns = sizeof kHeaders / sizeof kHeaders[0];
  std::vector<std::vector<Cell>> rows;
  for (const ServerRow& row : view.servers) {
    const std::string status = Truncate(base::StripControls(row.status), kMaxStatusWidth);
    rows.push_back({
        {Truncate(base::StripControls(row.ns), kMaxNamespaceWidth)},
        {status, false, StatusColor(status)},
        {Truncate(row.tools, kMaxNumberWidth), true},
        {Truncate(row.in_flight, kMaxNumberWidth), true},
        {Truncate(row.calls, kMaxNumberWidth), true},
        {Truncate(row.errors, kMaxNumberWidth), true},
        {Truncate(row.p50_ms, kMaxNumberWidth), true},
        {row.since_unix ? RelativeTime(*row.since_unix, options.now_unix) : "-"},
    });
  }
  std::vector<size_t> widths(kColumns);
  size_t total = 0;
  for (size_t c = 0; c < kColumns; ++c) {
    widths[c] = DisplayWidth(kHeaders[c]);
    for (const auto& row : rows) widths[c] = std::max(widths[c], DisplayWidth(row[c].text));
    total += widths[c] + (c + 1 < kColumns ? std::strlen(kGap) : 0);
  }
  // On a narrow terminal long namespaces give way first, so each row fits on one line.
  if (options.width > 0 && total > options.width) {
    const size_t others = total - widths[0];
    const size_t header = DisplayWidth(kHeaders[0]);
    widths[0] = std::max(header, options.width > others ? options.width - others : 0);
    for (auto& row : rows) row[0].text = Truncate(row[0].text, widths[0]);
  }

  std::string header;
  for (size_t c = 0; c < kColumns; ++c) {
    const bool right = rows.front()[c].right;
    header += Pad({kHeaders[c], right}, widths[c], false) + kGap;
  }
  RTrim(&header);
  out += (color ? kBold + header + kReset : header) + "\n";

  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < kColumns; ++c) line += Pad(rows[r][c], widths[c], color) + kGap;
    RTrim(&line);
    out += line + "\n";
    out += Details(view.servers[r], options);
  }
  out += RenderOAuth(view, options);
  return out;
}

}  // namespace mcpgw::cli
