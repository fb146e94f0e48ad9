#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/runtime/child_process.h"

namespace mcpgw::child_detail {

int MakePipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

void CloseFrom(int from) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(from), ~0U, 0) == 0) return;
#endif
  const long max = sysconf(_SC_OPEN_MAX);
  for (int fd = from; fd < (max > 0 && max < 1 << 20 ? max : 65536); ++fd) close(fd);
}

// SIGUSR1 when the daemon's thread that made the keeper ends; the keeper
// waits for it with SIGCHLD and checks its parent besides.
void KeeperArm() { prctl(PR_SET_PDEATHSIG, SIGUSR1); }

bool KeeperWait(pid_t server, pid_t daemon, int* status) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  sigaddset(&set, SIGUSR1);
  for (;;) {
    const pid_t done = waitpid(server, status, WNOHANG);
    if (done == server) return true;
    if (done < 0 && errno == ECHILD) return true;
    if (getppid() != daemon) return false;
    timespec one_second{1, 0};
    sigtimedwait(&set, nullptr, &one_second);
  }
}

bool KeeperWaitFor(pid_t server, int ms) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int waited = 0; waited < ms; waited += 50) {
    int status = 0;
    const pid_t done = waitpid(server, &status, WNOHANG);
    if (done == server || (done < 0 && errno == ECHILD)) return true;
    timespec step{0, 50 * 1000 * 1000};
    sigtimedwait(&set, nullptr, &step);
  }
  return false;
}

}  // namespace mcpgw::child_detail
