// The daemon's open-file limit: every upstream connection, every host
// connection and every stream of notifications is a descriptor, so mcpgwd
// raises its soft RLIMIT_NOFILE to the hard limit at start (the soft limit
// is 1024 on most systems, well below what its budgets may need).
#pragma once

#include <cstddef>

#include "base/status.h"

namespace mcpgw {

struct FdLimit {
  size_t before = 0;  // the soft limit found
  size_t now = 0;     // the soft limit after raising it
};

// Raises the soft limit to the hard one. `*limit` says what it was and is,
// as far as that was found, also when the raise failed (then the error says
// why; no need to raise is no error).
base::Status RaiseFdLimit(FdLimit* limit);

// Descriptors the daemon's budgets may hold at once: a stream and a request
// connection per server, `per_origin` requests on each worker, and every
// host connection the socket admits. A rough upper bound, for a warning.
size_t FdsNeeded(size_t servers, size_t workers, size_t per_origin, size_t host_connections);

}  // namespace mcpgw
