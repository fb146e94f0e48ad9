// MetricsListener: the `metrics.listen` endpoint (BEHAVIOR.md §15), a
// minimal HTTP/1.x server on a loopback TCP address on the main loop. It
// answers `GET /metrics` with the text its render function returns (the
// Gateway's MetricsText, built from counters in microseconds per server) and
// anything else with 404, one request per connection, then closes it.
//
// It is built so that scrapes cannot hold up the loop's other work: a
// request is read up to 8 KiB (431 past it), a connection lives at most 10 s,
// at most 64 are open at once (more are closed unanswered), and replies are
// written without blocking. The Supervisor makes it on the main loop after
// the socket listens and closes it there before the loop stops.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <uv.h>

#include "base/status.h"
#include "config/settings.h"

namespace mcpgw {

class MetricsListener {
 public:
  using Render = std::function<std::string()>;

  MetricsListener(uv_loop_t* loop, Render render);
  ~MetricsListener();  // closes what is still open
  MetricsListener(const MetricsListener&) = delete;
  MetricsListener& operator=(const MetricsListener&) = delete;

  // Binds and listens; an error names the address.
  base::Status Listen(const LoopbackAddress& address);
  // "127.0.0.1:PORT" or "[::1]:PORT" with the port bound; "" before Listen.
  const std::string& address() const { return address_; }
  // Connections open now.
  size_t connections() const;
  // Stops listening and closes every connection (their handles close on
  // the loop's next turns; nothing of this object is touched then).
  void Close();

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::string address_;
};

}  // namespace mcpgw
