// Worker: one thread that owns one libuv loop and one HttpClient, and is the
// real Env (daemon/env.h) of the code that runs on it. Other threads hand it
// work with Post() (a locked queue and a wake-up descriptor the loop polls);
// work posted from the worker's own thread goes to a local queue run on the
// next loop turn (no lock, no wake-up). Either way it runs later, in order,
// never inline.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <uv.h>

#include "daemon/net/http_client.h"
#include "daemon/runtime/env.h"

namespace mcpgw {

class Worker : public Env {
 public:
  explicit Worker(std::string name, HttpClientOptions http_options = {});
  ~Worker() override;  // Stop()s if still running
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Start();  // spawns the thread and its loop
  // Thread-safe. Runs every task already posted, then ends the loop and joins
  // the thread. Handles still open on the loop are closed first.
  void Stop();

  // Env. Post is thread-safe; after Stop() it drops the task.
  TimePoint Now() override;
  std::chrono::system_clock::time_point WallNow() override;
  void Post(std::function<void()> fn) override;
  base::Result<std::string> ReadFile(const std::string& path) override;
  base::Result<std::string> ReadPrivateFile(const std::string& path, size_t max_bytes) override;
  bool FileExists(const std::string& path) override;
  base::Status CreateDir(const std::string& path, int mode) override;
  base::Status WriteFileAtomically(const std::string& path, std::string_view contents,
                                   int mode) override;
  base::Status RemoveFile(const std::string& path) override;
  // Worker-thread only.
  std::unique_ptr<Timer> NewTimer() override;
  HttpClient& http() override;
  base::Result<std::unique_ptr<Child>> SpawnChild(const ChildSpec& spec, ChildSink* sink) override;

  // Worker-thread only.
  uv_loop_t* loop();
  bool OnWorkerThread() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpgw
