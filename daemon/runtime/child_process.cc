#include "daemon/runtime/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <utility>

#include "daemon/runtime/confine.h"

namespace mcpgw {
namespace {

using namespace child_detail;

// What the keeper and the server tell the daemon on the report pipe: fixed
// records, each written whole (far below PIPE_BUF).
struct Report {
  char type;  // 'p' the server's pid, 'x' its wait status, 'e' execve's errno,
              // 'c' chdir's errno, 'f' fork's errno, 'l' confinement's failure
              // (errno | step << 12 | (rule + 1) << 16)
  char pad[3];
  int32_t value;
};

void Tell(int fd, char type, int32_t value) {
  Report r{type, {0, 0, 0}, value};
  while (write(fd, &r, sizeof r) < 0 && errno == EINTR) {
  }
}

// The report pipe is descriptor 3 in the keeper and the server.
constexpr int kReportFd = 3;

// What the forked processes use, made before the fork: no allocation after it.
struct Prepared {
  const char* path;
  char* const* argv;
  char* const* envp;
  const char* cwd;
  const ConfinePlan* confine;  // null: none
};

// The server: its own process group, default signal handling, the pipes as
// its stdio, then the command.
[[noreturn]] void RunServer(const Prepared& p) {
  setpgid(0, 0);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (chdir(p.cwd) != 0) {
    Tell(kReportFd, 'c', errno);
    _exit(127);
  }
  if (p.confine != nullptr) {
    int step = 0, index = -1;
    if (const int e = ApplyConfinement(*p.confine, &step, &index); e != 0) {
      Tell(kReportFd, 'l', (e & 0xfff) | (step << 12) | ((index + 1) << 16));
      _exit(127);
    }
  }
  execve(p.path, p.argv, p.envp);
  Tell(kReportFd, 'e', errno);
  _exit(127);
}

// The keeper (see child_process.h). Its descriptors 0-2 are the server's
// stdio until the server is forked, 3 the report pipe; everything else of the
// daemon's is closed, so that no host connection or socket stays open in it.
[[noreturn]] void RunKeeper(const Prepared& p, int fds[4], pid_t daemon) {
  // A group of its own: what ends the daemon's group (a terminal's Ctrl-C,
  // a service manager's stop of the daemon's process group) leaves the
  // keeper to stop its server in order.
  setpgid(0, 0);
  for (int sig : {SIGINT, SIGHUP, SIGTERM, SIGPIPE, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU}) {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigaction(sig, &ign, nullptr);
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &dfl, nullptr);
  sigaction(SIGUSR1, &dfl, nullptr);
  sigset_t waited;
  sigemptyset(&waited);
  sigaddset(&waited, SIGCHLD);
  sigaddset(&waited, SIGUSR1);
  sigprocmask(SIG_SETMASK, &waited, nullptr);

  int high[4];
  for (int i = 0; i < 4; ++i) high[i] = fcntl(fds[i], F_DUPFD, 10);
  for (int i = 0; i < 4; ++i) dup2(high[i], i);
  CloseFrom(4);
  fcntl(kReportFd, F_SETFD, FD_CLOEXEC);
  KeeperArm();
  if (getppid() != daemon) _exit(0);

  const pid_t server = fork();
  if (server == 0) RunServer(p);
  if (server < 0) {
    Tell(kReportFd, 'f', errno);
    _exit(0);
  }
  setpgid(server, server);
  const int null_fd = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd) dup2(null_fd, fd);
  if (null_fd > 2) close(null_fd);
  Tell(kReportFd, 'p', server);

  int status = 0;
  if (KeeperWait(server, daemon, &status)) {
    kill(-server, SIGKILL);  // whatever it left in its group
    Tell(kReportFd, 'x', status);
    _exit(0);
  }
  // The daemon is gone: the server's stdin has ended already; the group gets
  // SIGTERM, then SIGKILL.
  if (!KeeperWaitFor(server, 2000)) {
    kill(-server, SIGTERM);
    if (!KeeperWaitFor(server, 2000)) kill(-server, SIGKILL);
  }
  kill(-server, SIGKILL);
  _exit(0);
}

std::string SignalName(int sig) {
  switch (sig) {
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGINT:
      return "SIGINT";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGBUS:
      return "SIGBUS";
    default:
      return "signal " + std::to_string(sig);
  }
}

class ChildProcess final : public Child {
 public:
  ChildProcess(uv_loop_t* loop, ChildSink* sink) : loop_(loop), sink_(sink) {}
  ~ChildProcess() override;

  base::Status Start(const ChildSpec& spec);

  pid_t pid() const override { return pid_; }
  void Write(std::string bytes) override;
  size_t pending_input() const override { return pending_; }
  void Stop(int64_t grace_ms) override;
  bool exited() const override { return reported_; }

 private:
  // One end of a pipe to the child, watched by a poll handle. The
  // descriptor is the process's own: it is read, written and closed here
  // (libuv only watches it), so every close is one the tools see.
  struct Pipe {
    int fd = -1;
    uv_poll_t* poll = nullptr;
    bool open() const { return fd >= 0; }
  };
  static void OnPoll(uv_poll_t* poll, int status, int events);
  static void OnStopTimer(uv_timer_t* timer);
  Pipe OpenPipe(int fd, bool read);
  void ClosePipe(Pipe& pipe);
  // Reads what `pipe` holds now (a bounded amount per turn of the loop).
  void ReadFrom(Pipe& pipe);
  void OnEnd(Pipe& pipe);
  // Writes what waits for stdin as far as the pipe takes it.
  void Flush();
  // stdin ends; what waited for it is dropped.
  void CloseInput();
  void OnReport(std::string_view bytes);
  void OnReportEnd();
  void MaybeReport();
  void Signal(int sig);

  uv_loop_t* loop_;
  ChildSink* sink_;
  pid_t keeper_ = 0;
  pid_t pid_ = 0;
  int pending_signal_ = 0;  // asked for before the pid was known
  Pipe in_;
  Pipe out_;
  Pipe err_;
  Pipe report_;
  std::deque<std::string> input_;  // for stdin, in order; input_[0] from input_offset_
  size_t input_offset_ = 0;
  bool want_writable_ = false;
  uv_timer_t* timer_ = nullptr;
  std::string report_bytes_;
  ChildExit exit_;
  bool exit_known_ = false;
  bool keeper_done_ = false;
  bool reported_ = false;
  int stop_step_ = 0;
  int64_t grace_ms_ = 2000;
  size_t pending_ = 0;
  char buffer_[64 * 1024];
};

ChildProcess::~ChildProcess() {
  if (!keeper_done_ && keeper_ > 0) {
    // Still running: the group ends now, and the keeper after it.
    if (pid_ > 0) kill(-pid_, SIGKILL);
    kill(keeper_, SIGKILL);
    int status = 0;
    while (waitpid(keeper_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ClosePipe(in_);
  ClosePipe(out_);
  ClosePipe(err_);
  ClosePipe(report_);
  if (timer_ != nullptr) {
    timer_->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  }
}

ChildProcess::Pipe ChildProcess::OpenPipe(int fd, bool read) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  Pipe pipe;
  pipe.fd = fd;
  pipe.poll = new uv_poll_t;
  uv_poll_init(loop_, pipe.poll, fd);
  pipe.poll->data = this;
  if (read) uv_poll_start(pipe.poll, UV_READABLE, &OnPoll);
  return pipe;
}

// The poll handle stops watching at once (uv_close); the descriptor is
// closed right after, and the handle's memory freed when libuv is done.
void ChildProcess::ClosePipe(Pipe& pipe) {
  if (!pipe.open()) return;
  pipe.poll->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(pipe.poll),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
  close(pipe.fd);
  pipe = Pipe();
}

base::Status ChildProcess::Start(const ChildSpec& spec) {
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const Prepared prepared{spec.path.c_str(), argv.data(), envp.data(), spec.cwd.c_str(),
                          spec.confine.get()};

  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {in, out, err, report}) {
      for (int i = 0; i < 2; ++i) {
        if (p[i] >= 0) close(p[i]);
      }
    }
  };
  if (MakePipe(in) != 0 || MakePipe(out) != 0 || MakePipe(err) != 0 || MakePipe(report) != 0) {
    const int e = errno;
    close_all();
    return base::ErrnoError("pipe", e);
  }
  // No signal handler of the daemon may run in the keeper before it set its
  // own: every signal waits across the fork.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t daemon = getpid();
  const pid_t keeper = fork();
  if (keeper == 0) {
    int fds[4] = {in[0], out[1], err[1], report[1]};
    RunKeeper(prepared, fds, daemon);
  }
  const int fork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  close(report[1]);
  if (keeper < 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    close(report[0]);
    return base::ErrnoError("fork", fork_errno);
  }
  keeper_ = keeper;
  in_ = OpenPipe(in[1], false);
  out_ = OpenPipe(out[0], true);
  err_ = OpenPipe(err[0], true);
  report_ = OpenPipe(report[0], true);
  timer_ = new uv_timer_t;
  uv_timer_init(loop_, timer_);
  timer_->data = this;
  return base::Status();
}

void ChildProcess::OnPoll(uv_poll_t* poll, int status, int events) {
  auto* self = static_cast<ChildProcess*>(poll->data);
  if (self == nullptr) return;
  if (poll == self->in_.poll) {
    if (status < 0 || (events & UV_WRITABLE) != 0) self->Flush();
    return;
  }
  Pipe* pipe = poll == self->out_.poll   ? &self->out_
               : poll == self->err_.poll ? &self->err_
                                         : &self->report_;
  if (status < 0) return self->OnEnd(*pipe);
  self->ReadFrom(*pipe);
}

void ChildProcess::ReadFrom(Pipe& pipe) {
  // At most this many reads a turn: one busy pipe does not hold up the loop.
  constexpr int kReadsPerTurn = 16;
  for (int i = 0; i < kReadsPerTurn && pipe.open(); ++i) {
    const ssize_t n = read(pipe.fd, buffer_, sizeof buffer_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) return OnEnd(pipe);  // the end (or an error that ends it all the same)
    const std::string_view bytes(buffer_, static_cast<size_t>(n));
    if (&pipe == &out_) {
      sink_->OnChildStdout(bytes);
    } else if (&pipe == &err_) {
      sink_->OnChildStderr(bytes);
    } else {
      OnReport(bytes);
    }
  }
}

void ChildProcess::OnEnd(Pipe& pipe) {
  ClosePipe(pipe);
  if (&pipe == &report_) return OnReportEnd();
  MaybeReport();
}

void ChildProcess::OnReport(std::string_view bytes) {
  report_bytes_.append(bytes);
  while (report_bytes_.size() >= sizeof(Report)) {
    Report r;
    std::memcpy(&r, report_bytes_.data(), sizeof r);
    report_bytes_.erase(0, sizeof r);
    switch (r.type) {
      case 'p':
        pid_ = r.value;
        if (pending_signal_ != 0) Signal(pending_signal_);
        sink_->OnChildStarted(pid_);
        break;
      case 'x':
        exit_known_ = true;
        if (WIFEXITED(r.value)) {
          exit_.code = WEXITSTATUS(r.value);
        } else if (WIFSIGNALED(r.value)) {
          exit_.signal = WTERMSIG(r.value);
        }
        break;
      case 'e':
        exit_.exec_errno = r.value;
        break;
      case 'c':
        exit_.chdir_errno = r.value;
        break;
      case 'l':
        exit_.confine_errno = r.value & 0xfff;
        exit_.confine_step = (r.value >> 12) & 0xf;
        exit_.confine_index = (r.value >> 16) - 1;
        break;
      case 'f':
        exit_known_ = true;
        exit_.exec_errno = r.value;
        break;
      default:
        break;
    }
  }
}

// The keeper ended: it is reaped at once (it has nothing left to do), and
// the server's end is reported once its output is read, or soon after when
// something it left keeps the output open.
void ChildProcess::OnReportEnd() {
  int status = 0;
  while (waitpid(keeper_, &status, 0) < 0 && errno == EINTR) {
  }
  keeper_done_ = true;
  if (!exit_known_) exit_.unknown = true;
  CloseInput();
  uv_timer_stop(timer_);
  uv_timer_start(
      timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<ChildProcess*>(t->data);
        if (self == nullptr) return;
        self->ClosePipe(self->out_);
        self->ClosePipe(self->err_);
        self->MaybeReport();
      },
      200, 0);
  MaybeReport();
}

void ChildProcess::MaybeReport() {
  if (reported_ || !keeper_done_ || out_.open() || err_.open()) return;
  reported_ = true;
  uv_timer_stop(timer_);
  sink_->OnChildExit(exit_);  // may destroy this
}

void ChildProcess::Write(std::string bytes) {
  if (!in_.open() || bytes.empty()) return;
  pending_ += bytes.size();
  input_.push_back(std::move(bytes));
  Flush();
}

void ChildProcess::CloseInput() {
  ClosePipe(in_);
  input_.clear();
  input_offset_ = 0;
  pending_ = 0;
}

// A pipe the server no longer reads (it closed stdin, or ended) takes
// nothing more: what waited is dropped, and its end shows on stdout.
void ChildProcess::Flush() {
  while (in_.open() && !input_.empty()) {
    const std::string& front = input_.front();
    const ssize_t n = write(in_.fd, front.data() + input_offset_, front.size() - input_offset_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) {
      CloseInput();
      return;
    }
    pending_ -= static_cast<size_t>(n);
    input_offset_ += static_cast<size_t>(n);
    if (input_offset_ == front.size()) {
      input_.pop_front();
      input_offset_ = 0;
    }
  }
  if (!in_.open()) return;
  const bool want = !input_.empty();
  if (want == want_writable_) return;
  want_writable_ = want;
  if (want) {
    uv_poll_start(in_.poll, UV_WRITABLE, &OnPoll);
  } else {
    uv_poll_stop(in_.poll);
  }
}

void ChildProcess::Signal(int sig) {
  if (keeper_done_) return;
  if (pid_ == 0) {
    pending_signal_ = sig;
    return;
  }
  kill(-pid_, sig);
}

void ChildProcess::Stop(int64_t grace_ms) {
  if (stop_step_ > 0 || reported_) return;
  stop_step_ = 1;
  grace_ms_ = grace_ms;
  CloseInput();
  if (keeper_done_) return;
  uv_timer_start(timer_, &OnStopTimer, static_cast<uint64_t>(grace_ms), 0);
}

// SIGTERM once the grace has passed, SIGKILL one grace later.
void ChildProcess::OnStopTimer(uv_timer_t* timer) {
  auto* self = static_cast<ChildProcess*>(timer->data);
  if (self == nullptr || self->keeper_done_) return;
  self->Signal(self->stop_step_ == 1 ? SIGTERM : SIGKILL);
  if (self->stop_step_++ == 1) {
    uv_timer_start(timer, &OnStopTimer, static_cast<uint64_t>(self->grace_ms_), 0);
  }
}

}  // namespace

std::string ChildExit::Describe() const {
  if (exec_errno != 0) return std::string("could not be started: ") + std::strerror(exec_errno);
  if (chdir_errno != 0) {
    return std::string("could not enter its working directory: ") + std::strerror(chdir_errno);
  }
  if (confine_errno != 0) {
    return std::string("could not be confined: ") + std::strerror(confine_errno);
  }
  if (unknown) return "ended (how is not known: its keeper was killed)";
  if (signal != 0) return "was ended by " + SignalName(signal);
  return "exited with code " + std::to_string(code);
}

base::Result<std::unique_ptr<Child>> SpawnChildProcess(uv_loop_t* loop, const ChildSpec& spec,
                                                       ChildSink* sink) {
  auto child = std::make_unique<ChildProcess>(loop, sink);
  if (base::Status started = child->Start(spec); !started.ok()) return started;
  return std::unique_ptr<Child>(std::move(child));
}

}  // namespace mcpgw
