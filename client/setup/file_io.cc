#include "client/setup/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <system_error>

namespace mcpgw::setup {
namespace {

constexpr size_t kMaxBytes = size_t{64} * 1024 * 1024;

std::string ErrnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

// The file a path names after its symbolic links: a dotfile kept as a link into a
// repository is rewritten where it lives, and the link stays.
std::string Target(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) != nullptr) return resolved;
  return path;
}

std::string Folder(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Writes `text` to a new file beside `path` and returns its name ("" and errno on failure).
std::string WriteTemporary(const std::string& path, const std::string& text, mode_t mode) {
  std::string name = Folder(path) + "/.mcpgw-tmp-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) return "";
  const bool ok = fchmod(fd, mode & 07777) == 0 && WriteAll(fd, text) && fsync(fd) == 0;
  const int saved = errno;
  close(fd);
  if (!ok) {
    unlink(name.c_str());
    errno = saved;
    return "";
  }
  return name;
}

base::Status Failed(std::string error) { return base::IoError(std::move(error)); }

}  // namespace

base::Result<FileText> ReadText(const std::string& path) {
  FileText file;
  file.path = path;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return file;
    return base::IoError("cannot read " + path + ": " + ErrnoText(errno));
  }
  struct stat st = {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return base::InvalidInput(path + ": not a regular file");
  }
  file.mode = st.st_mode & 07777;
  file.read_only = (st.st_mode & 0222) == 0;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return base::IoError("cannot read " + path + ": " + ErrnoText(err));
    }
    if (n == 0) break;
    file.text.append(buf, static_cast<size_t>(n));
    if (file.text.size() > kMaxBytes) {
      close(fd);
      return base::InvalidInput(path + ": file is too large (the limit is 64 MiB)");
    }
  }
  close(fd);
  file.state = FileText::State::kRead;
  return file;
}

base::Result<std::string> ReplaceText(const FileText& before, const std::string& text,
                                      const std::string& stamp) {
  const std::string& path = before.path;
  if (before.read_only) return Failed(path + " is read-only; left alone");
  // Read again just before replacing: a host that saved the file since it was read (Claude
  // Code rewrites ~/.claude.json often) must not lose what it wrote.
  const base::Result<FileText> now = ReadText(path);
  if (!now.ok() || now->state != before.state || now->text != before.text) {
    return Failed(path +
                  " changed while mcpgw was editing it; nothing was written: run the "
                  "command again");
  }
  const std::string target = before.exists() ? Target(path) : path;
  std::string backup;
  if (before.exists()) {
    // Two edits of one file within a second keep both earlier versions.
    backup = path + ".mcpgw-backup-" + stamp;
    for (int n = 2; access(backup.c_str(), F_OK) == 0; ++n) {
      backup = path + ".mcpgw-backup-" + stamp + "-" + std::to_string(n);
    }
    const std::string tmp = WriteTemporary(backup, before.text, before.mode);
    if (tmp.empty() || rename(tmp.c_str(), backup.c_str()) != 0) {
      const int err = errno;
      if (!tmp.empty()) unlink(tmp.c_str());
      return Failed("cannot write the backup " + backup + ": " + ErrnoText(err) + "; " + path +
                    " was left alone");
    }
  }
  const std::string tmp = WriteTemporary(target, text, before.exists() ? before.mode : 0600);
  if (tmp.empty()) {
    return Failed("cannot write beside " + target + ": " + ErrnoText(errno) + "; " + path +
                  " was left alone");
  }
  if (rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return Failed("cannot replace " + target + ": " + ErrnoText(err));
  }
  return backup;
}

std::string BackupStamp() {
  const std::time_t now = std::time(nullptr);
  struct tm local = {};
  localtime_r(&now, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &local);
  return buf;
}

bool IsDirectory(const std::string& path) {
  struct stat st = {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace mcpgw::setup
