#include "client/cli/log_view.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <memory>
#include <ostream>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "client/cli/hints.h"
#include "client/cli/interrupt.h"
#include "client/cli/sanitize.h"
#include "proto/proto.h"

namespace mcpgw::cli {
namespace {

using rapidjson::Value;

constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kReset = "\x1b[0m";
constexpr const char* kGap = "  ";
// The server/tool column grows with its widest cell up to this; a longer one pushes the rest
// of its own row to the right.
constexpr size_t kMaxCallWidth = 48;
// A namespace or tool is cut (with "…") past this many characters: the daemon logs them as
// the client sent them.
constexpr size_t kMaxNameWidth = 128;
// Rows held back to align their columns before they are printed.
constexpr size_t kMaxBufferedRows = 10000;
// The most rotated files looked for (call_log.keep is at most 100).
constexpr int kMaxRotated = 1000;
constexpr size_t kReadChunkBytes = 64 * 1024;
constexpr double kStatusTimeoutS = 10;

const Value* Member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

const Value* StringMember(const Value& object, const char* name) {
  const Value* v = Member(object, name);
  return v != nullptr && v->IsString() ? v : nullptr;
}

std::string_view View(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

std::optional<uint64_t> Unsigned(const Value& object, const char* name) {
  const Value* v = Member(object, name);
  if (v == nullptr || !v->IsUint64()) return std::nullopt;
  return v->GetUint64();
}

// `n` decimal digits of `text` at `at`.
std::optional<int> Digits(std::string_view text, size_t at, size_t n) {
  if (at + n > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

double NowUnix(const CommandIo& io) {
  if (io.now_unix) return io.now_unix();
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// What `mcpgw status` prints for a failed request, and its exit code.
int Fail(CommandIo& io, const ApiResult& result) {
  io.err << "mcpgw: "
         << base::StripControls(PersonHints(ErrorText(result)), {.keep_newlines = true}) << "\n";
  return ExitCodeFor(result.status);
}

// ---- finding the log ------------------------------------------------------------------------

struct Located {
  std::optional<std::string> path;
  int exit_code = 0;  // when there is no path
};

// The call log's path from the daemon's status (`daemon.call_log`), or what to say instead.
Located LocateCallLog(AuthApi& api, CommandIo& io) {
  const ApiResult r = api.Request(proto::kStatus, "{}", kStatusTimeoutS);
  if (r.status != MCPGW_OK) return {std::nullopt, Fail(io, r)};
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(r.text.data(), r.text.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return {std::nullopt, Fail(io, {MCPGW_TRANSPORT, "the daemon sent a status that is not JSON"})};
  }
  const Value* daemon = Member(doc, "daemon");
  const Value* log = daemon != nullptr ? Member(*daemon, "call_log") : nullptr;
  if (log != nullptr && log->IsString() && log->GetStringLength() > 0) {
    return {std::string(View(*log)), 0};
  }
  if (log == nullptr || !(log->IsNull() || log->IsString())) {
    io.err << "mcpgw: this mcpgwd does not say where its call log is (it is older than this "
              "mcpgw); restart it from the same build as mcpgw\n";
    return {std::nullopt, 1};
  }
  const Value* settings = StringMember(*daemon, "settings");
  const std::string where = settings != nullptr
                                ? base::StripControls(View(*settings))
                                : "the settings file (~/.config/mcpgw/settings.json, or under "
                                  "$XDG_CONFIG_HOME)";
  io.err << "mcpgw: the call log is off: set \"call_log\": {\"path\": \"/absolute/path.jsonl\"} "
            "in "
         << where << " (docs/SETTINGS.md) and restart mcpgwd\n";
  return {std::nullopt, 1};
}

// ---- reading files line by line ---------------------------------------------------------

// Takes one line of the log (without its newline); `overlong` when the line was longer than
// kMaxLogLineBytes, its bytes then dropped.
using LineSink = std::function<void(std::string_view line, bool overlong)>;

// One file of the log, read from where the last read stopped. Owns its descriptor.
class LogFile {
 public:
  // NotFound when there is no such file.
  static base::Result<std::unique_ptr<LogFile>> Open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      const int err = errno;
      if (err == ENOENT) return base::NotFound(path);
      return base::ErrnoError("cannot read the call log " + path, err);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return base::InvalidInput("cannot read the call log " + path + ": not a regular file");
    }
    return std::unique_ptr<LogFile>(new LogFile(path, fd, st));
  }
  ~LogFile() { ::close(fd_); }
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // Every whole line now in the file, to `sink`; an unterminated rest waits for more.
  base::Status ReadLines(const LineSink& sink) {
    if (buffer_.empty()) buffer_.resize(kReadChunkBytes);
    for (;;) {
      const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return base::ErrnoError("cannot read the call log " + path_, errno);
      if (n == 0) return base::Status();
      offset_ += static_cast<uint64_t>(n);
      Split(std::string_view(buffer_.data(), static_cast<size_t>(n)), sink);
    }
  }
  // The unterminated rest, if any, as a last line (the file is done with).
  void FinishLines(const LineSink& sink) {
    if (!pending_.empty() || overlong_) sink(pending_, overlong_);
    pending_.clear();
    overlong_ = false;
  }
  // The file was cut short where it is: read it again from the start.
  void Restart() {
    ::lseek(fd_, 0, SEEK_SET);
    offset_ = 0;
    pending_.clear();
    overlong_ = false;
  }
  bool SameFile(const struct stat& st) const { return st.st_dev == dev_ && st.st_ino == ino_; }
  bool SameFile(const LogFile& other) const { return other.dev_ == dev_ && other.ino_ == ino_; }
  uint64_t offset() const { return offset_; }
  const std::string& path() const { return path_; }

 private:
  LogFile(std::string path, int fd, const struct stat& st)
      : path_(std::move(path)), fd_(fd), dev_(st.st_dev), ino_(st.st_ino) {}

  void Split(std::string_view data, const LineSink& sink) {
    while (!data.empty()) {
      const size_t newline = data.find('\n');
      const std::string_view piece = data.substr(0, newline);
      if (!overlong_) {
        if (pending_.size() + piece.size() > kMaxLogLineBytes) {
          overlong_ = true;
          pending_.clear();
        } else {
          pending_.append(piece);
        }
      }
      if (newline == std::string_view::npos) return;
      sink(pending_, overlong_);
      pending_.clear();
      overlong_ = false;
      data.remove_prefix(newline + 1);
    }
  }

  std::string path_;
  int fd_;
  dev_t dev_;
  ino_t ino_;
  uint64_t offset_ = 0;
  std::string buffer_;
  std::string pending_;    // the line read so far
  bool overlong_ = false;  // the line is past kMaxLogLineBytes: pending_ was dropped
};

// ---- printing -------------------------------------------------------------------------------

// The cells of one row: time, pid, server/tool, outcome, duration, size.
constexpr size_t kColumns = 6;
constexpr size_t kCallColumn = 2;
constexpr size_t kOutcomeColumn = 3;
constexpr size_t kFirstRightColumn = 4;  // duration and size are right-aligned
using Row = std::array<std::string, kColumns>;

std::string CleanName(const std::string& name) {
  if (name.empty()) return "-";
  return Truncate(base::StripControls(name), kMaxNameWidth);
}

Row MakeRow(const LogRecord& r) {
  return {FormatLocalTime(r.time_unix),
          r.pid ? "pid " + std::to_string(*r.pid) : "-",
          CleanName(r.ns) + "/" + CleanName(r.tool),
          Truncate(base::StripControls(r.outcome.empty() ? "-" : r.outcome), kMaxNameWidth),
          r.duration_ms ? FormatDuration(*r.duration_ms) : "-",
          FormatSize(r.result_bytes)};
}

// Takes the log's lines, keeps what the filter lets through and prints it: as they are with
// --json, else as rows whose columns line up (widths only ever grow, so rows printed later
// line up with the earlier ones unless a cell is wider than any before).
class LogPrinter {
 public:
  LogPrinter(CommandIo& io, LogFilter filter, bool json)
      : io_(io), filter_(std::move(filter)), json_(json) {}

  void Line(std::string_view line, bool overlong) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() && !overlong) return;
    const std::optional<LogRecord> record = overlong ? std::nullopt : ParseLogRecord(line);
    if (!record) {
      ++malformed_;
      return;
    }
    if (!filter_.Matches(*record)) return;
    if (json_) {
      // Into a pipe byte for byte; a terminal gets no control character (BEHAVIOR.md §8).
      if (io_.stdout_is_tty) {
        io_.out << base::StripControls(line) << "\n";
      } else {
        io_.out << line << "\n";
      }
      return;
    }
    rows_.push_back(MakeRow(*record));
    if (rows_.size() >= kMaxBufferedRows) Flush();
  }

  // Prints the rows held back and flushes stdout.
  void Flush() {
    for (const Row& row : rows_) {
      for (size_t c = 0; c < kColumns; ++c) {
        const size_t w = DisplayWidth(row[c]);
        widths_[c] = std::max(widths_[c], c == kCallColumn ? std::min(w, kMaxCallWidth) : w);
      }
    }
    for (const Row& row : rows_) io_.out << Render(row);
    rows_.clear();
    io_.out.flush();
  }

  uint64_t malformed() const { return malformed_; }

 private:
  std::string Render(const Row& row) const {
    std::string line;
    for (size_t c = 0; c < kColumns; ++c) {
      const size_t w = DisplayWidth(row[c]);
      const std::string fill(widths_[c] > w ? widths_[c] - w : 0, ' ');
      std::string body = row[c];
      if (c == kOutcomeColumn && io_.color) {
        body = (row[c] == "ok" ? kGreen : kRed) + body + kReset;
      }
      if (c > 0) line += kGap;
      line += c >= kFirstRightColumn ? fill + body : body + fill;
    }
    return line + "\n";
  }

  CommandIo& io_;
  LogFilter filter_;
  bool json_;
  std::vector<Row> rows_;
  std::array<size_t, kColumns> widths_{};
  uint64_t malformed_ = 0;
};

// ---- reading the log, and following it ----------------------------------------------------

// Reads the log's files oldest first into a printer and, with -f, what is added to the live
// file after, across its rotation.
class LogReader {
 public:
  LogReader(std::string path, LogPrinter& printer)
      : path_(std::move(path)),
        sink_([&printer](std::string_view line, bool overlong) { printer.Line(line, overlong); }) {}

  // path.N … path.1, then path, which stays open to be followed.
  base::Status ReadAll() {
    std::vector<std::unique_ptr<LogFile>> files;
    for (const std::string& name : LogFilesOldestFirst(path_)) {
      auto opened = LogFile::Open(name);
      if (!opened.ok()) {
        if (opened.kind() == base::ErrorKind::kNotFound) continue;  // rotated away meanwhile
        return std::move(opened).status();
      }
      // A rotation between two opens can show one file under two names: read it once.
      const LogFile& file = **opened;
      if (std::any_of(files.begin(), files.end(),
                      [&file](const auto& f) { return f->SameFile(file); })) {
        continue;
      }
      files.push_back(std::move(*opened));
    }
    for (auto& file : files) {
      if (base::Status read = file->ReadLines(sink_); !read.ok()) return read;
      if (file->path() != path_) file->FinishLines(sink_);
    }
    if (!files.empty() && files.back()->path() == path_) live_ = std::move(files.back());
    return base::Status();
  }

  // What the live file gained since the last look; after a rotation (path renamed to path.1,
  // or removed, and made anew) the rest of the old file, any rotated file newer than it, then
  // the new one.
  base::Status Poll() {
    if (live_) {
      if (base::Status read = live_->ReadLines(sink_); !read.ok()) return read;
    }
    struct stat st {};
    const bool exists = ::stat(path_.c_str(), &st) == 0;
    if (live_ && exists && live_->SameFile(st)) {
      if (static_cast<uint64_t>(st.st_size) >= live_->offset()) return base::Status();
      live_->Restart();  // cut short in place
      return live_->ReadLines(sink_);
    }
    if (live_) {
      if (base::Status read = live_->ReadLines(sink_); !read.ok()) return read;
      live_->FinishLines(sink_);
      if (base::Status read = ReadRotatedAfter(*live_); !read.ok()) return read;
      live_.reset();
    }
    if (!exists) return base::Status();  // not made anew yet: the next look
    auto opened = LogFile::Open(path_);
    if (!opened.ok()) {
      return opened.kind() == base::ErrorKind::kNotFound ? base::Status()
                                                         : std::move(opened).status();
    }
    live_ = std::move(*opened);
    return live_->ReadLines(sink_);
  }

  // The live file's unterminated rest, as a line.
  void Finish() {
    if (live_) live_->FinishLines(sink_);
  }

 private:
  // The log rotated more than once since the last look: `old` is path.K now, and
  // path.K-1 … path.1 came after it.
  base::Status ReadRotatedAfter(const LogFile& old) {
    int found = 0;
    for (int k = 1; k <= kMaxRotated && found == 0; ++k) {
      struct stat st {};
      if (::stat((path_ + "." + std::to_string(k)).c_str(), &st) != 0) break;
      if (old.SameFile(st)) found = k;
    }
    for (int k = found - 1; k >= 1; --k) {
      auto opened = LogFile::Open(path_ + "." + std::to_string(k));
      if (!opened.ok()) {
        if (opened.kind() == base::ErrorKind::kNotFound) continue;
        return std::move(opened).status();
      }
      if (base::Status read = (*opened)->ReadLines(sink_); !read.ok()) return read;
      (*opened)->FinishLines(sink_);
    }
    return base::Status();
  }

  std::string path_;
  LineSink sink_;
  std::unique_ptr<LogFile> live_;
};

base::Status Follow(LogReader& reader, LogPrinter& printer, CommandIo& io,
                    const LogFollow& follow) {
  printer.Flush();
  while (follow.wait(kLogPollIntervalS)) {
    if (base::Status polled = reader.Poll(); !polled.ok()) return polled;
    printer.Flush();
    if (!io.out) break;  // stdout was closed: no one reads any more
  }
  return base::Status();
}

}  // namespace

std::optional<double> ParseIsoTime(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z.
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text.back() != 'Z') {
    return std::nullopt;
  }
  const auto year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  const auto hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
      *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  double fraction = 0;
  const std::string_view rest = text.substr(19, text.size() - 20);
  if (!rest.empty()) {
    // "." and one to nine digits.
    if (rest[0] != '.' || rest.size() < 2 || rest.size() > 10) return std::nullopt;
    const auto digits = Digits(rest, 1, rest.size() - 1);
    if (!digits) return std::nullopt;
    fraction = *digits / std::pow(10.0, static_cast<double>(rest.size() - 1));
  }
  struct tm tm {};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  return static_cast<double>(timegm(&tm)) + fraction;
}

std::optional<LogRecord> ParseLogRecord(std::string_view line) {
  if (line.size() > kMaxLogLineBytes) return std::nullopt;
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  const Value* time = StringMember(doc, "time");
  const Value* ns = StringMember(doc, "namespace");
  const Value* tool = StringMember(doc, "tool");
  const Value* outcome = StringMember(doc, "outcome");
  if (time == nullptr || ns == nullptr || tool == nullptr || outcome == nullptr) {
    return std::nullopt;
  }
  const std::optional<double> time_unix = ParseIsoTime(View(*time));
  if (!time_unix) return std::nullopt;
  LogRecord record;
  record.time_unix = *time_unix;
  if (const Value* pid = Member(doc, "pid"); pid != nullptr && pid->IsInt64()) {
    record.pid = pid->GetInt64();
  }
  record.ns = View(*ns);
  record.tool = View(*tool);
  record.outcome = View(*outcome);
  record.duration_ms = Unsigned(doc, "duration_ms");
  record.result_bytes = Unsigned(doc, "result_bytes");
  return record;
}

base::Result<double> ParseSince(std::string_view text) {
  const auto bad = [text] {
    return base::InvalidInput("--since \"" + base::StripControls(text) +
                              "\" is not a duration: write a whole number and a unit, s, m, h "
                              "or d (30s, 10m, 2h, 1d, 1h30m)");
  };
  if (text.empty()) return bad();
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    uint64_t n = 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
      if (digits >= 9) return bad();  // past 999999999 of any unit: not a duration anyone means
      n = n * 10 + static_cast<uint64_t>(text[i] - '0');
    }
    if (digits == 0 || i == text.size()) return bad();
    switch (text[i++]) {
      case 's':
        total += static_cast<double>(n);
        break;
      case 'm':
        total += static_cast<double>(n) * 60;
        break;
      case 'h':
        total += static_cast<double>(n) * 3600;
        break;
      case 'd':
        total += static_cast<double>(n) * 86400;
        break;
      default:
        return bad();
    }
  }
  return total;
}

std::string FormatDuration(uint64_t ms) {
  char buf[64];
  if (ms < 1000) {
    std::snprintf(buf, sizeof buf, "%llu ms", static_cast<unsigned long long>(ms));
    return buf;
  }
  const uint64_t tenths = (ms + 50) / 100;
  if (tenths < 600) {
    std::snprintf(buf, sizeof buf, "%llu.%llu s", static_cast<unsigned long long>(tenths / 10),
                  static_cast<unsigned long long>(tenths % 10));
    return buf;
  }
  const uint64_t seconds = (ms + 500) / 1000;
  if (seconds < 3600) {
    std::snprintf(buf, sizeof buf, "%llum %llus", static_cast<unsigned long long>(seconds / 60),
                  static_cast<unsigned long long>(seconds % 60));
    return buf;
  }
  const uint64_t minutes = (seconds + 30) / 60;
  std::snprintf(buf, sizeof buf, "%lluh %llum", static_cast<unsigned long long>(minutes / 60),
                static_cast<unsigned long long>(minutes % 60));
  return buf;
}

std::string FormatSize(std::optional<uint64_t> bytes) {
  if (!bytes) return "-";
  char buf[64];
  if (*bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(*bytes));
    return buf;
  }
  static constexpr const char* kUnits[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(*bytes) / 1024;
  size_t unit = 0;
  // Move up a unit when the value would print as 1024 or more in this one.
  while (value >= 1023.5 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  std::snprintf(buf, sizeof buf, value < 9.95 ? "%.1f %s" : "%.0f %s", value, kUnits[unit]);
  return buf;
}

std::string FormatLocalTime(double unix_seconds) {
  const auto secs = static_cast<time_t>(std::floor(unix_seconds));
  struct tm tm {};
  if (localtime_r(&secs, &tm) == nullptr) return "-";
  char buf[64];
  if (std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm) == 0) return "-";
  return buf;
}

bool LogFilter::Matches(const LogRecord& record) const {
  if (ns && record.ns != *ns) return false;
  if (tool && record.tool != *tool) return false;
  if (since_unix && record.time_unix < *since_unix) return false;
  if (errors_only && record.outcome == "ok") return false;
  return true;
}

std::vector<std::string> LogFilesOldestFirst(const std::string& path) {
  int rotated = 0;
  struct stat st {};
  while (rotated < kMaxRotated &&
         ::stat((path + "." + std::to_string(rotated + 1)).c_str(), &st) == 0) {
    ++rotated;
  }
  std::vector<std::string> files;
  for (int i = rotated; i >= 1; --i) files.push_back(path + "." + std::to_string(i));
  files.push_back(path);
  return files;
}

int RunLog(AuthApi& api, const Invocation& inv, CommandIo& io, const LogFollow& follow) {
  LogFilter filter{inv.ns, inv.tool, std::nullopt, inv.errors_only};
  if (inv.since) {
    const base::Result<double> since = ParseSince(*inv.since);
    if (!since.ok()) {
      io.err << "mcpgw: " << since.message() << "\nRun 'mcpgw log --help' for usage.\n";
      return kExitMisuse;
    }
    filter.since_unix = NowUnix(io) - *since;
  }
  const Located located = LocateCallLog(api, io);
  if (!located.path) return located.exit_code;
  LogPrinter printer(io, std::move(filter), inv.json);
  LogReader reader(*located.path, printer);
  base::Status read = reader.ReadAll();
  if (read.ok() && inv.follow && follow.wait) {
    read = Follow(reader, printer, io, follow);
  } else if (read.ok()) {
    reader.Finish();
  }
  printer.Flush();
  if (printer.malformed() > 0) {
    io.err << "mcpgw: skipped " << Plural(printer.malformed(), "line", "lines") << " of "
           << base::StripControls(*located.path)
           << " (or its rotated files) that are not call records\n";
  }
  if (!read.ok()) {
    io.err << "mcpgw: " << base::StripControls(read.message()) << "\n";
    return 1;
  }
  return 0;
}

// Ctrl-C ends -f: the normal end of following, so exit 0.
int RunLog(AuthApi& api, const Invocation& inv, CommandIo& io) {
  if (!inv.follow) return RunLog(api, inv, io, LogFollow{});
  CancelToken stop;
  InterruptWatcher watcher(&stop);
  const LogFollow follow{[&stop](double seconds) {
    return !stop.WaitFor(std::chrono::milliseconds(static_cast<long>(seconds * 1000)));
  }};
  return RunLog(api, inv, io, follow);
}

}  // namespace mcpgw::cli
