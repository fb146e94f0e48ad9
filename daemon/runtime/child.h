// A local server's process as the code on a loop sees it (BEHAVIOR.md §17):
// started through Env::SpawnChild, its stdout and stderr delivered as they
// come, its stdin written in order, its end reported once. The real one is
// ChildProcess (child_process.h); tests may script their own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw {

struct ConfinePlan;

// What to run. Everything is decided before the process is made: the
// executable is found, the environment complete.
struct ChildSpec {
  std::string path;               // the executable, absolute
  std::vector<std::string> argv;  // argv[0] first
  std::vector<std::string> env;   // "NAME=value", the whole environment
  std::string cwd;                // the working directory
  // What the process may touch (BEHAVIOR.md §18), applied between fork and
  // exec; null: nothing beyond the user's own rights.
  std::shared_ptr<const ConfinePlan> confine;
};

// How a process ended.
struct ChildExit {
  int code = -1;           // the exit code, when it exited
  int signal = 0;          // the signal that ended it, when one did
  int exec_errno = 0;      // the command could not be started (execve's errno)
  int chdir_errno = 0;     // its working directory could not be entered
  int confine_errno = 0;   // its confinement could not be applied
  int confine_step = 0;    // at which step (ConfineStep, daemon/runtime/confine.h)
  int confine_index = -1;  // for a rule, which
  bool unknown = false;    // its keeper ended without saying (killed)

  // "exited with code 1", "was ended by signal 9 (SIGKILL)", "could not be
  // started: Permission denied".
  std::string Describe() const;
};

class ChildSink {
 public:
  // The server's process id became known.
  virtual void OnChildStarted(pid_t pid) { (void)pid; }
  virtual void OnChildStdout(std::string_view bytes) = 0;
  virtual void OnChildStderr(std::string_view bytes) = 0;
  // Once, after the last output that will be delivered. The child may be
  // destroyed from here.
  virtual void OnChildExit(const ChildExit& exit) = 0;

 protected:
  ~ChildSink() = default;
};

class Child {
 public:
  // Destroying a child that still runs kills its process group at once.
  virtual ~Child() = default;
  // The server's process id (0 until known).
  virtual pid_t pid() const = 0;
  // Bytes for stdin, written in order as the pipe takes them.
  virtual void Write(std::string bytes) = 0;
  // Bytes given to Write and not yet taken by the pipe.
  virtual size_t pending_input() const = 0;
  // The stop of BEHAVIOR.md §17: stdin closed, `grace` later SIGTERM to the
  // process group, `grace` after that SIGKILL to it. OnChildExit follows.
  virtual void Stop(int64_t grace_ms) = 0;
  virtual bool exited() const = 0;
};

}  // namespace mcpgw
