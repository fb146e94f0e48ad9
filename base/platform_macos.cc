// base/platform.h on macOS.
#include <fcntl.h>
#include <mach-o/dyld.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xlocale.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>

#include "base/platform.h"

namespace mcpgw::base {

bool SetNoSigPipe(int fd) {
  int one = 1;
  return setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one)) == 0;
}

// macOS's socket() takes no SOCK_CLOEXEC or SOCK_NONBLOCK: set them after.
int OpenSocket(int domain, int type, int protocol, bool nonblocking) {
  const int fd = socket(domain, type, protocol);
  if (fd < 0) return -1;
  bool ok = fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && SetNoSigPipe(fd);
  if (ok && nonblocking) {
    const int flags = fcntl(fd, F_GETFL);
    ok = flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
  }
  if (!ok) {
    const int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

int SendNoSignal() { return 0; }

std::string ExecutablePath() {
  char buf[PATH_MAX];
  uint32_t size = sizeof buf;
  if (_NSGetExecutablePath(buf, &size) != 0) return "";
  char resolved[PATH_MAX];
  return realpath(buf, resolved) != nullptr ? resolved : buf;
}

size_t MaxThreadNameLength() { return 63; }

// macOS names only the calling thread.
void NameThisThread(std::string_view name) {
  const std::string cut(name.substr(0, std::min(name.size(), MaxThreadNameLength())));
  pthread_setname_np(cut.c_str());
}

timespec ModifiedTime(const struct stat& st) { return st.st_mtimespec; }

namespace platform_detail {

double StrtodC(const char* s, char** end) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  return strtod_l(s, end, c_locale);
}

}  // namespace platform_detail
}  // namespace mcpgw::base
