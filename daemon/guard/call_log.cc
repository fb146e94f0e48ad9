#include "daemon/guard/call_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "base/bounded_json.h"
#include "base/json_text.h"

namespace mcpgw {

std::string Iso8601Utc(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
  auto secs = static_cast<time_t>(ms / 1000);
  auto frac = ms % 1000;
  if (frac < 0) {  // before 1970: floor, not truncate
    frac += 1000;
    --secs;
  }
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(frac));
  return buf;
}

namespace {

base::Status Errno(std::string_view what, const std::string& path) {
  return base::ErrnoError("call log " + path + ": " + std::string(what), errno);
}

base::Status Unusable(const std::string& path, std::string_view why) {
  return base::InvalidInput("call log " + path + ": " + std::string(why));
}

}  // namespace

std::string FormatCallRecord(const CallRecord& r) {
  std::string line = "{\"time\":\"" + Iso8601Utc(r.time) + "\"";
  line += ",\"pid\":" + std::to_string(r.pid);
  line += ",\"uid\":" + std::to_string(r.uid);
  line += ",\"namespace\":";
  base::AppendJsonString(&line, r.ns);
  line += ",\"tool\":";
  base::AppendJsonString(&line, r.tool);
  line += ",\"request_digest\":";
  if (r.request_digest.empty()) {
    line += "null";
  } else {
    line += '"' + r.request_digest + '"';
  }
  line += ",\"outcome\":";
  base::AppendJsonString(&line, r.outcome);
  line += ",\"duration_ms\":" + std::to_string(r.duration_ms);
  line += ",\"bytes_in\":" + std::to_string(r.bytes_in);
  line += ",\"bytes_out\":" + std::to_string(r.bytes_out);
  line += ",\"result_bytes\":" + (r.result_bytes ? std::to_string(*r.result_bytes) : "null");
  line += ",\"result_file\":";
  if (r.result_file.empty()) {
    line += "null";
  } else {
    base::AppendJsonString(&line, r.result_file);
  }
  line += '}';
  return line;
}

CallLog::~CallLog() { Close(); }

void CallLog::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

base::Status CallLog::Open(const std::string& path, uint64_t max_bytes, int keep) {
  Close();
  path_ = path;
  max_bytes_ = max_bytes;
  keep_ = keep < 0 ? 0 : keep;
  failing_ = false;
  return OpenFile();
}

base::Status CallLog::OpenFile() {
  // A clear refusal for what is already there; the fstat below is the check
  // that counts, on the file actually opened.
  struct stat existing {};
  if (::lstat(path_.c_str(), &existing) == 0) {
    if (S_ISLNK(existing.st_mode)) return Unusable(path_, "is a symbolic link");
    if (!S_ISREG(existing.st_mode)) return Unusable(path_, "not a regular file");
  }
  // O_NOFOLLOW: a symlink planted at the path must not redirect the log.
  int fd = ::open(path_.c_str(),
                  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0) return Errno("cannot open", path_);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    auto error = Errno("cannot stat", path_);
    ::close(fd);
    return error;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Unusable(path_, "not a regular file");
  }
  if ((st.st_mode & 077) != 0 && ::fchmod(fd, 0600) != 0) {
    auto error = Errno("cannot make it private (0600)", path_);
    ::close(fd);
    return error;
  }
  // Regular files ignore O_NONBLOCK for writes; it only kept open() from
  // blocking on a FIFO before the check above refused it.
  ::fcntl(fd, F_SETFL, O_APPEND);
  fd_ = fd;
  size_ = static_cast<uint64_t>(st.st_size);
  return base::Status();
}

base::Status CallLog::Rotate() {
  Close();
  if (keep_ == 0) {
    if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return Errno("cannot remove", path_);
  } else {
    for (int i = keep_ - 1; i >= 1; --i) {
      std::string from = path_ + "." + std::to_string(i);
      std::string to = path_ + "." + std::to_string(i + 1);
      if (::rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) {
        return Errno("cannot rotate", from);
      }
    }
    if (::rename(path_.c_str(), (path_ + ".1").c_str()) != 0 && errno != ENOENT) {
      return Errno("cannot rotate", path_);
    }
  }
  return OpenFile();
}

base::Status CallLog::Report(base::Status error) {
  if (failing_) return base::Status();
  failing_ = true;
  return error;
}

base::Status CallLog::Append(const CallRecord& record) {
  if (path_.empty()) return base::Status();  // never opened: the log is off
  std::string line = FormatCallRecord(record);
  line += '\n';
  if (fd_ >= 0 && size_ > 0 && size_ + line.size() > max_bytes_) {
    if (base::Status error = Rotate(); !error.ok()) return Report(std::move(error));
  }
  if (fd_ < 0) {
    // A failed open or rotation: try again with this line.
    if (base::Status error = OpenFile(); !error.ok()) return Report(std::move(error));
  }
  size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Report(Errno("cannot write", path_));
    }
    written += static_cast<size_t>(n);
  }
  size_ += line.size();
  failing_ = false;
  return base::Status();
}

}  // namespace mcpgw
