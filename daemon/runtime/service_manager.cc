#include "daemon/runtime/service_manager.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/platform.h"

namespace mcpgw {
namespace {

// A whole decimal number, or nothing.
bool ReadNumber(const char* text, long* out) {
  if (text == nullptr || *text == '\0') return false;
  const char* end = text + std::strlen(text);
  const auto [p, ec] = std::from_chars(text, end, *out);
  return ec == std::errc() && p == end;
}

}  // namespace

base::Result<int> TakePassedFds() {
  long pid = 0;
  // Variables meant for another process (a parent that did not clear them)
  // are left alone, as are the descriptors they name.
  if (!ReadNumber(std::getenv("LISTEN_PID"), &pid) || pid != static_cast<long>(getpid())) {
    return 0;
  }
  long count = 0;
  base::Status error;
  const char* fds = std::getenv("LISTEN_FDS");
  if (!ReadNumber(fds, &count) || count < 0 || count > INT32_MAX - kFirstPassedFd) {
    error = base::InvalidInput("LISTEN_FDS from the service manager is not a count of descriptors");
    count = 0;
  }
  for (int fd = kFirstPassedFd; fd < kFirstPassedFd + count; ++fd) {
    // What the daemon starts (a browser for a login) must not inherit them.
    const int flags = fcntl(fd, F_GETFD);
    if (flags < 0) {
      error = base::InvalidInput("descriptor " + std::to_string(fd) +
                                 " from the service manager is not open");
      break;
    }
    fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  unsetenv("LISTEN_FDNAMES");
  if (!error.ok()) return error;
  return static_cast<int>(count);
}

bool NotifyServiceManager(std::string_view state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (path == nullptr) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const size_t length = std::strlen(path);
  // A path, or "@name" for a name in the abstract namespace (a leading NUL).
  if ((path[0] != '/' && path[0] != '@') || length < 2 || length > sizeof(address.sun_path)) {
    return false;
  }
  std::memcpy(address.sun_path, path, length);
  if (path[0] == '@') address.sun_path[0] = '\0';
  const int fd = base::OpenSocket(AF_UNIX, SOCK_DGRAM, 0, /*nonblocking=*/false);
  if (fd < 0) return false;
  const auto address_length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
  const ssize_t sent = sendto(fd, state.data(), state.size(), base::SendNoSignal(),
                              reinterpret_cast<const sockaddr*>(&address), address_length);
  close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

}  // namespace mcpgw
