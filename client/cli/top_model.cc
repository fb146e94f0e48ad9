#include "client/cli/top_model.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "base/utf8.h"

namespace mcpgw::cli {
namespace {

using rapidjson::Value;

const Value* Member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

// A string member, stripped of control characters; `fallback` when absent or not a string.
std::string Text(const Value& object, const char* name, std::string fallback = "") {
  const Value* v = Member(object, name);
  if (v == nullptr || !v->IsString()) return fallback;
  return base::StripControls(std::string_view(v->GetString(), v->GetStringLength()));
}

std::optional<double> Number(const Value& object, const char* name) {
  const Value* v = Member(object, name);
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  const double d = v->GetDouble();
  if (!std::isfinite(d) || d < 0) return std::nullopt;
  return d;
}

std::optional<uint64_t> CountOf(const Value* v) {
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  if (v->IsUint64()) return v->GetUint64();
  const double d = v->GetDouble();
  if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d > 1e15) return std::nullopt;
  return static_cast<uint64_t>(d);
}

std::optional<uint64_t> Count(const Value& object, const char* name) {
  return CountOf(Member(object, name));
}

std::vector<std::string> Lines(const Value& object, const char* name) {
  std::vector<std::string> out;
  if (const Value* a = Member(object, name); a != nullptr && a->IsArray()) {
    for (const Value& line : a->GetArray()) {
      if (line.IsString()) {
        out.push_back(
            base::StripControls(std::string_view(line.GetString(), line.GetStringLength())));
      }
    }
  }
  return out;
}

void ReadMinute(const Value& server, TopServer& row) {
  const Value* m = Member(server, "minute");
  if (m == nullptr || !m->IsObject()) return;
  row.has_minute = true;
  row.minute_calls = Count(*m, "calls").value_or(0);
  row.p50_ms = Number(*m, "p50_ms");
  row.p99_ms = Number(*m, "p99_ms");
  if (const Value* e = Member(*m, "errors"); e != nullptr && e->IsObject()) {
    for (const auto& kind : e->GetObject()) {
      const std::optional<uint64_t> n = CountOf(&kind.value);
      if (n && *n > 0) {
        row.minute_errors.push_back({base::StripControls(std::string_view(
                                         kind.name.GetString(), kind.name.GetStringLength())),
                                     *n});
      }
    }
  }
}

void ReadLocal(const Value& server, TopServer& row) {
  const Value* l = Member(server, "local");
  if (l == nullptr || !l->IsObject()) return;
  row.local = true;
  row.pid = Count(*l, "pid");
  row.restarts = Count(*l, "restarts").value_or(0);
  row.rss_bytes = Count(*l, "rss_bytes");
  row.stderr_tail = Lines(*l, "stderr_tail");
}

// http, h2 or stdio: the status's transport, HTTP/2 shown as h2.
std::string Transport(const Value& server, const TopServer& row) {
  std::string transport = Text(server, "transport");
  if (transport.empty()) transport = row.local ? "stdio" : row.url.empty() ? "-" : "http";
  if (transport == "http" && Text(server, "http_version") == "HTTP/2") transport = "h2";
  return transport;
}

TopServer ReadServer(const Value& server) {
  TopServer row;
  row.ns = Text(server, "namespace", "-");
  row.state = Text(server, "status", "-");
  if (row.state == "ready" && Text(server, "source") == "replay") row.state = "replay";
  row.url = Text(server, "url");
  row.calls = Count(server, "calls");
  row.in_flight = Count(server, "in_flight");
  row.queued = Count(server, "queued");
  row.reason = Text(server, "reason");
  row.last_error = Text(server, "last_error");
  row.last_error_unix = Number(server, "last_error_unix");
  ReadMinute(server, row);
  ReadLocal(server, row);
  row.transport = Transport(server, row);
  if (const Value* p = Member(server, "pins"); p != nullptr && p->IsObject()) {
    row.pins_changed = Count(*p, "changed").value_or(0);
    row.pins_new = Count(*p, "new").value_or(0);
    row.pins_error = Text(*p, "error");
  }
  if (const Value* o = Member(server, "oauth"); o != nullptr && o->IsObject()) {
    row.oauth = true;
    row.oauth_state = Text(*o, "state", "-");
    row.oauth_error = Text(*o, "error");
  }
  return row;
}

void ReadDaemon(const Value& d, TopSample& sample) {
  sample.version = Text(d, "version", "-");
  sample.pid = Count(d, "pid");
  sample.uptime_s = Number(d, "uptime_s");
  sample.hosts = Count(d, "host_connections");
  sample.rss_bytes = Count(d, "rss_bytes");
  sample.cpu_s = Number(d, "cpu_s");
  sample.calls = Count(d, "calls");
  sample.in_flight = Count(d, "in_flight");
  sample.queued = Count(d, "queued");
}

// Seconds between two samples: the daemon's uptime when both have it, else the caller's clock.
double Elapsed(const TopSample& previous, const TopSample& current) {
  if (previous.uptime_s && current.uptime_s && *current.uptime_s > *previous.uptime_s) {
    return *current.uptime_s - *previous.uptime_s;
  }
  return current.taken_s - previous.taken_s;
}

std::optional<double> Rate(std::optional<uint64_t> before, std::optional<uint64_t> now,
                           double seconds) {
  if (!before || !now || *now < *before || seconds <= 0) return std::nullopt;
  return static_cast<double>(*now - *before) / seconds;
}

void ServerRates(const TopSample* previous, double seconds, std::vector<TopServer>& servers) {
  std::unordered_map<std::string_view, const TopServer*> before;
  if (previous != nullptr) {
    for (const TopServer& s : previous->servers) before.emplace(s.ns, &s);
  }
  for (TopServer& s : servers) {
    const auto it = before.find(s.ns);
    if (it != before.end()) s.calls_per_s = Rate(it->second->calls, s.calls, seconds);
    if (!s.calls_per_s && s.has_minute) s.calls_per_s = static_cast<double>(s.minute_calls) / 60;
  }
}

// The key a row sorts by in a numeric column; unset sorts last.
std::optional<double> NumberKey(const TopServer& s, TopColumn column) {
  const auto d = [](std::optional<uint64_t> v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  switch (column) {
    case TopColumn::kCallsPerS:
      return s.calls_per_s;
    case TopColumn::kP50:
      return s.p50_ms;
    case TopColumn::kP99:
      return s.p99_ms;
    case TopColumn::kErrors:
      return s.has_minute ? std::optional<double>(static_cast<double>(s.MinuteErrors()))
                          : std::nullopt;
    case TopColumn::kInFlight:
      return d(s.in_flight);
    case TopColumn::kQueued:
      return d(s.queued);
    case TopColumn::kPid:
      return s.local ? d(s.pid) : std::nullopt;
    case TopColumn::kRestarts:
      return s.local ? std::optional<double>(static_cast<double>(s.restarts)) : std::nullopt;
    case TopColumn::kMem:
      return s.local ? d(s.rss_bytes) : std::nullopt;
    default:
      return std::nullopt;
  }
}

const std::string* TextKey(const TopServer& s, TopColumn column) {
  switch (column) {
    case TopColumn::kName:
      return &s.ns;
    case TopColumn::kState:
      return &s.state;
    case TopColumn::kTransport:
      return &s.transport;
    default:
      return nullptr;
  }
}

// Whether a comes before b (ties: false, so the caller breaks them by name).
bool SortsBefore(const TopServer& a, const TopServer& b, TopColumn column, bool descending) {
  if (const std::string* ta = TextKey(a, column)) {
    const std::string* tb = TextKey(b, column);
    return descending ? *tb < *ta : *ta < *tb;
  }
  const std::optional<double> ka = NumberKey(a, column);
  const std::optional<double> kb = NumberKey(b, column);
  if (!ka || !kb) return ka.has_value() && !kb.has_value();  // unset last, either way
  return descending ? *kb < *ka : *ka < *kb;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Numbers sort biggest first when their column is chosen; names, states and transports A-Z.
bool DefaultDescending(TopColumn column) {
  return column != TopColumn::kName && column != TopColumn::kState &&
         column != TopColumn::kTransport;
}

void Select(TopState& state, const std::vector<const TopServer*>& rows, long index) {
  if (rows.empty()) return;
  index = std::clamp(index, 0L, static_cast<long>(rows.size()) - 1);
  state.selected = rows[static_cast<size_t>(index)]->ns;
}

void SortBy(TopState& state, int step) {
  const int next = (static_cast<int>(state.sort) + step + kTopColumnCount) % kTopColumnCount;
  state.sort = static_cast<TopColumn>(next);
  state.descending = DefaultDescending(state.sort);
}

TopAction EditKey(TopState& state, const TopInput& input) {
  switch (input.key) {
    case TopKey::kChar:
      if (input.ch < 0x20 || (input.ch >= 0x7f && input.ch <= 0x9f)) return TopAction::kNone;
      base::AppendUtf8(input.ch, &state.edit);
      return TopAction::kRedraw;
    case TopKey::kBackspace:
      // Drop the last code point: continuation bytes, then its first byte.
      while (!state.edit.empty() &&
             (static_cast<unsigned char>(state.edit.back()) & 0xC0) == 0x80) {
        state.edit.pop_back();
      }
      if (!state.edit.empty()) state.edit.pop_back();
      return TopAction::kRedraw;
    case TopKey::kEnter:
      state.filter = state.edit;
      state.editing = false;
      state.selected.clear();
      return TopAction::kRedraw;
    case TopKey::kEscape:
      state.filter.clear();
      state.edit.clear();
      state.editing = false;
      return TopAction::kRedraw;
    default:
      return TopAction::kNone;
  }
}

TopAction MoveKey(TopState& state, const TopInput& input,
                  const std::vector<const TopServer*>& rows) {
  const long at = static_cast<long>(SelectedIndex(rows, state));
  const long page = std::max<long>(1, static_cast<long>(state.page_rows));
  long to = at;
  const bool ch = input.key == TopKey::kChar;
  if (input.key == TopKey::kUp || (ch && input.ch == 'k'))
    to = at - 1;
  else if (input.key == TopKey::kDown || (ch && input.ch == 'j'))
    to = at + 1;
  else if (input.key == TopKey::kHome || (ch && input.ch == 'g'))
    to = 0;
  else if (input.key == TopKey::kEnd || (ch && input.ch == 'G'))
    to = static_cast<long>(rows.size());
  else if (input.key == TopKey::kPageUp)
    to = at - page;
  else if (input.key == TopKey::kPageDown)
    to = at + page;
  else
    return TopAction::kNone;
  Select(state, rows, to);
  return TopAction::kRedraw;
}

TopAction TableKey(TopState& state, const TopInput& input,
                   const std::vector<const TopServer*>& rows) {
  if (input.key == TopKey::kEnter) {
    if (rows.empty()) return TopAction::kNone;
    state.detail = rows[SelectedIndex(rows, state)]->ns;
    return TopAction::kRedraw;
  }
  if (input.key == TopKey::kEscape) {
    if (state.filter.empty()) return TopAction::kNone;
    state.filter.clear();
    return TopAction::kRedraw;
  }
  if (input.key != TopKey::kChar) return MoveKey(state, input, rows);
  switch (input.ch) {
    case 'q':
      return TopAction::kQuit;
    case '/':
      state.editing = true;
      state.edit = state.filter;
      return TopAction::kRedraw;
    case 's':
    case '>':
      SortBy(state, 1);
      return TopAction::kRedraw;
    case '<':
      SortBy(state, -1);
      return TopAction::kRedraw;
    case 'r':
      state.descending = !state.descending;
      return TopAction::kRedraw;
    default:
      return MoveKey(state, input, rows);
  }
}

}  // namespace

uint64_t TopServer::MinuteErrors() const {
  uint64_t total = 0;
  for (const TopErrorCount& e : minute_errors) total += e.count;
  return total;
}

std::optional<TopSample> ParseTopSample(std::string_view json, double taken_s) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  TopSample sample;
  sample.taken_s = taken_s;
  if (const Value* d = Member(doc, "daemon"); d != nullptr && d->IsObject()) ReadDaemon(*d, sample);
  if (const Value* s = Member(doc, "servers"); s != nullptr && s->IsArray()) {
    for (const Value& server : s->GetArray()) {
      if (server.IsObject()) sample.servers.push_back(ReadServer(server));
    }
  }
  return sample;
}

bool DaemonRestarted(const TopSample& previous, const TopSample& current) {
  if (previous.pid && current.pid) return *previous.pid != *current.pid;
  if (previous.uptime_s && current.uptime_s) return *current.uptime_s < *previous.uptime_s;
  return false;
}

TopFrame MakeTopFrame(const TopSample* previous, TopSample current) {
  if (previous != nullptr && DaemonRestarted(*previous, current)) previous = nullptr;
  const double seconds = previous != nullptr ? Elapsed(*previous, current) : 0;
  if (seconds <= 0) previous = nullptr;
  TopFrame frame;
  ServerRates(previous, seconds, current.servers);
  uint64_t in_flight = 0;
  uint64_t queued = 0;
  std::optional<double> sum;
  for (const TopServer& s : current.servers) {
    in_flight += s.in_flight.value_or(0);
    queued += s.queued.value_or(0);
    if (s.calls_per_s) sum = sum.value_or(0) + *s.calls_per_s;
  }
  if (previous != nullptr) {
    frame.calls_per_s = Rate(previous->calls, current.calls, seconds);
    if (previous->cpu_s && current.cpu_s && *current.cpu_s >= *previous->cpu_s) {
      frame.cpu_percent = (*current.cpu_s - *previous->cpu_s) / seconds * 100;
    }
  }
  if (!frame.calls_per_s) frame.calls_per_s = sum;
  frame.in_flight = current.in_flight.value_or(in_flight);
  frame.queued = current.queued.value_or(queued);
  frame.sample = std::move(current);
  return frame;
}

std::string_view TopColumnTitle(TopColumn column) {
  static constexpr std::string_view kTitles[kTopColumnCount] = {
      "NAME",    "STATE",     "TRANSPORT", "CALLS/S", "P50",      "P99",
      "ERR/MIN", "IN FLIGHT", "QUEUED",    "PID",     "RESTARTS", "MEM"};
  return kTitles[static_cast<int>(column)];
}

std::vector<const TopServer*> VisibleRows(const TopFrame& frame, const TopState& state) {
  std::vector<const TopServer*> rows;
  const std::string filter = Lower(state.filter);
  for (const TopServer& s : frame.sample.servers) {
    if (filter.empty() || Lower(s.ns).find(filter) != std::string::npos) rows.push_back(&s);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const TopServer* a, const TopServer* b) {
    if (SortsBefore(*a, *b, state.sort, state.descending)) return true;
    if (SortsBefore(*b, *a, state.sort, state.descending)) return false;
    return a->ns < b->ns;
  });
  return rows;
}

size_t SelectedIndex(const std::vector<const TopServer*>& rows, const TopState& state) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i]->ns == state.selected) return i;
  }
  return 0;
}

TopAction HandleTopKey(TopState& state, const TopInput& input,
                       const std::vector<const TopServer*>& rows) {
  if (state.editing) return EditKey(state, input);
  if (state.detail) {
    const bool close =
        input.key == TopKey::kEscape || (input.key == TopKey::kChar && input.ch == 'q');
    if (!close) return TopAction::kNone;
    state.detail.reset();
    return TopAction::kRedraw;
  }
  return TableKey(state, input, rows);
}

}  // namespace mcpgw::cli
