#include "daemon/runtime/worker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "base/platform.h"
#include "base/wake_fd.h"
#include "daemon/runtime/child_process.h"

namespace mcpgw {
namespace {

// A uv_timer_t behind the Timer interface. The handle is freed by its close
// callback, which may run after the UvTimer is gone: it only frees.
class UvTimer : public Timer {
 public:
  explicit UvTimer(uv_loop_t* loop) : handle_(new uv_timer_t) {
    uv_timer_init(loop, handle_);
    handle_->data = this;
  }
  ~UvTimer() override {
    handle_->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(handle_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  }
  UvTimer(const UvTimer&) = delete;
  UvTimer& operator=(const UvTimer&) = delete;

  void Start(Duration delay, std::function<void()> fn) override {
    fn_ = std::move(fn);
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(delay).count();
    uv_timer_start(handle_, &UvTimer::OnFire, ms > 0 ? static_cast<uint64_t>(ms) : 0, 0);
  }
  void Stop() override { uv_timer_stop(handle_); }

 private:
  static void OnFire(uv_timer_t* handle) {
    auto* self = static_cast<UvTimer*>(handle->data);
    if (self == nullptr || !self->fn_) return;
    // The callback may re-arm or destroy this timer: run a copy.
    std::function<void()> fn = self->fn_;
    fn();
  }

  uv_timer_t* handle_;
  std::function<void()> fn_;
};

base::Status Errno(const char* what, const std::string& path) {
  return base::ErrnoError(std::string(what) + " " + path, errno);
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Makes the rename that just happened in `dir` survive a crash.
void SyncDir(const std::string& dir) {
  const int fd = open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

}  // namespace

struct Worker::Impl {
  // The worker whose loop runs on this thread, if any (set by Run()).
  static inline thread_local Impl* current = nullptr;

  std::string name;
  HttpClientOptions http_options;
  uv_loop_t loop;
  // Posts from other threads make `wake` readable; the loop polls it. Not a
  // uv_async_t: libuv 1.44's async handle makes the woken loop spin (997
  // PAUSEs, then sched_yield, over and over) until the posting thread is back
  // from its write(), which on two cores it often is not. Shared, so a
  // wake-up another loop defers to its next turn (Signal) never writes to a
  // descriptor that is gone.
  std::shared_ptr<base::WakeFd> wake = std::make_shared<base::WakeFd>();
  uv_poll_t wake_poll;
  uv_idle_t idle;  // runs `local` on the next turn
  std::thread thread;
  std::atomic<std::thread::id> thread_id{};
  std::unique_ptr<HttpClient> http;  // created and destroyed on the worker thread

  std::mutex mu;  // guards the fields below
  std::vector<std::function<void()>> queue;
  bool signalled = false;  // `wake` is readable, or about to be: no second write
  bool started = false;
  bool stop_requested = false;
  // True while posts are taken and signalled: from Start() until Stop()
  // (the final batch then closes the loop's handles).
  bool open = false;

  // Worker thread only: tasks posted by the worker to itself.
  std::vector<std::function<void()>> local;
  bool closing = false;

  std::mutex stop_mu;  // serialises joining

  void Run() {
    thread_id.store(std::this_thread::get_id());
    current = this;
    base::NameThisThread(name);
    http = std::make_unique<HttpClient>(&loop, http_options);
    // Returns early only if someone called uv_stop; Shutdown() ends it for good.
    while (uv_run(&loop, UV_RUN_DEFAULT) != 0) {
    }
    uv_loop_close(&loop);
  }

  // Wakes this loop for the posts just queued. From another worker's loop the
  // write waits for that loop's next turn (its local queue), so all it posts
  // here during one turn, a batch of host frames or of finished transfers,
  // costs one wake-up and arrives as one batch.
  void Signal() {
    Impl* poster = current;
    if (poster == nullptr || poster == this || poster->closing) {
      wake->Signal();
      return;
    }
    poster->PostLocal([wake = wake] { wake->Signal(); });
  }

  void PostLocal(std::function<void()> fn) {
    if (closing) return;
    local.push_back(std::move(fn));
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle))) uv_idle_start(&idle, &Impl::OnIdle);
  }

  void RunLocal() {
    while (!local.empty()) {
      std::vector<std::function<void()>> batch;
      batch.swap(local);
      for (auto& fn : batch) fn();
    }
  }

  static void OnIdle(uv_idle_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    std::vector<std::function<void()>> batch;
    batch.swap(self->local);
    for (auto& fn : batch) fn();
    if (self->local.empty()) uv_idle_stop(handle);
  }

  static void OnWake(uv_poll_t* handle, int /*status*/, int /*events*/) {
    auto* self = static_cast<Impl*>(handle->data);
    // Drained before the queue is taken: a post that lands after the swap
    // finds `signalled` false and signals again, so none is left waiting.
    self->wake->Drain();
    std::vector<std::function<void()>> batch;
    bool stop;
    {
      std::lock_guard<std::mutex> lock(self->mu);
      batch.swap(self->queue);
      self->signalled = false;
      stop = self->stop_requested;
    }
    for (auto& fn : batch) fn();
    if (stop) self->Shutdown();
  }

  // Worker thread: runs what the worker posted to itself, destroys the
  // client, then closes every handle left on the loop (the owners of those
  // handles must not free them before the loop ends), so uv_run returns.
  void Shutdown() {
    RunLocal();
    closing = true;
    http.reset();
    uv_walk(
        &loop,
        [](uv_handle_t* h, void*) {
          if (!uv_is_closing(h)) uv_close(h, nullptr);
        },
        nullptr);
  }
};

Worker::Worker(std::string name, HttpClientOptions http_options) : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
  impl_->http_options = http_options;
}

Worker::~Worker() {
  Stop();
  if (impl_->thread.joinable()) impl_->thread.join();  // Stop() came from the worker itself
}

void Worker::Start() {
  Impl& w = *impl_;
  std::lock_guard<std::mutex> lock(w.mu);
  if (w.started || w.stop_requested) return;
  w.started = true;
  uv_loop_init(&w.loop);
  if (!w.wake->Open() || uv_poll_init(&w.loop, &w.wake_poll, w.wake->fd()) != 0) {
    // Only when descriptors have run out at start: a worker that cannot be
    // woken would leave every call to its servers waiting forever.
    std::fprintf(stderr, "mcpgwd: worker %s: cannot make its wake-up descriptor: %s\n",
                 w.name.c_str(), std::strerror(errno));
    std::abort();
  }
  w.wake_poll.data = &w;
  uv_poll_start(&w.wake_poll, UV_READABLE, &Impl::OnWake);
  uv_idle_init(&w.loop, &w.idle);
  w.idle.data = &w;
  w.open = true;
  w.signalled = true;
  w.wake->Signal();  // runs whatever was posted before Start
  w.thread = std::thread([&w] { w.Run(); });
}

void Worker::Post(std::function<void()> fn) {
  Impl& w = *impl_;
  if (OnWorkerThread()) {
    w.PostLocal(std::move(fn));
    return;
  }
  bool signal = false;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    if (!w.open && (w.started || w.stop_requested)) return;  // stopped
    w.queue.push_back(std::move(fn));
    if (w.open && !w.signalled) signal = w.signalled = true;
  }
  // Outside the lock, so the woken loop does not wait for it.
  if (signal) w.Signal();
}

void Worker::Stop() {
  Impl& w = *impl_;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    w.stop_requested = true;
    if (!w.started) {
      w.queue.clear();  // never started: nothing will run them
      return;
    }
    // Tasks posted before this line run in the final batch; later ones are
    // dropped, even while the loop finishes the task that called Stop().
    if (w.open && !w.signalled) {
      w.signalled = true;
      w.wake->Signal();
    }
    w.open = false;
  }
  // From a task: the loop ends after it; the destructor joins.
  if (OnWorkerThread()) return;
  std::lock_guard<std::mutex> stop_lock(w.stop_mu);
  if (w.thread.joinable()) w.thread.join();
}

TimePoint Worker::Now() { return Clock::now(); }

std::chrono::system_clock::time_point Worker::WallNow() { return std::chrono::system_clock::now(); }

base::Result<std::string> Worker::ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Errno("cannot read", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

base::Result<std::string> Worker::ReadPrivateFile(const std::string& path, size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ELOOP) {
      return base::InvalidInput(path + " is a link; mcpgw reads only a file it wrote there");
    }
    return Errno("cannot read", path);
  }
  std::string contents;
  char buf[8192];
  base::Status error;
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = Errno("cannot read", path);
      break;
    }
    if (n == 0) break;
    contents.append(buf, static_cast<size_t>(n));
    if (contents.size() > max_bytes) {
      error = base::InvalidInput(path + " is larger than " + std::to_string(max_bytes) + " bytes");
      break;
    }
  }
  close(fd);
  if (!error.ok()) return error;
  return contents;
}

bool Worker::FileExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

base::Status Worker::CreateDir(const std::string& path, int mode) {
  // Parents as mkdir -p makes them; each one created here gets `mode`.
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    const std::string part = path.substr(0, pos);
    if (mkdir(part.c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST) {
      return Errno("cannot create", part);
    }
  }
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return Errno("cannot stat", path);
  if (!S_ISDIR(st.st_mode)) return base::InvalidInput(path + " is not a directory");
  if (st.st_uid != geteuid()) return base::InvalidInput(path + " belongs to another user");
  // mkdir's mode passes through the umask; an existing directory may be wider.
  if (static_cast<int>(st.st_mode & 07777) != mode && chmod(path.c_str(), mode) != 0) {
    return Errno("cannot set the mode of", path);
  }
  return base::Status();
}

base::Status Worker::WriteFileAtomically(const std::string& path, std::string_view contents,
                                         int mode) {
  static std::atomic<uint64_t> counter{0};
  const std::string tmp =
      path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                      static_cast<mode_t>(mode));
  if (fd < 0) return Errno("cannot write", tmp);
  // The umask may have narrowed the mode; never widen it past `mode`.
  base::Status error;
  if (fchmod(fd, static_cast<mode_t>(mode)) != 0 || !WriteAll(fd, contents) || fsync(fd) != 0) {
    error = Errno("cannot write", tmp);
  }
  if (close(fd) != 0 && error.ok()) error = Errno("cannot write", tmp);
  if (error.ok() && rename(tmp.c_str(), path.c_str()) != 0) error = Errno("cannot replace", path);
  if (!error.ok()) {
    unlink(tmp.c_str());
    return error;
  }
  const size_t slash = path.rfind('/');
  SyncDir(slash == std::string::npos ? "" : path.substr(0, slash + 1));
  return base::Status();
}

base::Status Worker::RemoveFile(const std::string& path) {
  if (unlink(path.c_str()) == 0 || errno == ENOENT) return base::Status();
  return Errno("cannot delete", path);
}

std::unique_ptr<Timer> Worker::NewTimer() { return std::make_unique<UvTimer>(&impl_->loop); }

uv_loop_t* Worker::loop() { return &impl_->loop; }

HttpClient& Worker::http() { return *impl_->http; }

base::Result<std::unique_ptr<Child>> Worker::SpawnChild(const ChildSpec& spec, ChildSink* sink) {
  return SpawnChildProcess(loop(), spec, sink);
}

bool Worker::OnWorkerThread() const {
  return impl_->thread_id.load() == std::this_thread::get_id();
}

}  // namespace mcpgw
