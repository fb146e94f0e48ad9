#include "client/cli/top_render.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include <rapidjson/encodings.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "client/cli/sanitize.h"
#include "client/cli/status_view.h"

namespace mcpgw::cli {
namespace {

constexpr std::string_view kGap = "  ";
constexpr size_t kMaxNameWidth = 32;
constexpr size_t kMinNameWidth = 4;
constexpr size_t kMaxStateWidth = 10;
// Lines above the table: the daemon, its figures, a notice or the keys, the column titles.
constexpr size_t kHeaderLines = 4;
constexpr size_t kDetailLabelWidth = 13;
constexpr size_t kMaxCompactErrors = 10;
constexpr size_t kMinStderrLines = 3;
// Figures in `--json` have at most this many decimals (milliseconds of a Unix time).
constexpr int kJsonDecimals = 3;
// The columns a narrow terminal leaves out, first to last; the others always show.
constexpr TopColumn kDropOrder[] = {TopColumn::kRestarts, TopColumn::kQueued, TopColumn::kTransport,
                                    TopColumn::kPid,      TopColumn::kMem,    TopColumn::kInFlight,
                                    TopColumn::kP99,      TopColumn::kErrors};

using Cells = std::array<TopSpan, kTopColumnCount>;

std::string Format(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string Number(std::optional<uint64_t> n) { return n ? std::to_string(*n) : "-"; }

double Rounded(double value, double unit) { return std::round(value / unit) * unit; }

bool RightAligned(TopColumn column) { return static_cast<int>(column) >= 3; }

TopStyle StateStyle(std::string_view state) {
  if (state == "ready" || state == "replay") return TopStyle::kGood;
  if (state == "loading") return TopStyle::kWarn;
  if (state == "error") return TopStyle::kBad;
  return TopStyle::kPlain;
}

TopSpan Cell(const TopServer& s, TopColumn column) {
  switch (column) {
    case TopColumn::kName:
      return {s.ns};
    case TopColumn::kState:
      return {Truncate(s.state, kMaxStateWidth), StateStyle(s.state)};
    case TopColumn::kTransport:
      return {s.transport};
    case TopColumn::kCallsPerS:
      return {FormatRate(s.calls_per_s)};
    case TopColumn::kP50:
      return {FormatMillis(s.p50_ms)};
    case TopColumn::kP99:
      return {FormatMillis(s.p99_ms)};
    case TopColumn::kErrors:
      return {ErrorsCompact(s), s.MinuteErrors() > 0 ? TopStyle::kBad : TopStyle::kPlain};
    case TopColumn::kInFlight:
      return {Number(s.in_flight)};
    case TopColumn::kQueued:
      return {Number(s.queued), s.queued.value_or(0) > 0 ? TopStyle::kWarn : TopStyle::kPlain};
    case TopColumn::kPid:
      return {s.local ? Number(s.pid) : "-"};
    case TopColumn::kRestarts:
      return {s.local ? std::to_string(s.restarts) : "-"};
    case TopColumn::kMem:
      return {s.local ? FormatBytes(s.rss_bytes) : "-"};
  }
  return {"-"};
}

std::string Pad(std::string_view text, size_t width, bool right) {
  const size_t visible = DisplayWidth(text);
  const std::string fill(width > visible ? width - visible : 0, ' ');
  return right ? fill + std::string(text) : std::string(text) + fill;
}

// Cuts the line's spans to `width` code points (0: no limit).
void Fit(TopLine& line, size_t width) {
  if (width == 0) return;
  size_t used = 0;
  for (size_t i = 0; i < line.spans.size(); ++i) {
    const size_t w = DisplayWidth(line.spans[i].text);
    if (used + w > width) {
      line.spans[i].text = Truncate(line.spans[i].text, width - used);
      line.spans.resize(i + 1);
      return;
    }
    used += w;
  }
}

TopLine Plain(std::string text, TopStyle style = TopStyle::kPlain) {
  return TopLine{{TopSpan{std::move(text), style}}};
}

// The columns that fit in `width` (0: all) and their widths.
struct Layout {
  std::vector<TopColumn> columns;
  std::vector<size_t> widths;
};

size_t TotalWidth(const Layout& layout) {
  size_t total = 0;
  for (size_t w : layout.widths) total += w;
  return total + kGap.size() * (layout.widths.empty() ? 0 : layout.widths.size() - 1);
}

Layout FitColumns(const std::vector<Cells>& rows, size_t width) {
  Layout layout;
  for (int c = 0; c < kTopColumnCount; ++c) {
    const auto column = static_cast<TopColumn>(c);
    size_t w = DisplayWidth(TopColumnTitle(column));
    for (const Cells& row : rows) w = std::max(w, DisplayWidth(row[c].text));
    if (column == TopColumn::kName) w = std::min(w, kMaxNameWidth);
    layout.columns.push_back(column);
    layout.widths.push_back(w);
  }
  if (width == 0) return layout;
  for (TopColumn drop : kDropOrder) {
    if (TotalWidth(layout) <= width) break;
    const auto at = std::find(layout.columns.begin(), layout.columns.end(), drop);
    layout.widths.erase(layout.widths.begin() + (at - layout.columns.begin()));
    layout.columns.erase(at);
  }
  const size_t total = TotalWidth(layout);
  if (total > width) {
    const size_t others = total - layout.widths[0];
    layout.widths[0] = std::max(kMinNameWidth, width > others ? width - others : 0);
  }
  return layout;
}

TopLine TitleLine(const Layout& layout) {
  std::string text;
  for (size_t i = 0; i < layout.columns.size(); ++i) {
    if (i > 0) text += kGap;
    text +=
        Pad(TopColumnTitle(layout.columns[i]), layout.widths[i], RightAligned(layout.columns[i]));
  }
  return Plain(text, TopStyle::kBold);
}

TopLine RowLine(const Cells& cells, const Layout& layout) {
  TopLine line;
  for (size_t i = 0; i < layout.columns.size(); ++i) {
    if (i > 0) line.spans.push_back({std::string(kGap)});
    const TopSpan& cell = cells[static_cast<int>(layout.columns[i])];
    line.spans.push_back({Pad(Truncate(cell.text, layout.widths[i]), layout.widths[i],
                              RightAligned(layout.columns[i])),
                          cell.style});
  }
  return line;
}

std::vector<Cells> CellsOf(const std::vector<const TopServer*>& rows) {
  std::vector<Cells> out;
  out.reserve(rows.size());
  for (const TopServer* s : rows) {
    Cells cells;
    for (int c = 0; c < kTopColumnCount; ++c) cells[c] = Cell(*s, static_cast<TopColumn>(c));
    out.push_back(std::move(cells));
  }
  return out;
}

TopLine DaemonLine(const TopFrame& frame) {
  const TopSample& d = frame.sample;
  std::string text = "  pid " + Number(d.pid);
  text += "  up " + (d.uptime_s ? HumanDuration(*d.uptime_s) : std::string("-"));
  text += "  hosts " + Number(d.hosts);
  text += "  mem " + FormatBytes(d.rss_bytes);
  text += "  cpu " + (frame.cpu_percent ? Format("%.1f%%", *frame.cpu_percent) : "-");
  return TopLine{{{"mcpgwd " + Truncate(d.version, kMaxNameWidth), TopStyle::kBold}, {text}}};
}

// The daemon's call figures, the sort and the filter, then how many servers there are.
TopLine FiguresLine(const TopFrame& frame, const TopState& state, size_t shown) {
  const size_t servers = frame.sample.servers.size();
  size_t failing = 0;
  for (const TopServer& s : frame.sample.servers) failing += s.state == "error" ? 1 : 0;
  std::string text = "calls/s " + FormatRate(frame.calls_per_s) + "  in flight " +
                     std::to_string(frame.in_flight) + "  queued " + std::to_string(frame.queued) +
                     "  sort " + std::string(TopColumnTitle(state.sort)) +
                     (state.descending ? " (desc)" : " (asc)");
  if (!state.filter.empty()) {
    text += "  filter \"" + state.filter + "\": " + std::to_string(shown) + " of " +
            std::to_string(servers);
  }
  TopLine line =
      Plain(text + "  " + std::to_string(servers) + (servers == 1 ? " server" : " servers"));
  if (failing > 0)
    line.spans.push_back({", " + std::to_string(failing) + " in error", TopStyle::kBad});
  return line;
}

TopLine PromptLine(const TopState& state) {
  if (state.editing) {
    return TopLine{
        {{"filter: " + state.edit + "_"}, {"   Enter applies, Esc clears", TopStyle::kDim}}};
  }
  if (!state.notice.empty()) {
    return Plain(state.notice, state.notice_bad ? TopStyle::kBad : TopStyle::kGood);
  }
  if (state.detail) return Plain("Esc or q: back to the table", TopStyle::kDim);
  return Plain("q quit  s/</> sort  r reverse  / filter  Enter detail", TopStyle::kDim);
}

// ---- the detail --------------------------------------------------------------------------------

void Labelled(std::vector<TopLine>& out, std::string_view label, const std::string& text,
              size_t width, TopStyle style = TopStyle::kPlain) {
  const size_t room = width > kDetailLabelWidth ? width - kDetailLabelWidth : 0;
  const std::vector<std::string> lines = Wrap(text, room);
  for (size_t i = 0; i < lines.size(); ++i) {
    out.push_back(TopLine{
        {{Pad(i == 0 ? label : "", kDetailLabelWidth, false), TopStyle::kDim}, {lines[i], style}}});
  }
}

std::string ErrorsInWords(const TopServer& s) {
  std::string text;
  for (const TopErrorCount& e : s.minute_errors) {
    text += (text.empty() ? "" : ", ") + std::to_string(e.count) + " " + e.kind;
  }
  return (text.empty() ? "none" : text) + " in the last minute";
}

std::string ProcessInWords(const TopServer& s) {
  std::string text = s.pid ? "pid " + std::to_string(*s.pid) : "not running";
  text += ", " + std::to_string(s.restarts) + (s.restarts == 1 ? " restart" : " restarts");
  if (s.pid && s.rss_bytes) text += ", " + FormatBytes(s.rss_bytes) + " resident with its children";
  return text;
}

std::string PinsInWords(const TopServer& s) {
  std::string text;
  if (s.pins_changed > 0) text = std::to_string(s.pins_changed) + " changed";
  if (s.pins_new > 0) text += (text.empty() ? "" : ", ") + std::to_string(s.pins_new) + " new";
  if (!text.empty()) text += " withheld until approved (mcpgw pins " + s.ns + ")";
  if (!s.pins_error.empty()) text += (text.empty() ? "" : "; ") + s.pins_error;
  return text;
}

// Everything but the stderr lines, what matters most first (a short screen cuts the rest).
std::vector<TopLine> DetailFacts(const TopServer& s, size_t width, double now_unix) {
  std::vector<TopLine> out;
  out.push_back(TopLine{
      {{s.ns, TopStyle::kBold}, {"  "}, {s.state, StateStyle(s.state)}, {"  " + s.transport}}});
  if (!s.url.empty()) Labelled(out, "url:", s.url, width);
  if (!s.reason.empty()) Labelled(out, "reason:", s.reason, width, TopStyle::kBad);
  if (!s.last_error.empty()) {
    std::string when;
    if (s.last_error_unix) when = " (" + RelativeTime(*s.last_error_unix, now_unix) + ")";
    Labelled(out, "last error:", s.last_error + when, width, TopStyle::kBad);
  }
  if (s.has_minute) {
    Labelled(out, "errors:", ErrorsInWords(s), width,
             s.MinuteErrors() > 0 ? TopStyle::kBad : TopStyle::kPlain);
  }
  if (const std::string pins = PinsInWords(s); !pins.empty()) {
    Labelled(out, "pins:", pins, width, TopStyle::kWarn);
  }
  if (s.oauth) {
    Labelled(out, "oauth:", s.oauth_state + (s.oauth_error.empty() ? "" : ": " + s.oauth_error),
             width);
  }
  if (s.local) Labelled(out, "process:", ProcessInWords(s), width);
  if (s.has_minute) {
    Labelled(out, "latency:",
             s.minute_calls == 0
                 ? std::string("no calls in the last minute")
                 : "p50 " + FormatMillis(s.p50_ms) + ", p99 " + FormatMillis(s.p99_ms) + " over " +
                       std::to_string(s.minute_calls) + " calls in the last minute",
             width);
  }
  Labelled(out, "calls:",
           FormatRate(s.calls_per_s) + "/s, " + Number(s.calls) + " since the daemon started",
           width);
  Labelled(out, "in flight:", Number(s.in_flight) + ", " + Number(s.queued) + " queued", width);
  return out;
}

// The open detail in `room` lines: the facts, then as many of the last stderr lines as fit.
std::vector<TopLine> DetailLines(const TopFrame& frame, const std::string& ns, size_t width,
                                 size_t room, double now_unix) {
  const auto it = std::find_if(frame.sample.servers.begin(), frame.sample.servers.end(),
                               [&](const TopServer& s) { return s.ns == ns; });
  if (it == frame.sample.servers.end()) return {Plain(ns + ": no longer in the daemon's status")};
  std::vector<TopLine> out = DetailFacts(*it, width, now_unix);
  std::vector<TopLine> tail;
  for (const std::string& line : it->stderr_tail) Labelled(tail, "", line, width, TopStyle::kDim);
  // The last stderr lines keep a few lines of a short screen for themselves.
  const size_t keep = tail.empty() ? 0 : std::min(tail.size(), kMinStderrLines) + 1;
  if (out.size() + keep > room) out.resize(room > keep ? room - keep : 1);
  const size_t left = room > out.size() + 1 ? room - out.size() - 1 : 0;
  if (!tail.empty() && left > 0) {
    out.push_back(Plain("stderr, last lines:", TopStyle::kDim));
    out.insert(out.end(), tail.end() - static_cast<long>(std::min(left, tail.size())), tail.end());
  }
  if (out.size() > room) out.resize(room);
  return out;
}

// The table's rows in `room` lines, scrolled so the selected row shows.
void TableLines(std::vector<TopLine>& out, const std::vector<const TopServer*>& rows,
                const TopState& state, size_t width, size_t room) {
  const std::vector<Cells> cells = CellsOf(rows);
  const Layout layout = FitColumns(cells, width);
  out.push_back(TitleLine(layout));
  if (rows.empty()) {
    out.push_back(Plain(state.filter.empty()
                            ? "no servers configured"
                            : "no server's name contains \"" + state.filter + "\""));
    return;
  }
  const size_t selected = SelectedIndex(rows, state);
  const size_t first = selected >= room ? selected - room + 1 : 0;
  for (size_t i = first; i < rows.size() && i < first + room; ++i) {
    out.push_back(RowLine(cells[i], layout));
    out.back().selected = i == selected;
  }
}

using JsonWriter =
    rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::ASCII<>>;

void WriteOptional(JsonWriter& w, const char* key, std::optional<double> value) {
  w.Key(key);
  if (value) {
    w.Double(*value);
  } else {
    w.Null();
  }
}

void WriteCount(JsonWriter& w, const char* key, std::optional<uint64_t> value) {
  w.Key(key);
  if (value) {
    w.Uint64(*value);
  } else {
    w.Null();
  }
}

void WriteString(JsonWriter& w, const char* key, const std::string& value) {
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

std::optional<double> Thousandths(std::optional<double> value) {
  if (!value) return std::nullopt;
  return Rounded(*value, 0.001);
}

// A row's figures: what the table shows, as numbers (null where it shows "-").
void WriteServer(JsonWriter& w, const TopServer& s) {
  w.StartObject();
  WriteString(w, "namespace", s.ns);
  WriteString(w, "state", s.state);
  WriteString(w, "transport", s.transport);
  WriteOptional(w, "calls_per_s", Thousandths(s.calls_per_s));
  WriteOptional(w, "p50_ms", s.p50_ms);
  WriteOptional(w, "p99_ms", s.p99_ms);
  w.Key("errors_last_minute");
  if (s.has_minute) {
    w.StartObject();
    for (const TopErrorCount& e : s.minute_errors) {
      w.Key(e.kind.c_str(), static_cast<rapidjson::SizeType>(e.kind.size()));
      w.Uint64(e.count);
    }
    w.EndObject();
  } else {
    w.Null();
  }
  WriteCount(w, "in_flight", s.in_flight);
  WriteCount(w, "queued", s.queued);
  WriteCount(w, "pid", s.local ? s.pid : std::nullopt);
  WriteCount(w, "restarts", s.local ? std::optional<uint64_t>(s.restarts) : std::nullopt);
  WriteCount(w, "rss_bytes", s.local ? s.rss_bytes : std::nullopt);
  w.EndObject();
}

}  // namespace

std::string TopLine::Text() const {
  std::string text;
  for (const TopSpan& span : spans) text += span.text;
  return text;
}

std::string FormatRate(std::optional<double> per_s) {
  if (!per_s) return "-";
  if (*per_s == 0) return "0";
  if (*per_s < 10) return Format("%.2f", *per_s);
  if (*per_s < 1000) return Format("%.1f", *per_s);
  return Format("%.0f", *per_s);
}

std::string FormatMillis(std::optional<double> ms) {
  if (!ms) return "-";
  if (*ms < 10) return Format("%.1fms", *ms);
  if (*ms < 1000) return Format("%.0fms", *ms);
  if (*ms < 10000) return Format("%.2fs", *ms / 1000);
  return Format("%.1fs", *ms / 1000);
}

std::string FormatBytes(std::optional<uint64_t> bytes) {
  if (!bytes) return "-";
  const auto b = static_cast<double>(*bytes);
  if (b < 1e3) return std::to_string(*bytes) + "B";
  if (b < 1e6) return Format("%.0fK", b / 1e3);
  if (b < 1e9) return Format("%.1fM", b / 1e6);
  return Format("%.2fG", b / 1e9);
}

std::string ErrorsCompact(const TopServer& server) {
  if (!server.has_minute) return "-";
  if (server.minute_errors.empty()) return "0";
  std::string text;
  for (const TopErrorCount& e : server.minute_errors) {
    char letter = e.kind.empty() ? '?' : e.kind[0];
    if (e.kind == "not_ready") letter = 'n';
    if (e.kind == "invalid_request") letter = 'i';
    text += (text.empty() ? "" : " ") + std::to_string(e.count) + letter;
  }
  return text.size() <= kMaxCompactErrors ? text : std::to_string(server.MinuteErrors());
}

std::vector<TopLine> RenderTopScreen(const TopFrame& frame, const TopState& state, size_t width,
                                     size_t height, double now_unix) {
  std::vector<TopLine> out;
  if (width < kTopMinWidth || height < kTopMinHeight) {
    out.push_back(Plain("terminal too small: " + std::to_string(width) + "x" +
                        std::to_string(height) + ", mcpgw top needs " +
                        std::to_string(kTopMinWidth) + "x" + std::to_string(kTopMinHeight)));
    Fit(out.back(), width);
    return out;
  }
  const std::vector<const TopServer*> rows = VisibleRows(frame, state);
  out.push_back(DaemonLine(frame));
  out.push_back(FiguresLine(frame, state, rows.size()));
  out.push_back(PromptLine(state));
  const size_t room = height - kHeaderLines;
  if (state.detail) {
    for (TopLine& line : DetailLines(frame, *state.detail, width, room + 1, now_unix)) {
      out.push_back(std::move(line));
    }
  } else {
    TableLines(out, rows, state, width, room);
  }
  for (TopLine& line : out) Fit(line, width);
  return out;
}

std::string RenderTopOnce(const TopFrame& frame, const TopState& state, size_t width) {
  const std::vector<const TopServer*> rows = VisibleRows(frame, state);
  std::vector<TopLine> lines = {DaemonLine(frame), FiguresLine(frame, state, rows.size()),
                                TopLine{}};
  TopState all = state;
  all.selected.clear();
  TableLines(lines, rows, all, width, rows.size());
  std::string out;
  for (TopLine& line : lines) {
    Fit(line, width);
    std::string text = line.Text();
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  return out;
}

std::string TopJsonLine(const TopFrame& frame, double now_unix) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.SetMaxDecimalPlaces(kJsonDecimals);
  const TopSample& d = frame.sample;
  w.StartObject();
  WriteOptional(w, "time_unix", Rounded(now_unix, 0.001));
  w.Key("daemon");
  w.StartObject();
  WriteString(w, "version", d.version);
  WriteCount(w, "pid", d.pid);
  WriteOptional(w, "uptime_s", d.uptime_s);
  WriteCount(w, "hosts", d.hosts);
  WriteOptional(w, "calls_per_s", Thousandths(frame.calls_per_s));
  WriteCount(w, "in_flight", frame.in_flight);
  WriteCount(w, "queued", frame.queued);
  WriteCount(w, "rss_bytes", d.rss_bytes);
  WriteOptional(w, "cpu_percent", Thousandths(frame.cpu_percent));
  w.EndObject();
  w.Key("servers");
  w.StartArray();
  for (const TopServer& s : d.servers) WriteServer(w, s);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string TopJsonErrorLine(const std::string& why, double now_unix) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.SetMaxDecimalPlaces(kJsonDecimals);
  w.StartObject();
  WriteOptional(w, "time_unix", Rounded(now_unix, 0.001));
  WriteString(w, "error", why);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mcpgw::cli
