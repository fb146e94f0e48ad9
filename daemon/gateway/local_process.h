// LocalProcess: the process of one local server (BEHAVIOR.md §17), for its
// ServerHost: finds the command the way the service must (the login shell's
// PATH, then the daemon's), gives it exactly the environment BEHAVIOR.md §17 lists,
// starts it on the host's loop, writes its stdin, drains and logs its stderr
// (a line at most 8 KiB, rate-limited, the last lines kept for status), and
// stops it — a process given up keeps being drained until it has ended.
// Its figures are kept in LocalGauges, which status reads from another
// thread.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/config.h"
#include "daemon/runtime/confine.h"
#include "daemon/runtime/env.h"

namespace mcpgw {

// A local server's figures, written on its loop and read by status.
struct LocalGauges {
  std::atomic<int64_t> pid{0};              // 0: no process runs
  std::atomic<double> started_unix{0};      // when the current process started
  std::atomic<uint64_t> restarts{0};        // processes started after the first
  std::atomic<uint64_t> skipped_lines{0};   // stdout lines that were not JSON-RPC
  std::atomic<uint64_t> stderr_lines{0};    // stderr lines read
  std::atomic<uint64_t> stderr_dropped{0};  // of them, not logged (the rate limit)

  // The last stderr lines, oldest first, as read: ShownStderrLine makes one
  // fit to show.
  std::vector<std::string> StderrTail() const;
  void KeepStderr(std::string line);
  // The private temporary directory of a confined server ("" for none).
  std::string TempDir() const;
  void SetTempDir(std::string dir);

 private:
  mutable std::mutex mu_;
  std::deque<std::string> tail_;
  std::string temp_dir_;
};

class LocalProcess {
 public:
  class Events {
   public:
    // The current process wrote on stdout.
    virtual void OnProcessOutput(std::string_view bytes) = 0;
    // The current process ended, or could not be started, for `reason`.
    virtual void OnProcessExited(const std::string& reason) = 0;
    // The last process given up has ended (for a shutdown that waits).
    virtual void OnProcessesGone() = 0;

   protected:
    ~Events() = default;
  };

  static constexpr size_t kMaxStderrLine = 8 * 1024;
  // How much of a longer line is read past kMaxStderrLine before it is
  // scrubbed and cut: a configured secret up to this long across the cut
  // is removed whole.
  static constexpr size_t kScrubMargin = 4 * 1024;
  static constexpr size_t kStderrTail = 20;

  LocalProcess(Env* env, std::string name, config::LocalServer server,
               std::shared_ptr<LocalGauges> gauges, Events* events);
  ~LocalProcess();  // kills what still runs, removes its temporary directory
  LocalProcess(const LocalProcess&) = delete;
  LocalProcess& operator=(const LocalProcess&) = delete;

  // Starts a process (the current one, if any, is stopped first). A failure
  // to start is reported through OnProcessExited before this returns.
  void Spawn();
  void Write(std::string bytes);
  // The current process is given up: stopped, drained until it ended.
  void Stop();
  // Every process ends now (SIGKILL to its group).
  void KillAll();
  // No process runs, current or given up.
  bool idle() const { return current_ == nullptr && stopping_.empty(); }

  // The processes' environment and where the command was found (for tests
  // and the log).
  const std::vector<std::string>& environment() const { return environment_; }

 private:
  class Link;
  void Exited(Link* link, const ChildExit& exit);
  void Stderr(Link* link, std::string_view bytes);
  void LogStderrLine(Link& link, std::string line);
  // Logs how many stderr lines the rate limit kept out of the log, if any.
  void ReportDropped();
  std::string ExitReason(const Link& link, const ChildExit& exit) const;
  // A confined server's plan, made at its first start (BEHAVIOR.md §18).
  base::Status PrepareConfinement(const std::string& command_path);

  Env* env_;
  std::string name_;
  config::LocalServer server_;
  std::shared_ptr<LocalGauges> gauges_;
  Events* events_;
  std::vector<std::string> environment_;
  std::string temp_dir_;  // a confined server's own, removed with this
  std::shared_ptr<const ConfinePlan> plan_;
  std::unique_ptr<Link> current_;
  std::vector<std::unique_ptr<Link>> stopping_;
  uint64_t spawned_ = 0;
  // The stderr rate limit: lines logged in the current second.
  std::optional<TimePoint> window_start_;
  uint64_t window_lines_ = 0;
  uint64_t window_dropped_ = 0;
  std::unique_ptr<Timer> dropped_timer_;  // reports the count once the second is over
};

// A stderr line as the log and status show it: configured secrets removed
// (before it is cut), control characters and invisible text removed, at
// most kMaxStderrLine bytes.
std::string ShownStderrLine(std::string_view line);

// The directories a local server's command is looked for in: the login
// shell's PATH (read once per process, at most 3 s) then the daemon's own.
const std::vector<std::string>& CommandSearchDirs();

// Begins reading the login shell's PATH on a thread of its own, once, so
// that the first local server's start rarely waits for it.
void StartCommandSearch();

// The environment BEHAVIOR.md §17 gives a local server: the variables of
// `own` (NAME=value) that BEHAVIOR.md §17 lists, PATH set to `search_dirs`, then the
// entry's own `env`.
std::vector<std::string> LocalServerEnv(char** own, const std::vector<std::string>& search_dirs,
                                        const std::vector<config::EnvVar>& entry_env);

}  // namespace mcpgw
