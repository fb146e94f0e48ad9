// Test scaffolding for the local protocol: an IpcServer with a recording fake
// IpcHandler on its own libuv loop thread, a temporary socket directory, and
// a raw line-oriented client. Shared by the IpcServer and libmcpgw tests.
#pragma once

#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <uv.h>

#include "daemon/ipc/ipc_server.h"
#include "proto/messages.h"

namespace mcpgw::testing {

using namespace std::chrono_literals;

// A fresh 0700 directory under /tmp (short: socket paths are limited),
// removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/mcpgw-t-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Records what the server hands it; replies through a hook that runs on the
// loop thread (so it may call the server directly).
class FakeHandler : public IpcHandler {
 public:
  struct Request {
    Ticket ticket;
    Peer peer;
    std::string method;
    std::string params;  // compact JSON
    std::string frame;   // as received
  };
  // Called on the loop thread for each request; may reply through `server`.
  std::function<void(const Request&)> on_request;
  IpcServer* server = nullptr;  // set on the loop thread by ServerThread

  void OnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                 const rapidjson::Value& params, std::string_view frame) override {
    Request r{ticket, peer, std::string(method), proto::CompactJson(params), std::string(frame)};
    if (on_request) on_request(r);
    std::lock_guard lock(mu_);
    requests_.push_back(std::move(r));
    cv_.notify_all();
  }
  void OnCancel(Ticket ticket) override {
    std::lock_guard lock(mu_);
    cancels_.push_back(ticket);
    cv_.notify_all();
  }
  std::vector<Request> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  std::vector<Ticket> cancels() {
    std::lock_guard lock(mu_);
    return cancels_;
  }
  // Waits up to 5 s until `n` requests (or cancels) were seen.
  bool WaitRequests(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return requests_.size() >= n; });
  }
  bool WaitCancels(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return cancels_.size() >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Request> requests_;
  std::vector<Ticket> cancels_;
};

// An IpcServer on a loop thread. Run() executes code on that thread.
class ServerThread {
 public:
  // Listens on `path`, or on `listen_fd` when it is >= 0.
  ServerThread(FakeHandler* handler, std::string path, IpcServerOptions options = {},
               int listen_fd = -1) {
    std::promise<std::string> started;
    auto started_future = started.get_future();
    thread_ = std::thread(
        [this, handler, path, options, listen_fd, started = std::move(started)]() mutable {
          uv_loop_init(&loop_);
          uv_async_init(&loop_, &async_,
                        [](uv_async_t* a) { static_cast<ServerThread*>(a->data)->RunPosted(); });
          async_.data = this;
          server_ = std::make_unique<IpcServer>(&loop_, handler, options);
          handler->server = server_.get();
          started.set_value(
              (listen_fd >= 0 ? server_->ListenFd(listen_fd) : server_->Listen(path)).message());
          uv_run(&loop_, UV_RUN_DEFAULT);
          uv_loop_close(&loop_);
        });
    listen_error_ = started_future.get();
  }
  ~ServerThread() { Stop(); }
  ServerThread(const ServerThread&) = delete;
  ServerThread& operator=(const ServerThread&) = delete;

  const std::string& listen_error() const { return listen_error_; }

  // Runs `fn` on the loop thread and waits for it.
  void Run(std::function<void(IpcServer&)> fn) {
    std::promise<void> done;
    Post([&] {
      fn(*server_);
      done.set_value();
    });
    done.get_future().wait();
  }
  // Destroys the server (closing every connection) and ends the loop.
  void Stop() {
    if (!thread_.joinable()) return;
    Post([this] {
      server_.reset();
      uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    });
    thread_.join();
  }

 private:
  void Post(std::function<void()> fn) {
    {
      std::lock_guard lock(mu_);
      posted_.push_back(std::move(fn));
    }
    uv_async_send(&async_);
  }
  void RunPosted() {
    std::deque<std::function<void()>> batch;
    {
      std::lock_guard lock(mu_);
      batch.swap(posted_);
    }
    for (auto& fn : batch) fn();
  }

  uv_loop_t loop_{};
  uv_async_t async_{};
  std::unique_ptr<IpcServer> server_;
  std::thread thread_;
  std::mutex mu_;
  std::deque<std::function<void()>> posted_;
  std::string listen_error_;
};

// A blocking client speaking raw lines, with timeouts so no test can hang.
class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~RawClient() { Close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // The next line without its newline; "" on EOF or after `timeout`.
  std::string ReadLine(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char chunk[65536];
      ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
      if (n <= 0) {
        eof_ = true;
        return "";
      }
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }
  // Decodes the next line; fails the test's REQUIREs through !ok when absent.
  proto::Decoded ReadMessage(std::chrono::milliseconds timeout = 5s) {
    std::string line = ReadLine(timeout);
    if (line.empty()) return proto::Decoded{};
    return proto::DecodeMessage(line);
  }
  // True once the peer closed (reads until EOF, up to `timeout`).
  bool WaitEof(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!eof_ && std::chrono::steady_clock::now() < deadline) {
      ReadLine(std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now()));
    }
    return eof_;
  }
  bool Hello() {
    Send(proto::EncodeHello("0", "test"));
    proto::Decoded d = ReadMessage();
    return d.ok && !d.message.is_error;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool eof_ = false;
  std::string buf_;
};

}  // namespace mcpgw::testing
