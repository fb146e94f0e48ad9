#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/runtime/child_process.h"

namespace mcpgw::child_detail {

int MakePipe(int fds[2]) {
  if (pipe(fds) != 0) return -1;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  return 0;
}

void CloseFrom(int from) {
  const int max = getdtablesize();
  for (int fd = from; fd < max; ++fd) close(fd);
}

// macOS has no parent-death signal: KeeperWait looks at its parent instead.
void KeeperArm() {}

bool KeeperWait(pid_t server, pid_t daemon, int* status) {
  for (;;) {
    const pid_t done = waitpid(server, status, WNOHANG);
    if (done == server || (done < 0 && errno == ECHILD)) return true;
    if (getppid() != daemon) return false;
    timespec step{0, 100 * 1000 * 1000};
    nanosleep(&step, nullptr);
  }
}

bool KeeperWaitFor(pid_t server, int ms) {
  for (int waited = 0; waited < ms; waited += 50) {
    int status = 0;
    const pid_t done = waitpid(server, &status, WNOHANG);
    if (done == server || (done < 0 && errno == ECHILD)) return true;
    timespec step{0, 50 * 1000 * 1000};
    nanosleep(&step, nullptr);
  }
  return false;
}

}  // namespace mcpgw::child_detail
