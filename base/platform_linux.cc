// base/platform.h on Linux.
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "base/platform.h"

namespace mcpgw::base {

int OpenSocket(int domain, int type, int protocol, bool nonblocking) {
  return socket(domain, type | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), protocol);
}

int SendNoSignal() { return MSG_NOSIGNAL; }

std::string ExecutablePath() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

bool SetNoSigPipe(int /*fd*/) { return true; }

size_t MaxThreadNameLength() { return 15; }

void NameThisThread(std::string_view name) {
  const std::string cut(name.substr(0, std::min(name.size(), MaxThreadNameLength())));
  pthread_setname_np(pthread_self(), cut.c_str());
}

timespec ModifiedTime(const struct stat& st) { return st.st_mtim; }

namespace platform_detail {

double StrtodC(const char* s, char** end) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  return strtod_l(s, end, c_locale);
}

}  // namespace platform_detail
}  // namespace mcpgw::base
