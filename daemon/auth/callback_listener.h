// Where the authorization server's redirect lands (RFC 8252 §7.3):
// CallbackEndpoint is what the AuthManager needs of it, an interface so tests
// deliver callbacks without sockets; CallbackListener is the real one, the
// loopback HTTP endpoint http://127.0.0.1:PORT/callback. It listens on
// 127.0.0.1 only, and only while its owner keeps it open (AuthManager opens
// it for a pending login and closes it after). Each connection carries one
// bounded GET; its query goes to the handler, whose answer becomes a small
// HTML page for the user. Runs on one libuv loop.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <uv.h>

#include "base/status.h"

namespace mcpgw::auth {

class CallbackEndpoint {
 public:
  // What the browser shows: 200 when the login went through, else 400.
  struct Page {
    int status = 200;
    std::string message;  // plain text, HTML-escaped when sent
  };
  // Called with the query string of GET /callback (without the '?').
  using Handler = std::function<Page(const std::string& query)>;

  virtual ~CallbackEndpoint() = default;
  // Listens on 127.0.0.1:`preferred_port` when free, else on any port, and
  // hands every callback to `handler` until Close(). Returns the port, or why
  // it cannot listen. Open again while open: the current port (preferred
  // ports are only a wish), with `handler` from now on.
  virtual base::Result<int> Open(int preferred_port, Handler handler) = 0;
  // Stops listening; a request already accepted still gets its page.
  virtual void Close() = 0;
};

class CallbackListener : public CallbackEndpoint {
 public:
  explicit CallbackListener(uv_loop_t* loop);
  ~CallbackListener() override;  // closes everything
  CallbackListener(const CallbackListener&) = delete;
  CallbackListener& operator=(const CallbackListener&) = delete;

  base::Result<int> Open(int preferred_port, Handler handler) override;
  void Close() override;
  bool open() const;
  int port() const;

  static constexpr size_t kMaxRequestBytes = 8192;
  static constexpr uint64_t kConnectionTimeoutMs = 10000;
  static constexpr size_t kMaxConnections = 16;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "http://127.0.0.1:PORT/callback".
std::string RedirectUriFor(int port);

}  // namespace mcpgw::auth
