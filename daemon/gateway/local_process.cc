#include "daemon/gateway/local_process.h"

#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

#include "base/clean_text.h"
#include "base/command_path.h"
#include "daemon/runtime/logging.h"

extern char** environ;

namespace mcpgw {
namespace {

// Stderr lines logged per second per server; the rest are counted.
constexpr uint64_t kStderrLinesPerSecond = 20;
// How the login shell's PATH is read: once, bounded.
constexpr std::chrono::milliseconds kLoginShellTimeout{3000};

std::string UserHome() {
  if (const char* home = getenv("HOME"); home != nullptr && home[0] == '/') return home;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    return pw->pw_dir;
  }
  return "/";
}

// The variables of the daemon's environment a local server gets (BEHAVIOR.md
// §17): those the official SDKs pass on, the locale, the temporary and
// runtime directories, and the proxy and CA variables the daemon itself uses.
bool Inherited(std::string_view name) {
  static constexpr std::string_view kNames[] = {"HOME",         "LOGNAME",       "SHELL",
                                                "TERM",         "USER",          "LANG",
                                                "LANGUAGE",     "TMPDIR",        "XDG_RUNTIME_DIR",
                                                "http_proxy",   "https_proxy",   "HTTP_PROXY",
                                                "HTTPS_PROXY",  "no_proxy",      "NO_PROXY",
                                                "all_proxy",    "ALL_PROXY",     "SSL_CERT_FILE",
                                                "SSL_CERT_DIR", "CURL_CA_BUNDLE"};
  if (name.substr(0, 3) == "LC_") return true;
  for (std::string_view known : kNames) {
    if (name == known) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& dirs) {
  std::string out;
  for (const std::string& d : dirs) out += (out.empty() ? "" : ":") + d;
  return out;
}

}  // namespace

std::vector<std::string> LocalGauges::StderrTail() const {
  std::lock_guard lock(mu_);
  return {tail_.begin(), tail_.end()};
}

std::string LocalGauges::TempDir() const {
  std::lock_guard lock(mu_);
  return temp_dir_;
}

void LocalGauges::SetTempDir(std::string dir) {
  std::lock_guard lock(mu_);
  temp_dir_ = std::move(dir);
}

void LocalGauges::KeepStderr(std::string line) {
  std::lock_guard lock(mu_);
  tail_.push_back(std::move(line));
  while (tail_.size() > LocalProcess::kStderrTail) tail_.pop_front();
}

std::string ShownStderrLine(std::string_view line) {
  // Scrubbed before it is cut: a secret the cut split would not be
  // recognised after it.
  return base::CleanServerText(ScrubbedForLog(line), LocalProcess::kMaxStderrLine);
}

namespace {

// Made once and never freed: a thread reading the login shell may still run
// when the process exits.
struct SearchDirsState {
  std::once_flag once;
  std::vector<std::string> dirs;
};

SearchDirsState& SearchState() {
  static SearchDirsState* state = new SearchDirsState;
  return *state;
}

}  // namespace

const std::vector<std::string>& CommandSearchDirs() {
  SearchDirsState& state = SearchState();
  std::call_once(state.once, [&state] {
    const std::string login =
        base::LoginShellPath(base::UserShell(), UserHome(), kLoginShellTimeout);
    const char* own = getenv("PATH");
    state.dirs = base::SearchDirs(login, own != nullptr ? own : "/usr/local/bin:/usr/bin:/bin");
  });
  return state.dirs;
}

void StartCommandSearch() {
  static std::once_flag started;
  std::call_once(started, [] { std::thread([] { CommandSearchDirs(); }).detach(); });
}

std::vector<std::string> LocalServerEnv(char** own, const std::vector<std::string>& search_dirs,
                                        const std::vector<config::EnvVar>& entry_env) {
  std::vector<std::string> env;
  for (char** e = own; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    if (Inherited(entry.substr(0, eq))) env.emplace_back(entry);
  }
  env.push_back("PATH=" + Joined(search_dirs));
  for (const config::EnvVar& var : entry_env) {
    const std::string prefix = var.name + "=";
    std::erase_if(env,
                  [&](const std::string& e) { return e.compare(0, prefix.size(), prefix) == 0; });
    env.push_back(prefix + var.value.Reveal());
  }
  return env;
}

// One process and what it sends, bound to the LocalProcess that made it.
class LocalProcess::Link final : public ChildSink {
 public:
  explicit Link(LocalProcess* owner) : owner_(owner) {}

  void OnChildStdout(std::string_view bytes) override {
    if (owner_->current_.get() == this) owner_->events_->OnProcessOutput(bytes);
  }
  void OnChildStderr(std::string_view bytes) override { owner_->Stderr(this, bytes); }
  void OnChildStarted(pid_t pid) override {
    if (owner_->current_.get() == this) owner_->gauges_->pid.store(pid, std::memory_order_relaxed);
  }
  void OnChildExit(const ChildExit& exit) override { owner_->Exited(this, exit); }

  std::unique_ptr<Child> child;
  std::deque<std::string> last_lines;  // this process's last stderr lines, for its exit reason
  std::string stderr_line;             // the line being read
  bool stderr_overlong = false;

 private:
  LocalProcess* owner_;
};

LocalProcess::LocalProcess(Env* env, std::string name, config::LocalServer server,
                           std::shared_ptr<LocalGauges> gauges, Events* events)
    : env_(env),
      name_(std::move(name)),
      server_(std::move(server)),
      gauges_(std::move(gauges)),
      events_(events) {}

LocalProcess::~LocalProcess() {
  KillAll();
  if (!temp_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir_, ignored);
  }
}

// The private temporary directory (TMPDIR, TMP and TEMP point to it, and it
// is the working directory unless `cwd` says otherwise), then the plan.
base::Status LocalProcess::PrepareConfinement(const std::string& command_path) {
  if (server_.confine && temp_dir_.empty()) {
    const char* tmp = getenv("TMPDIR");
    std::string base = tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp";
    std::string safe;
    for (char c : name_) safe += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
    std::string pattern = base + "/mcpgw-" + safe.substr(0, 40) + "-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return base::ErrnoError("making its temporary directory in " + base, errno);
    }
    temp_dir_ = pattern;
    gauges_->SetTempDir(temp_dir_);
    for (const char* name : {"TMPDIR", "TMP", "TEMP"}) {
      const std::string prefix = std::string(name) + "=";
      std::erase_if(environment_, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
      environment_.push_back(prefix + temp_dir_);
    }
  }
  if (!server_.confine && !server_.limits.any()) return base::Status();
  ConfineContext context;
  context.command_path = command_path;
  context.search_dirs = CommandSearchDirs();
  context.home = UserHome();
  context.temp_dir = temp_dir_;
  context.env = environment_;
  plan_ = std::make_shared<const ConfinePlan>(
      PlanConfinement(server_, context, KernelConfineSupport()));
  return base::Status();
}

void LocalProcess::Spawn() {
  Stop();
  const std::vector<std::string>& dirs = CommandSearchDirs();
  if (environment_.empty()) environment_ = LocalServerEnv(environ, dirs, server_.env);
  const std::string home_or_own = server_.cwd.empty() ? UserHome() : server_.cwd;
  base::Result<std::string> path = base::FindCommand(server_.command, dirs, home_or_own);
  if (!path.ok()) return events_->OnProcessExited(path.message());
  if (!plan_ && (server_.confine || server_.limits.any())) {
    if (base::Status prepared = PrepareConfinement(*path); !prepared.ok()) {
      return events_->OnProcessExited("could not be confined: " + prepared.message());
    }
  }
  const std::string cwd = server_.cwd.empty() && !temp_dir_.empty() ? temp_dir_ : home_or_own;
  ChildSpec spec;
  spec.path = *path;
  spec.argv.push_back(server_.command);
  for (const std::string& arg : server_.args) spec.argv.push_back(arg);
  spec.env = environment_;
  spec.cwd = cwd;
  spec.confine = plan_;
  auto link = std::make_unique<Link>(this);
  base::Result<std::unique_ptr<Child>> child = env_->SpawnChild(spec, link.get());
  if (!child.ok()) return events_->OnProcessExited("could not be started: " + child.message());
  link->child = std::move(*child);
  if (spawned_++ > 0) gauges_->restarts.fetch_add(1, std::memory_order_relaxed);
  gauges_->started_unix.store(env_->UnixNow(), std::memory_order_relaxed);
  gauges_->pid.store(0, std::memory_order_relaxed);
  current_ = std::move(link);
  spdlog::debug("server \"{}\": started {} ({})", name_, *path, server_.shown);
}

void LocalProcess::Write(std::string bytes) {
  if (current_ && current_->child) current_->child->Write(std::move(bytes));
}

void LocalProcess::Stop() {
  if (!current_) return;
  gauges_->pid.store(0, std::memory_order_relaxed);
  current_->child->Stop(2000);
  stopping_.push_back(std::move(current_));
}

void LocalProcess::KillAll() {
  current_.reset();
  stopping_.clear();
  gauges_->pid.store(0, std::memory_order_relaxed);
}

std::string LocalProcess::ExitReason(const Link& link, const ChildExit& exit) const {
  std::string reason = exit.confine_errno != 0 && plan_
                           ? DescribeConfineFailure(*plan_, exit.confine_step, exit.confine_index,
                                                    exit.confine_errno)
                           : exit.Describe();
  // The last lines it wrote on stderr usually say why.
  const std::deque<std::string>& tail = link.last_lines;
  std::string said;
  for (size_t i = tail.size() > 3 ? tail.size() - 3 : 0; i < tail.size(); ++i) {
    if (!said.empty()) said += " | ";
    said += tail[i];
  }
  if (!said.empty()) reason += "; stderr: " + base::CleanServerText(ScrubbedForLog(said), 600);
  return reason;
}

void LocalProcess::Exited(Link* link, const ChildExit& exit) {
  if (!link->stderr_line.empty()) {
    LogStderrLine(*link, std::move(link->stderr_line));
    link->stderr_line.clear();
  }
  if (current_.get() == link) {
    std::unique_ptr<Link> gone = std::move(current_);
    gauges_->pid.store(0, std::memory_order_relaxed);
    const std::string reason = ExitReason(*gone, exit);
    spdlog::info("server \"{}\": the process {}", name_, reason);
    events_->OnProcessExited(reason);
    return;  // `gone` (and its child) end here, after the report
  }
  for (auto it = stopping_.begin(); it != stopping_.end(); ++it) {
    if (it->get() != link) continue;
    std::unique_ptr<Link> gone = std::move(*it);
    stopping_.erase(it);
    if (idle()) events_->OnProcessesGone();
    return;
  }
}

void LocalProcess::Stderr(Link* link, std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    if (!link->stderr_overlong) {
      // Kept past the bound by as much as a secret may be long, so that a
      // secret across the bound is still whole when the line is scrubbed.
      const size_t room = kMaxStderrLine + kScrubMargin - link->stderr_line.size();
      link->stderr_line.append(piece.substr(0, room));
      if (piece.size() > room) link->stderr_overlong = true;
    }
    if (nl == std::string_view::npos) return;
    bytes.remove_prefix(nl + 1);
    std::string line;
    line.swap(link->stderr_line);
    link->stderr_overlong = false;
    LogStderrLine(*link, std::move(line));
  }
}

void LocalProcess::ReportDropped() {
  if (window_dropped_ == 0) return;
  spdlog::info("server \"{}\": {} stderr lines not logged (more than {} a second)", name_,
               window_dropped_, kStderrLinesPerSecond);
  window_dropped_ = 0;
}

// Every line is kept for status; the log gets kStderrLinesPerSecond a second
// and then one line counting the rest. The log's scrubber removes configured
// secrets from each line, and status scrubs the kept ones.
void LocalProcess::LogStderrLine(Link& link, std::string line) {
  while (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) return;
  gauges_->stderr_lines.fetch_add(1, std::memory_order_relaxed);
  const TimePoint now = env_->Now();
  if (!window_start_ || now - *window_start_ >= std::chrono::seconds(1)) {
    ReportDropped();
    window_start_ = now;
    window_lines_ = 0;
    window_dropped_ = 0;
  }
  if (window_lines_ < kStderrLinesPerSecond) {
    ++window_lines_;
    spdlog::info("server \"{}\": stderr: {}", name_, ShownStderrLine(line));
  } else {
    if (window_dropped_++ == 0) {
      // A server that floods and then falls silent still has its count logged.
      if (!dropped_timer_) dropped_timer_ = env_->NewTimer();
      dropped_timer_->Start(std::chrono::seconds(1), [this] { ReportDropped(); });
    }
    gauges_->stderr_dropped.fetch_add(1, std::memory_order_relaxed);
  }
  // Kept as read (at most 12 KiB): a flood costs one copy a line, and what
  // is shown of them later is made fit to show then.
  link.last_lines.push_back(line);
  if (link.last_lines.size() > 3) link.last_lines.pop_front();
  gauges_->KeepStderr(std::move(line));
}

}  // namespace mcpgw
