// A scriptable HTTP/1.1 server on 127.0.0.1 for the HTTP engine's tests: a
// thread accepts, one thread per connection reads requests (keep-alive) and
// hands each to the test's handler, which writes whatever bytes it wants —
// a response, a body in delayed chunks, a stall, a close mid-body. It records
// every request and counts accepted connections, and those it has finished
// serving. Header-only: tests include it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace mcpgw::testing {

struct TestRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  size_t connection = 0;  // which accepted connection carried it (1-based)

  // The value of header `name` (case-insensitive), or "" when absent.
  std::string Header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n.size() != name.size()) continue;
      bool same = true;
      for (size_t i = 0; i < n.size() && same; i++) same = tolower(n[i]) == tolower(name[i]);
      if (same) return v;
    }
    return "";
  }
  bool HasHeader(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n.size() != name.size()) continue;
      bool same = true;
      for (size_t i = 0; i < n.size() && same; i++) same = tolower(n[i]) == tolower(name[i]);
      if (same) return true;
    }
    return false;
  }
};

class HttpTestServer;

// One accepted connection, as the handler sees it.
class TestConnection {
 public:
  TestConnection(int fd, HttpTestServer* server) : fd_(fd), server_(server) {}
  // Sends bytes; false once the peer is gone or the connection was closed.
  bool Write(std::string_view bytes) {
    while (!bytes.empty() && !closed_) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return !closed_;
  }
  // Ends the connection now (FIN); the server reads no further request on it.
  void Close() {
    closed_ = true;
    ::shutdown(fd_, SHUT_RDWR);
  }
  // Sleeps up to `ms`, cut short when the server stops. False if it stopped.
  bool Sleep(int ms);
  bool closed() const { return closed_; }

  // A whole response with Content-Length.
  void Respond(int status, const std::vector<std::pair<std::string, std::string>>& headers,
               std::string_view body) {
    Write(Head(status, headers) + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
    Write(body);
  }
  // The status line and the given headers, without the blank line.
  static std::string Head(int status,
                          const std::vector<std::pair<std::string, std::string>>& headers) {
    std::string out = "HTTP/1.1 " + std::to_string(status) + " " + Reason(status) + "\r\n";
    for (const auto& [n, v] : headers) out += n + ": " + v + "\r\n";
    return out;
  }
  static const char* Reason(int status) {
    switch (status) {
      case 200:
        return "OK";
      case 204:
        return "No Content";
      case 302:
        return "Found";
      case 401:
        return "Unauthorized";
      case 404:
        return "Not Found";
      case 500:
        return "Internal Server Error";
      default:
        return "Status";
    }
  }

 private:
  int fd_;
  HttpTestServer* server_;
  bool closed_ = false;
};

using TestHandler = std::function<void(const TestRequest&, TestConnection&)>;

class HttpTestServer {
 public:
  explicit HttpTestServer(TestHandler handler = nullptr) : handler_(std::move(handler)) {
    if (!handler_) {
      handler_ = [](const TestRequest&, TestConnection& c) {
        c.Respond(200, {{"Content-Type", "text/plain"}}, "ok");
      };
    }
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(listen_fd_, 512);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }
  ~HttpTestServer() { Stop(); }
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;

  uint16_t port() const { return port_; }
  std::string Url(std::string_view path = "/mcp") const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  size_t accepted() const { return accepted_.load(); }
  // Connections served to their end: their handler closed them, or a read
  // found the client gone.
  size_t ended() const { return ended_.load(); }
  std::vector<TestRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.size();
  }

  // Wakes sleeping handlers, ends every connection and joins all threads.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
      for (int fd : conn_fds_) ::shutdown(fd, SHUT_RDWR);
    }
    cv_.notify_all();
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    accept_thread_.join();
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      threads.swap(conn_threads_);
    }
    for (auto& t : threads) t.join();
    for (int fd : conn_fds_) ::close(fd);
    ::close(listen_fd_);
  }

  // Used by TestConnection::Sleep.
  bool SleepFor(int ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return !cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
  }

 private:
  void AcceptLoop() {
    for (;;) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) {
        ::close(fd);
        return;
      }
      size_t number = accepted_.fetch_add(1) + 1;
      // Descriptors stay open until Stop() so a number is never reused while
      // Stop() may still shut it down.
      conn_fds_.push_back(fd);
      conn_threads_.emplace_back([this, fd, number] {
        Serve(fd, number);
        ended_.fetch_add(1);
      });
    }
  }

  void Serve(int fd, size_t number) {
    TestConnection conn(fd, this);
    std::string buffer;
    char chunk[16384];
    while (!conn.closed()) {
      size_t end;
      while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<size_t>(n));
      }
      TestRequest request;
      request.connection = number;
      std::string_view head(buffer.data(), end);
      size_t line_end = head.find("\r\n");
      std::string_view line = head.substr(0, line_end);
      size_t s1 = line.find(' ');
      size_t s2 = line.find(' ', s1 + 1);
      request.method = std::string(line.substr(0, s1));
      request.target = std::string(line.substr(s1 + 1, s2 - s1 - 1));
      size_t content_length = 0;
      size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
      while (pos < head.size()) {
        size_t next = head.find("\r\n", pos);
        if (next == std::string_view::npos) next = head.size();
        std::string_view h = head.substr(pos, next - pos);
        size_t colon = h.find(':');
        if (colon != std::string_view::npos) {
          std::string name(h.substr(0, colon));
          std::string_view value = h.substr(colon + 1);
          while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
          request.headers.emplace_back(name, std::string(value));
        }
        pos = next + 2;
      }
      std::string cl = request.Header("Content-Length");
      if (!cl.empty()) content_length = std::stoul(cl);
      buffer.erase(0, end + 4);
      while (buffer.size() < content_length) {
        ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<size_t>(n));
      }
      request.body = buffer.substr(0, content_length);
      buffer.erase(0, content_length);
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(request);
      }
      handler_(request, conn);
    }
  }

  TestHandler handler_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread accept_thread_;
  std::atomic<size_t> accepted_{0};
  std::atomic<size_t> ended_{0};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<TestRequest> requests_;
  std::vector<int> conn_fds_;
  std::vector<std::thread> conn_threads_;
};

inline bool TestConnection::Sleep(int ms) { return server_->SleepFor(ms); }

// A loopback port with nothing listening on it (connecting is refused).
inline uint16_t ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);  // bound but never listening: the port stays unused
  return ntohs(addr.sin_port);
}

}  // namespace mcpgw::testing
