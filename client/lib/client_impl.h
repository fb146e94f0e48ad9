// Internals of libmcpgw. A Core is one handle (mcpgw_client): the connection
// to the daemon, its output queue and the requests in flight, all under one
// mutex that is never held across a blocking system call. The Core does no
// waiting of its own; it is driven either by the host's event loop
// (mcpgw_process() when the HostPoller descriptor is readable: core.cc) or by
// blocked callers of the classic functions taking turns as the one "leader"
// that polls the socket while the others sleep on their condition variables
// (blocking.cc). Replies are read by one thread at a time (the reader role),
// which parses them outside the mutex. Finished requests of the pollable
// interface are delivered only from mcpgw_process(), on the host's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "client/lib/wake.h"
#include "mcpgw.h"
#include "proto/frame.h"

namespace mcpgw::client {

using Clock = std::chrono::steady_clock;

// How a request ended: on MCPGW_OK the answer, otherwise an error message.
// This is what mcpgw.h hands a host (a status code and a text), so it stays
// in the C ABI's terms; a base::Status becomes one through OutcomeOf.
struct Outcome {
  mcpgw_status status = MCPGW_OK;
  std::string text;
};

// A caller blocked in one of the classic functions until its request ends.
struct Waiter {
  std::condition_variable cv;
  bool done = false;  // guarded by the Core's mutex
  Outcome outcome;
};

struct Request {
  uint64_t id = 0;  // also its id on the wire (decimal)
  // The method's result is an object handed over whole (status); else its "text"
  // (proto/methods.h says which).
  bool want_json = false;
  bool started = false;  // a byte of its frame reached the socket
  bool retried = false;  // re-queued once on a new connection already
  // How it completes: a blocked caller, or a callback (pollable interface).
  Waiter* waiter = nullptr;
  mcpgw_done done = nullptr;
  void* user_data = nullptr;
  std::optional<Clock::time_point> deadline;  // pollable interface only
};

// One frame waiting in the output queue.
struct OutFrame {
  std::string bytes;
  uint64_t request = 0;  // the request it carries; 0 for hello and cancel
};

// One connection to the daemon. The descriptor closes with the last reference
// (the reader may still hold one after the connection was given up).
struct Connection {
  Connection() = default;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd = -1;
  uint64_t hello_id = 0;
  proto::FrameDecoder decoder;  // only the reader role touches it
};

// A finished pollable request whose callback is still to run.
struct Finished {
  mcpgw_request id = 0;
  mcpgw_done done = nullptr;
  void* user_data = nullptr;
  Outcome outcome;
};

class Core {
 public:
  explicit Core(std::string path);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  const std::string& path() const { return path_; }
  void SetTimeoutMs(long ms) { timeout_ms_ = ms < 0 ? 0 : ms; }

  // The pollable interface (mcpgw.h).
  mcpgw_request Start(std::string_view method, std::string_view params, mcpgw_done done,
                      void* user_data);
  // A request refused before it was sent: its callback runs with `status`.
  mcpgw_request Refuse(mcpgw_status status, std::string message, mcpgw_done done, void* user_data);
  bool Cancel(mcpgw_request id);
  int HostFd(int* events);
  long TimeoutMs();
  int Process();
  Outcome ConnectNow();

  // The classic interface (blocking.cc): runs one request to its end, the
  // token's trigger, the handle's timeout or Close().
  Outcome Run(std::string_view method, std::string_view params, mcpgw_cancel* cancel);
  // Called by a cancel token for a caller blocked in Run().
  void Interrupt(Waiter* waiter);

  // Ends everything: blocked callers return MCPGW_CANCELLED, pending
  // callbacks run with MCPGW_CANCELLED on this thread. Waits for blocked
  // callers to leave.
  void Close();

 private:
  using Lock = std::unique_lock<std::mutex>;

  // Everything below runs with mu_ held (the Locked suffix says so where it
  // matters; Lock& parameters may be released and taken again inside).
  uint64_t StartLocked(std::string_view method, std::string_view params, Waiter* waiter,
                       mcpgw_done done, void* user_data);
  base::Status EnsureConnectedLocked();
  void QueueLocked(std::string frame, uint64_t request);
  // Writes what the socket takes now; never blocks.
  void FlushLocked();
  bool output_pending() const { return !out_.empty(); }
  void UpdateInterestLocked();
  // Ends a request in flight (its reply will be ignored): drops its frame if
  // no byte of it was written, else queues a cancel behind it.
  void AbandonLocked(uint64_t id, bool started);
  void CompleteLocked(Request& request, Outcome outcome);
  void CompleteLocked(uint64_t id, Outcome outcome);
  // The connection is gone: requests the daemon may have seen fail with
  // `message`; the others go out again on a new connection.
  void LoseConnectionLocked(const std::shared_ptr<Connection>& conn, mcpgw_status status,
                            const std::string& message);
  void ExpireLocked(Clock::time_point now);
  // Reads and dispatches what the socket holds, as the reader role. Returns
  // false when another thread holds the role. Releases `lock` while reading.
  bool ReadAvailable(Lock& lock);
  // Delivery of pollable completions outside process(): wakes the host.
  void SignalHostLocked();

  // Blocking interface (blocking.cc).
  void LeadLocked(Lock& lock, Waiter* self, std::optional<Clock::time_point> deadline);
  void HandOffLocked();

  const std::string path_;
  std::atomic<long> timeout_ms_{0};

  std::mutex mu_;
  bool closing_ = false;
  uint64_t next_id_ = 1;
  std::shared_ptr<Connection> conn_;
  std::deque<OutFrame> out_;
  size_t out_head_ = 0;  // bytes of out_.front() already written
  std::unordered_map<uint64_t, Request> requests_;
  std::set<std::pair<Clock::time_point, uint64_t>> deadlines_;  // pollable requests
  bool reading_ = false;                                        // a thread holds the reader role
  std::vector<char> read_buf_;                                  // the reader role's
  int async_pending_ = 0;           // pollable requests not finished yet
  std::vector<Finished> finished_;  // pollable completions waiting for Process()
  int processing_ = 0;              // threads inside Process() (they deliver finished_)

  HostPoller host_;
  bool host_signaled_ = false;

  // Blocking interface.
  base::WakeFd leader_wake_;
  Waiter* leader_ = nullptr;
  bool leader_polling_ = false;      // the leader is inside poll()
  bool leader_polls_write_ = false;  // ... with POLLOUT
  std::vector<Waiter*> blocked_;     // callers in Run(), leader included
  std::condition_variable idle_cv_;  // Close() waits here for blocked_ to empty
};

// Message for a request whose connection was lost after it was sent.
std::string LostConnectionMessage(const std::string& path);
// Connects to the daemon at `path` and checks who serves it. Returns the
// non-blocking socket, or why not (unavailable).
base::Result<int> ConnectSocket(const std::string& path);
// The outcome a host sees for an error: its kind's status and its message.
Outcome OutcomeOf(const base::Status& error);
// Turns one reply frame into the id it answers and an outcome; false for a
// frame that is not a reply to one of ours. A result's "text" becomes the
// outcome's text (*has_text); a result without one is kept as compact JSON.
bool DecodeReply(std::string_view frame, uint64_t* id, Outcome* outcome, bool* has_text);

}  // namespace mcpgw::client

struct mcpgw_client {
  explicit mcpgw_client(std::string path) : core(std::move(path)) {}
  mcpgw::client::Core core;
};

struct mcpgw_cancel {
  std::atomic<bool> triggered{false};
  std::mutex mu;
  // The blocked callers using this token, with their handles.
  std::vector<std::pair<mcpgw::client::Core*, mcpgw::client::Waiter*>> waiters;
};
