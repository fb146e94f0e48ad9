#include "daemon/worker.h"

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace mcpgw {

struct Worker::Impl {
  std::string name;
  HttpClientOptions http_options;
  uv_loop_t loop;
  uv_async_t wake;
  std::thread thread;
  std::atomic<std::thread::id> thread_id{};
  std::unique_ptr<HttpClient> http;  // created and destroyed on the worker thread

  std::mutex mu;  // guards the fields below, and every uv_async_send
  std::vector<std::function<void()>> queue;
  bool started = false;
  bool stop_requested = false;
  // True while `wake` may be signalled: from Start() until the worker takes
  // its final batch (after which the handle is closed).
  bool open = false;

  std::mutex stop_mu;  // serialises joining

  void Run() {
    thread_id.store(std::this_thread::get_id());
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());  // Linux: 15 bytes
    http = std::make_unique<HttpClient>(&loop, http_options);
    // Returns early only if someone called uv_stop; Shutdown() ends it for good.
    while (uv_run(&loop, UV_RUN_DEFAULT) != 0) {
    }
    uv_loop_close(&loop);
  }

  static void OnWake(uv_async_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    std::vector<std::function<void()>> batch;
    bool stop;
    {
      std::lock_guard<std::mutex> lock(self->mu);
      batch.swap(self->queue);
      stop = self->stop_requested;
      if (stop) self->open = false;  // later posts are dropped
    }
    for (auto& fn : batch) fn();
    if (stop) self->Shutdown();
  }

  // Worker thread: destroys the client, then closes every handle left on the
  // loop (the owners of those handles must not free them before the loop
  // ends), so uv_run returns.
  void Shutdown() {
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
  uv_async_init(&w.loop, &w.wake, &Impl::OnWake);
  w.wake.data = &w;
  w.open = true;
  uv_async_send(&w.wake);  // runs whatever was posted before Start
  w.thread = std::thread([&w] { w.Run(); });
}

void Worker::Post(std::function<void()> fn) {
  Impl& w = *impl_;
  std::lock_guard<std::mutex> lock(w.mu);
  if (!w.open && (w.started || w.stop_requested)) return;  // stopped
  w.queue.push_back(std::move(fn));
  if (w.open) uv_async_send(&w.wake);
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
    if (w.open) uv_async_send(&w.wake);
  }
  // From a task: the loop ends after it; the destructor joins.
  if (OnWorkerThread()) return;
  std::lock_guard<std::mutex> stop_lock(w.stop_mu);
  if (w.thread.joinable()) w.thread.join();
}

uv_loop_t* Worker::loop() { return &impl_->loop; }

HttpClient& Worker::http() { return *impl_->http; }

bool Worker::OnWorkerThread() const {
  return impl_->thread_id.load() == std::this_thread::get_id();
}

}  // namespace mcpgw
