// A scripted stand-in for mcpgwd that speaks the local protocol at the byte
// level, for client tests that need what the real IpcServer hides: the exact
// bytes of each frame, a daemon that stops reading (a full socket), replies
// sent only when a test says so. One thread owns the listening socket and
// every connection; tests talk to it through thread-safe methods.
#pragma once

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <rapidjson/document.h>

#include "proto/messages.h"

namespace mcpgw::testing {

class RawDaemon {
 public:
  struct Frame {
    int conn = 0;       // which accepted connection (1, 2, ...)
    std::string bytes;  // the line as received, without its newline
    std::string id;     // its id as JSON text ("" for notifications)
    std::string method;
    bool valid = false;  // one JSON object
  };
  // Decides the reply to a request (the whole frame, newline included), or
  // "" to leave it unanswered until Reply().
  using Script = std::function<std::string(const Frame&)>;

  explicit RawDaemon(std::string path, Script script = nullptr)
      : path_(std::move(path)), script_(std::move(script)) {
    listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof(addr.sun_path) - 1);
    unlink(path_.c_str());
    ok_ = bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
          listen(listen_fd_, 16) == 0 && pipe(wake_) == 0;
    if (ok_) thread_ = std::thread([this] { Loop(); });
  }
  ~RawDaemon() { Stop(); }
  RawDaemon(const RawDaemon&) = delete;
  RawDaemon& operator=(const RawDaemon&) = delete;

  bool ok() const { return ok_; }

  // Closes every connection and the listening socket (the path is removed).
  void Stop() {
    if (!thread_.joinable()) return;
    stop_ = true;
    Wake();
    thread_.join();
    for (auto& [fd, c] : conns_) close(fd);
    conns_.clear();
    close(listen_fd_);
    close(wake_[0]);
    close(wake_[1]);
    unlink(path_.c_str());
  }

  // While paused the daemon reads nothing: clients' writes fill the socket.
  void SetReading(bool reading) {
    reading_ = reading;
    Wake();
  }
  // Sends `bytes` on connection `conn` (1 = the first accepted).
  void Send(int conn, std::string bytes) {
    {
      std::lock_guard lock(mu_);
      outbox_.emplace_back(conn, std::move(bytes));
    }
    Wake();
  }
  // Answers request `id` (JSON text) of the latest connection with a text result.
  void Reply(const std::string& id, const std::string& text) {
    Send(connections(), proto::EncodeTextResult(id, text));
  }

  // Bytes clients wrote that the daemon has not read yet (all connections).
  size_t Unread() {
    std::lock_guard lock(mu_);
    size_t total = 0;
    for (int fd : fds_) {
      int n = 0;
      if (ioctl(fd, FIONREAD, &n) == 0) total += static_cast<size_t>(n);
    }
    return total;
  }
  // Waits until more than `bytes` wait unread.
  bool WaitUnread(size_t bytes, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (Unread() <= bytes) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  std::vector<Frame> frames() {
    std::lock_guard lock(mu_);
    return frames_;
  }
  int connections() {
    std::lock_guard lock(mu_);
    return accepted_;
  }
  // Waits up to `timeout` until `pred(frames)` holds.
  bool WaitFrames(const std::function<bool(const std::vector<Frame>&)>& pred,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return pred(frames_); });
  }
  // Frames whose method is `method`.
  std::vector<Frame> With(const std::string& method) {
    std::vector<Frame> out;
    for (Frame& f : frames()) {
      if (f.method == method) out.push_back(f);
    }
    return out;
  }
  bool WaitMethodCount(const std::string& method, size_t n,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    return WaitFrames(
        [&](const std::vector<Frame>& fs) {
          size_t count = 0;
          for (const Frame& f : fs) count += f.method == method;
          return count >= n;
        },
        timeout);
  }

 private:
  struct Conn {
    int number = 0;
    std::string in;
    size_t scanned = 0;
    std::string out;
  };

  void Wake() {
    const char b = 1;
    (void)!write(wake_[1], &b, 1);
  }

  void Loop() {
    while (!stop_) {
      std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      {
        std::lock_guard lock(mu_);
        for (auto& [conn, bytes] : outbox_) {
          for (auto& [fd, c] : conns_) {
            if (c.number == conn) c.out += bytes;
          }
        }
        outbox_.clear();
      }
      for (auto& [fd, c] : conns_) {
        short events = reading_ ? POLLIN : 0;
        if (!c.out.empty()) events |= POLLOUT;
        if (events != 0) fds.push_back({fd, events, 0});  // paused: not even hang-ups
      }
      poll(fds.data(), fds.size(), 200);
      if (fds[0].revents & POLLIN) {
        char buf[64];
        (void)!read(wake_[0], buf, sizeof(buf));
      }
      if (fds[1].revents & POLLIN) {
        const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
          std::lock_guard lock(mu_);
          conns_[fd].number = ++accepted_;
          fds_.push_back(fd);
        }
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        auto it = conns_.find(fds[i].fd);
        if (it == conns_.end()) continue;
        Conn& c = it->second;
        bool closed = false;
        if (fds[i].revents & POLLOUT) {
          const ssize_t n = send(fds[i].fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
          if (n > 0) c.out.erase(0, static_cast<size_t>(n));
        }
        if (reading_ && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
          char buf[65536];
          const ssize_t n = recv(fds[i].fd, buf, sizeof(buf), 0);
          if (n <= 0) {
            closed = true;
          } else {
            c.in.append(buf, static_cast<size_t>(n));
            HandleInput(c);
          }
        }
        if (closed) {
          {
            std::lock_guard lock(mu_);
            fds_.erase(std::find(fds_.begin(), fds_.end(), fds[i].fd));
          }
          close(fds[i].fd);
          conns_.erase(it);
        }
      }
    }
  }

  // Reads a frame as libmcpgw writes it ({"jsonrpc":"2.0","id":N,"method":...
  // or a cancel), without limits on numbers: tests send 1e400 through.
  static void Decode(Frame* f) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseNumbersAsStringsFlag>(f->bytes.data(), f->bytes.size());
    f->valid = !doc.HasParseError() && doc.IsObject();
    if (!f->valid) return;
    if (auto m = doc.FindMember("method"); m != doc.MemberEnd() && m->value.IsString()) {
      f->method = m->value.GetString();
    }
    constexpr std::string_view kIdAt = R"({"jsonrpc":"2.0","id":)";
    if (f->bytes.rfind(kIdAt, 0) == 0) {
      const size_t end = f->bytes.find(',', kIdAt.size());
      f->id = f->bytes.substr(kIdAt.size(), end - kIdAt.size());
    }
  }

  void HandleInput(Conn& c) {
    size_t nl;
    while ((nl = c.in.find('\n', c.scanned)) != std::string::npos) {
      Frame f;
      f.conn = c.number;
      f.bytes = c.in.substr(0, nl);
      c.in.erase(0, nl + 1);
      c.scanned = 0;
      Decode(&f);
      std::string reply;
      if (f.method == "hello") {
        reply = proto::EncodeHelloResult(f.id, "rawd 0");
      } else if (script_ && !f.id.empty()) {
        reply = script_(f);
      }
      c.out += reply;
      std::lock_guard lock(mu_);
      frames_.push_back(std::move(f));
      cv_.notify_all();
    }
    c.scanned = c.in.size();  // no newline before here: a long frame is scanned once
  }

  std::string path_;
  Script script_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  bool ok_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<bool> reading_{true};
  std::thread thread_;
  std::map<int, Conn> conns_;  // loop thread only (after start)

  std::mutex mu_;
  std::condition_variable cv_;
  int accepted_ = 0;
  std::vector<int> fds_;  // open connections
  std::vector<Frame> frames_;
  std::deque<std::pair<int, std::string>> outbox_;
};

}  // namespace mcpgw::testing
