// Env: everything the daemon's loop-driven code needs from the world, for one
// event loop: the clocks, one-shot timers, HTTP transfers, a way to run work
// on the loop from any thread, and file reads. ServerHost and Gateway see the
// world only through it. The real one is a Worker (a thread with a libuv loop
// and a curl multi handle); tests use FakeEnv (tests/daemon/testing/), a
// manual clock and scripted HTTP on one thread, so reload, retire, cancel
// routing and shutdown are fast, deterministic unit tests. (leveldb's Env is
// the model.)
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "daemon/mcp/session.h"
#include "daemon/net/http_client.h"

namespace mcpgw {

// A one-shot timer on an Env's loop; owned by whoever made it, destroyed on
// the loop's thread. Destroying it stops it.
class Timer {
 public:
  virtual ~Timer() = default;
  // Arms the timer to run `fn` on the loop after `delay` (0: on the next
  // turn), replacing any earlier arming.
  virtual void Start(mcp::Duration delay, std::function<void()> fn) = 0;
  virtual void Stop() = 0;
};

class Env {
 public:
  virtual ~Env() = default;

  // Any thread.
  virtual mcp::TimePoint Now() = 0;  // monotonic
  virtual double UnixNow() = 0;      // wall clock, seconds since the epoch
  // Runs `fn` on this Env's loop: later, never inline, in the order posted
  // by each thread. Dropped once the loop has stopped.
  virtual void Post(std::function<void()> fn) = 0;
  // The whole file, or false with `*error` saying why (naming the path).
  virtual bool ReadFile(const std::string& path, std::string* contents, std::string* error) = 0;

  // The loop's thread only.
  virtual std::unique_ptr<Timer> NewTimer() = 0;
  virtual HttpTransport& http() = 0;
};

}  // namespace mcpgw
