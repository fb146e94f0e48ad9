// Env: everything the daemon's loop-driven code needs from the world, for one
// event loop: the clocks, one-shot timers, HTTP transfers, a way to run work
// on the loop from any thread, and files. ServerHost, Gateway and the
// AuthManager (with its TokenStore) see the world only through it. The real one is a Worker (a
// thread with a libuv loop and a curl multi handle); tests use FakeEnv (tests/daemon/testing/), a
// manual clock and scripted HTTP on one thread, so reload, retire, cancel
// routing and shutdown are fast, deterministic unit tests. (leveldb's Env is
// the model.)
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "daemon/net/http_client.h"

namespace mcpgw {

// A one-shot timer on an Env's loop; owned by whoever made it, destroyed on
// the loop's thread. Destroying it stops it.
class Timer {
 public:
  virtual ~Timer() = default;
  // Arms the timer to run `fn` on the loop after `delay` (0: on the next
  // turn), replacing any earlier arming.
  virtual void Start(Duration delay, std::function<void()> fn) = 0;
  virtual void Stop() = 0;
};

class Env {
 public:
  virtual ~Env() = default;

  // Any thread.
  virtual TimePoint Now() = 0;  // monotonic
  virtual double UnixNow() = 0;      // wall clock, seconds since the epoch
  // Runs `fn` on this Env's loop: later, never inline, in the order posted
  // by each thread. Dropped once the loop has stopped.
  virtual void Post(std::function<void()> fn) = 0;
  // Files. Each call blocks, so they are for small files written rarely
  // (settings, tokens). A failure is false with `*error` saying why, naming
  // the path and never the contents.
  // The whole file.
  virtual bool ReadFile(const std::string& path, std::string* contents, std::string* error) = 0;
  // A file only this user's mcpgw writes (tokens, registrations): a link in
  // its place is refused (it could point anywhere), and a file larger than
  // `max_bytes` is an error, found without reading it all.
  virtual bool ReadPrivateFile(const std::string& path, size_t max_bytes, std::string* contents,
                               std::string* error) = 0;
  // Whether `path` exists (a file, a directory, a link).
  virtual bool FileExists(const std::string& path) = 0;
  // Creates `path` and its missing parents with `mode`. An existing `path`
  // must be a directory of this user (a link is refused: it could point
  // anywhere) and is given `mode`: a private directory stays private.
  virtual bool CreateDir(const std::string& path, int mode, std::string* error) = 0;
  // Replaces `path` with `contents` so that a crash leaves the old file or the
  // new one, never a mix: written beside it with `mode`, synced, renamed over
  // it, the directory synced. The new file never exists with a wider mode.
  virtual bool WriteFileAtomically(const std::string& path, std::string_view contents, int mode,
                                   std::string* error) = 0;
  // Removes a file; one that does not exist is not an error.
  virtual bool RemoveFile(const std::string& path, std::string* error) = 0;

  // The loop's thread only.
  virtual std::unique_ptr<Timer> NewTimer() = 0;
  virtual HttpTransport& http() = 0;
};

}  // namespace mcpgw
