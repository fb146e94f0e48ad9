#include "client/cli/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace mcpgw::cli {
namespace {

constexpr char kInterrupt = 'i';
constexpr char kQuit = 'q';

// Write end of the active watcher's pipe; the handler's only state.
volatile sig_atomic_t g_signal_fd = -1;
struct sigaction g_previous;

void OnSigint(int) {
  const int saved = errno;
  const char byte = kInterrupt;
  const int fd = g_signal_fd;
  if (fd >= 0) (void)!write(fd, &byte, 1);
  errno = saved;
}

}  // namespace

InterruptWatcher::InterruptWatcher(CancelToken* token) : token_(token) {
  if (pipe(pipe_) != 0) return;
  fcntl(pipe_[0], F_SETFD, FD_CLOEXEC);
  fcntl(pipe_[1], F_SETFD, FD_CLOEXEC);
  fcntl(pipe_[1], F_SETFL, O_NONBLOCK);
  g_signal_fd = pipe_[1];
  struct sigaction action = {};
  action.sa_handler = OnSigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  installed_ = sigaction(SIGINT, &action, &g_previous) == 0;
  thread_ = std::thread(&InterruptWatcher::Watch, this);
}

InterruptWatcher::~InterruptWatcher() {
  if (pipe_[1] < 0) return;
  if (installed_) sigaction(SIGINT, &g_previous, nullptr);
  g_signal_fd = -1;
  const char byte = kQuit;
  while (write(pipe_[1], &byte, 1) < 0 && errno == EINTR) {
  }
  if (thread_.joinable()) thread_.join();
  close(pipe_[0]);
  close(pipe_[1]);
}

void InterruptWatcher::Watch() {
  for (;;) {
    char byte = 0;
    const ssize_t n = read(pipe_[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == kQuit) return;
    if (!interrupted_.exchange(true)) {
      // The first interrupt cancels the call; the next one ends the process outright.
      struct sigaction dfl = {};
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      sigaction(SIGINT, &dfl, nullptr);
      token_->Trigger();
    }
  }
}

}  // namespace mcpgw::cli
