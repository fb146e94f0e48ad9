// Env: everything the daemon's loop-driven code needs from the world, for one
// event loop: the clocks, one-shot timers, HTTP transfers, a way to run work
// on the loop from any thread, and files. ServerHost, Gateway and the
// AuthManager (with its TokenStore) see the world only through it. The real one is a Worker (a
// thread with a libuv loop and a curl multi handle); tests use FakeEnv (tests/daemon/testing/), a
// manual clock and scripted HTTP on one thread, so reload, retire, cancel
// routing and shutdown are fast, deterministic unit tests. (leveldb's Env is
// the model.)
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "daemon/net/http_client.h"
#include "daemon/runtime/child.h"

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
  // The wall clock: the times people read (the call log, cassettes, status)
  // and the age of files on disk. It may jump; durations use Now().
  virtual std::chrono::system_clock::time_point WallNow() = 0;
  // WallNow() in seconds since the epoch.
  double UnixNow() { return std::chrono::duration<double>(WallNow().time_since_epoch()).count(); }
  // Runs `fn` on this Env's loop: later, never inline, in the order posted
  // by each thread. Dropped once the loop has stopped.
  virtual void Post(std::function<void()> fn) = 0;
  // Files. Each call blocks, so they are for small files written rarely
  // (settings, tokens). An error names the path, never the contents; a file
  // that is not there is kNotFound.
  // The whole file.
  virtual base::Result<std::string> ReadFile(const std::string& path) = 0;
  // A file only this user's mcpgw writes (tokens, registrations): a link in
  // its place is refused (it could point anywhere), and a file larger than
  // `max_bytes` is an error, found without reading it all.
  virtual base::Result<std::string> ReadPrivateFile(const std::string& path, size_t max_bytes) = 0;
  // Whether `path` exists (a file, a directory, a link).
  virtual bool FileExists(const std::string& path) = 0;
  // Creates `path` and its missing parents with `mode`. An existing `path`
  // must be a directory of this user (a link is refused: it could point
  // anywhere) and is given `mode`: a private directory stays private.
  virtual base::Status CreateDir(const std::string& path, int mode) = 0;
  // Replaces `path` with `contents` so that a crash leaves the old file or the
  // new one, never a mix: written beside it with `mode`, synced, renamed over
  // it, the directory synced. The new file never exists with a wider mode.
  virtual base::Status WriteFileAtomically(const std::string& path, std::string_view contents,
                                           int mode) = 0;
  // Removes a file; one that does not exist is not an error.
  virtual base::Status RemoveFile(const std::string& path) = 0;

  // The loop's thread only.
  virtual std::unique_ptr<Timer> NewTimer() = 0;
  virtual HttpTransport& http() = 0;
  // Starts a local server's process on this loop (child.h); `sink` hears of
  // it until its exit. An Env without processes refuses.
  virtual base::Result<std::unique_ptr<Child>> SpawnChild(const ChildSpec& spec, ChildSink* sink) {
    (void)spec;
    (void)sink;
    return base::Status(base::ErrorKind::kInternal, "this loop cannot run processes");
  }
};

}  // namespace mcpgw
