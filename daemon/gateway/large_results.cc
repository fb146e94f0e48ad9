#include "daemon/gateway/large_results.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>
#include <vector>

#include "base/platform.h"
#include "base/utf8.h"
#include "daemon/guard/call_log.h"
#include "daemon/guard/request_digest.h"
#include "daemon/runtime/scrub.h"

namespace mcpgw {

namespace {

constexpr std::string_view kSuffix = ".txt";
constexpr std::string_view kPartSuffix = ".txt.part";
// A partial file older than this was left by a write that never finished.
constexpr auto kAbandonedPart = std::chrono::minutes(10);

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() > tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string Lowered(const char* message) {
  std::string s = message;
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

std::string ErrnoText(int err) { return Lowered(std::strerror(err)); }

std::string Mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

// 20261201T104809.123Z: sorts as the time does.
std::string FileTime(std::chrono::system_clock::time_point now) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

// Creates `path` (one level) 0700, or checks that what is there is a folder
// of ours, not a link, and makes it private.
base::Status PrivateDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0) return base::Status();
  if (errno != EEXIST) return base::IoError("cannot create " + path + ": " + ErrnoText(errno));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    return base::IoError("cannot use " + path + ": " + ErrnoText(errno));
  }
  if (!S_ISDIR(st.st_mode)) return base::InvalidInput(path + " is not a folder");
  if (st.st_uid != ::geteuid()) return base::InvalidInput(path + " belongs to another user");
  if ((st.st_mode & 07777) != 0700 && ::chmod(path.c_str(), 0700) != 0) {
    return base::IoError("cannot make " + path + " private: " + ErrnoText(errno));
  }
  return base::Status();
}

bool WriteAll(int fd, std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

struct ResultSpill::Entry {
  std::string name;
  uint64_t bytes = 0;
  std::chrono::system_clock::time_point mtime;
  bool part = false;
};

ResultSpill::ResultSpill(Options options) : options_(std::move(options)) {}

void ResultSpill::SetMaxBytes(uint64_t max_bytes) {
  std::lock_guard lock(mu_);
  options_.max_bytes = max_bytes;
}

base::Status ResultSpill::EnsureDir() {
  const std::string& dir = options_.dir;
  if (dir.empty()) return base::InvalidInput("no folder for results is known");
  // The parent ($XDG_RUNTIME_DIR/mcpgw, or the socket's folder) is the
  // daemon's too: private as well.
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string parent = dir.substr(0, slash);
    struct stat st {};
    if (::lstat(parent.c_str(), &st) != 0) {
      if (base::Status made = PrivateDir(parent); !made.ok()) return made;
    }
  }
  return PrivateDir(dir);
}

// Called with mu_ held. Lists the folder's files of ours, removes what has
// expired, then the oldest until `incoming` more bytes fit the budget.
size_t ResultSpill::MakeRoom(std::chrono::system_clock::time_point now, uint64_t incoming) {
  DIR* d = ::opendir(options_.dir.c_str());
  if (d == nullptr) return 0;
  std::vector<Entry> entries;
  const int dfd = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    const bool part = EndsWith(name, kPartSuffix);
    if (!part && !EndsWith(name, kSuffix)) continue;
    struct stat st {};
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    Entry entry;
    entry.name = std::string(name);
    entry.bytes = static_cast<uint64_t>(st.st_size);
    entry.mtime = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::seconds(base::ModifiedTime(st).tv_sec) +
            std::chrono::nanoseconds(base::ModifiedTime(st).tv_nsec)));
    entry.part = part;
    entries.push_back(std::move(entry));
  }
  size_t removed = 0;
  auto remove = [&](const Entry& entry) {
    if (::unlinkat(dfd, entry.name.c_str(), 0) == 0 || errno == ENOENT) ++removed;
  };
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.mtime < b.mtime; });
  uint64_t total = 0;
  std::vector<const Entry*> kept;
  for (const Entry& entry : entries) {
    const auto age = now - entry.mtime;
    if (entry.part ? age > kAbandonedPart : age > options_.max_age) {
      remove(entry);
      continue;
    }
    total += entry.bytes;
    if (!entry.part) kept.push_back(&entry);
  }
  for (const Entry* entry : kept) {
    if (total + incoming <= options_.max_bytes) break;
    remove(*entry);
    total -= entry->bytes;
  }
  ::closedir(d);
  return removed;
}

size_t ResultSpill::Sweep(std::chrono::system_clock::time_point now) {
  std::lock_guard lock(mu_);
  return MakeRoom(now, 0);
}

std::string ResultBound::Digest() const {
  if (!digest.empty() || !request) return digest;
  return RequestDigest(request->ns, request->tool, request->arguments_json).value_or("");
}

base::Result<std::string> ResultSpill::Keep(std::string_view digest, std::string_view text,
                                            std::chrono::system_clock::time_point now) {
  std::lock_guard lock(mu_);
  if (text.size() > options_.max_bytes) {
    return base::InvalidInput("it is " + Mib(text.size()) +
                              ", more than results.spill_max_mb allows (" +
                              Mib(options_.max_bytes) + ")");
  }
  if (base::Status dir = EnsureDir(); !dir.ok()) return dir;
  MakeRoom(now, text.size());
  struct statvfs fs {};
  if (::statvfs(options_.dir.c_str(), &fs) == 0) {
    const uint64_t free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (free_bytes < text.size() + options_.keep_free_bytes) {
      return base::IoError("only " + Mib(free_bytes) + " is free on the file system of " +
                           options_.dir);
    }
  }
  std::string base = options_.dir + "/" + FileTime(now) + "-" +
                     std::string(digest.substr(0, std::min<size_t>(digest.size(), 16)));
  for (int attempt = 1; attempt <= 100; ++attempt) {
    const std::string path =
        base + (attempt == 1 ? std::string() : "-" + std::to_string(attempt)) + ".txt";
    const std::string part = path + ".part";
    // The final name is taken only if free: a later attempt picks another.
    if (::access(path.c_str(), F_OK) == 0) continue;
    const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return base::IoError("cannot create a file in " + options_.dir + ": " + ErrnoText(errno));
    }
    const bool wrote = WriteAll(fd, text);
    const int write_errno = errno;
    const bool closed = ::close(fd) == 0;
    if (!wrote || !closed) {
      ::unlink(part.c_str());
      return base::IoError("cannot write " + path + ": " + ErrnoText(wrote ? errno : write_errno));
    }
    if (::rename(part.c_str(), path.c_str()) != 0) {
      const int err = errno;
      ::unlink(part.c_str());
      return base::IoError("cannot write " + path + ": " + ErrnoText(err));
    }
    return path;
  }
  return base::IoError("too many results with the same request in one millisecond");
}

size_t CutLength(std::string_view text, uint64_t max_text_bytes, std::string_view notice) {
  const uint64_t overhead = notice.size() + 2;
  if (max_text_bytes <= overhead) return 0;
  const uint64_t room = max_text_bytes - overhead;
  return base::Utf8PrefixWithin(text, room > text.size() ? text.size() : room);
}

std::string TruncationNotice(size_t total_bytes, const base::Result<std::string>& kept) {
  std::string line = "[result truncated: " + std::to_string(total_bytes) + " bytes in total; ";
  if (kept.ok()) {
    line += "the full text is in " + *kept;
  } else {
    line += "the full text could not be kept: " + kept.message();
  }
  line += ']';
  return line;
}

void FitResult(mcp::CallOutcome& outcome, const ResultBound& bound,
               std::chrono::system_clock::time_point now) {
  if (outcome.kind == mcp::CallErrorKind::kTransport) return;
  if (bound.max_text_bytes == 0 || outcome.text.size() <= bound.max_text_bytes) return;
  // The gateway answers a tool's error scrubbed (BEHAVIOR.md §8): so is its file.
  if (outcome.kind == mcp::CallErrorKind::kBackend && bound.scrubber) {
    bound.scrubber->ScrubInPlace(outcome.text);
    if (outcome.text.size() <= bound.max_text_bytes) return;
  }
  const base::Result<std::string> kept =
      bound.spill != nullptr ? bound.spill->Keep(bound.Digest(), outcome.text, now)
                             : base::InvalidInput("no folder for results is set up");
  const std::string notice = TruncationNotice(outcome.text.size(), kept);
  const size_t keep = CutLength(outcome.text, bound.max_text_bytes, notice);
  outcome.full_text_bytes = outcome.text.size();
  outcome.kept_file = kept.value_or(std::string());
  outcome.text.resize(keep);
  outcome.text += "\n\n";
  outcome.text += notice;
  outcome.text.shrink_to_fit();
}

}  // namespace mcpgw
