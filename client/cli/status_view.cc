#include "client/cli/status_view.h"

#include <cmath>
#include <cstdio>

#include <rapidjson/document.h>
#include <rapidjson/encodings.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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
  if (status == "ready") return kGreen;
  if (status == "loading") return kYellow;
  if (status == "error") return kRed;
  return nullptr;
}

void RTrim(std::string* s) {
  while (!s->empty() && s->back() == ' ') s->pop_back();
}

// The OAuth block under the table: one line per server that uses OAuth.
std::string RenderOAuth(const StatusView& view, const RenderOptions& options) {
  size_t name_width = 0;
  for (const ServerRow& row : view.servers) {
    if (row.oauth)
      name_width =
          std::max(name_width, DisplayWidth(Truncate(StripControls(row.ns), kMaxNamespaceWidth)));
  }
  if (name_width == 0) return "";
  std::string out = "\nOAUTH\n";
  for (const ServerRow& row : view.servers) {
    if (!row.oauth) continue;
    std::string line =
        Pad({Truncate(StripControls(row.ns), kMaxNamespaceWidth)}, name_width, false) + kGap +
        StripControls(row.oauth_state);
    if (!row.oauth_subject.empty()) line += " as " + StripControls(row.oauth_subject);
    if (!row.oauth_scopes.empty()) line += ", scopes " + StripControls(row.oauth_scopes);
    if (row.oauth_expires_unix) {
      const double left = *row.oauth_expires_unix - options.now_unix;
      line +=
          left > 0 ? ", token expires in " + HumanDuration(left) : std::string(", token expired");
    }
    if (!row.oauth_error.empty()) line += ": " + StripControls(row.oauth_error);
    if (options.width > 0) line = Truncate(line, options.width);
    out += line + "\n";
  }
  return out;
}

// The proxy block under the table: one line per server reached through a
// proxy (the daemon has already hidden its credentials).
std::string RenderProxies(const StatusView& view, const RenderOptions& options) {
  size_t name_width = 0;
  for (const ServerRow& row : view.servers) {
    if (!row.proxy.empty()) {
      name_width =
          std::max(name_width, DisplayWidth(Truncate(StripControls(row.ns), kMaxNamespaceWidth)));
    }
  }
  if (name_width == 0) return "";
  std::string out = "\nPROXY\n";
  for (const ServerRow& row : view.servers) {
    if (row.proxy.empty()) continue;
    std::string line =
        Pad({Truncate(StripControls(row.ns), kMaxNamespaceWidth)}, name_width, false) + kGap +
        StripControls(row.proxy);
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
    view.socket = String(*d, "socket");
    view.last_reload_unix = Number(*d, "last_reload_unix");
    view.reload_error = String(*d, "reload_error", "");
  }
  if (const Value* s = Member(doc, "servers"); s != nullptr && s->IsArray()) {
    for (const Value& server : s->GetArray()) {
      if (!server.IsObject()) continue;
      ServerRow row;
      row.ns = String(server, "namespace");
      row.status = String(server, "status");
      row.reason = String(server, "reason", "");
      row.proxy = String(server, "proxy", "");
      row.tools = Count(server, "tools");
      row.in_flight = Count(server, "in_flight");
      row.calls = Count(server, "calls");
      row.errors = Count(server, "errors");
      row.p50_ms = Millis(server, "latency_p50_ms");
      row.since_unix = Number(server, "since_unix");
      if (const Value* o = Member(server, "oauth"); o != nullptr && o->IsObject()) {
        row.oauth = true;
        row.oauth_state = String(*o, "state");
        row.oauth_subject = String(*o, "subject", "");
        row.oauth_scopes = String(*o, "scopes", "");
        row.oauth_expires_unix = Number(*o, "expires_unix");
        row.oauth_error = String(*o, "error", "");
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
    if (row.status == "loading") names.push_back(StripControls(row.ns));
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
  out += "mcpgwd " + Truncate(StripControls(view.version), kMaxVersionWidth) + "  pid " + view.pid +
         "  up " + uptime + "\n";
  out += "config:       " + StripControls(view.config) + "\n";
  out += "socket:       " + StripControls(view.socket) + "\n";
  out += "last reload:  " +
         (view.last_reload_unix ? RelativeTime(*view.last_reload_unix, options.now_unix)
                                : std::string("never")) +
         "\n";
  if (!view.reload_error.empty()) {
    constexpr std::string_view kLabel = "reload error: ";
    std::string error = StripControls(view.reload_error);
    if (options.width > kLabel.size()) error = Truncate(error, options.width - kLabel.size());
    out += std::string(kLabel) + (color ? kRed + error + kReset : error) + "\n";
  }
  out += "\n";
  if (view.servers.empty()) {
    out += "no servers configured\n";
    return out;
  }

  // Table: fixed columns first, then the reason in whatever width is left.
  static const char* kHeaders[] = {"NAMESPACE", "STATUS", "TOOLS",    "IN FLIGHT",
                                   "CALLS",     "ERRORS", "P50 (ms)", "SINCE"};
  constexpr size_t kColumns = sizeof kHeaders / sizeof kHeaders[0];
  std::vector<std::vector<Cell>> rows;
  for (const ServerRow& row : view.servers) {
    const std::string status = Truncate(StripControls(row.status), kMaxStatusWidth);
    rows.push_back({
        {Truncate(StripControls(row.ns), kMaxNamespaceWidth)},
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
  size_t used = 0;
  for (size_t c = 0; c < kColumns; ++c) {
    widths[c] = DisplayWidth(kHeaders[c]);
    for (const auto& row : rows) widths[c] = std::max(widths[c], DisplayWidth(row[c].text));
    used += widths[c] + 2;
  }
  const bool cut_reason = options.width > 0;
  const size_t reason_width = options.width > used ? options.width - used : 0;

  std::string header;
  for (size_t c = 0; c < kColumns; ++c) {
    const bool right = rows.front()[c].right;
    header += Pad({kHeaders[c], right}, widths[c], false) + kGap;
  }
  header += cut_reason ? Truncate("REASON", reason_width) : "REASON";
  RTrim(&header);
  out += (color ? kBold + header + kReset : header) + "\n";

  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < kColumns; ++c) line += Pad(rows[r][c], widths[c], color) + kGap;
    const std::string reason = StripControls(view.servers[r].reason);
    line += cut_reason ? Truncate(reason, reason_width) : reason;
    RTrim(&line);
    out += line + "\n";
  }
  out += RenderProxies(view, options);
  out += RenderOAuth(view, options);
  return out;
}

}  // namespace mcpgw::cli
