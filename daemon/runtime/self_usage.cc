#include "daemon/runtime/self_usage.h"

#include <sys/resource.h>

namespace mcpgw {
namespace {

double Seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

}  // namespace

SelfUsage ReadSelfUsage() {
  SelfUsage usage;
  usage.rss_bytes = SelfResidentBytes();
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) == 0) {
    usage.cpu_s = Seconds(self.ru_utime) + Seconds(self.ru_stime);
  }
  return usage;
}

}  // namespace mcpgw
