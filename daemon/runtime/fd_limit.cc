#include "daemon/runtime/fd_limit.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace mcpgw {

base::Status RaiseFdLimit(FdLimit* out) {
  *out = FdLimit{};
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return base::ErrnoError("getrlimit", errno);
  out->before = out->now = static_cast<size_t>(limit.rlim_cur);
  if (limit.rlim_cur >= limit.rlim_max) return base::Status();
  rlimit raised = limit;
  raised.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) return base::ErrnoError("setrlimit", errno);
  out->now = static_cast<size_t>(raised.rlim_cur);
  return base::Status();
}

size_t FdsNeeded(size_t servers, size_t workers, size_t per_origin, size_t host_connections) {
  constexpr size_t kBase = 64;  // logs, the socket, timers, the resolver, files
  return kBase + 2 * servers + workers * per_origin + host_connections;
}

}  // namespace mcpgw
