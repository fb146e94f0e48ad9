// Worker: one thread that owns one libuv loop and one HttpClient. Other
// threads hand it work with Post() (a locked queue and a uv_async wake-up);
// everything posted runs on the worker's thread, in order.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <uv.h>

#include "daemon/net/http_client.h"

namespace mcpgw {

class Worker {
 public:
  explicit Worker(std::string name, HttpClientOptions http_options = {});
  ~Worker();  // Stop()s if still running
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Start();  // spawns the thread and its loop
  // Thread-safe. Runs `fn` on the worker thread. After Stop() it is dropped.
  void Post(std::function<void()> fn);
  // Thread-safe. Runs every task already posted, then ends the loop and joins
  // the thread. Handles still open on the loop are closed first.
  void Stop();

  // Worker-thread only.
  uv_loop_t* loop();
  HttpClient& http();
  bool OnWorkerThread() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw
