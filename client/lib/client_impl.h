// Internals of libmcpgw: the handle (one connection at a time, reopened after
// loss), its pending calls, and cancel tokens. Every calling thread registers
// a pending entry, writes its frame under the connection's write lock and
// waits on the handle's condition variable; one reader thread per connection
// dispatches replies by id and, when the connection ends, fails every call
// still waiting on it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "mcpgw.h"

namespace mcpgw::client {

// Where a waiting call sleeps, so a cancel token can wake it.
struct Waiter {
  std::mutex* mu;
  std::condition_variable* cv;
};

struct Pending {
  bool done = false;
  bool want_json = false;  // status: the whole result; else result.text
  mcpgw_status status = MCPGW_OK;
  std::string text;
};

struct Connection {
  Connection() = default;
  ~Connection();  // closes fd; the handle joins `reader` before letting go
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd = -1;
  std::string hello_id;
  std::thread reader;
  // One frame at a time on the socket. A flag under a mutex rather than a
  // timed mutex: waiting for it must stay abortable.
  std::mutex write_mu;
  std::condition_variable write_cv;
  bool writing = false;
  // Guarded by the handle's mutex.
  bool dead = false;
  std::unordered_map<std::string, std::shared_ptr<Pending>> pending;  // by request id
};

}  // namespace mcpgw::client

struct mcpgw_cancel {
  std::atomic<bool> triggered{false};
  std::mutex mu;
  std::vector<mcpgw::client::Waiter> waiters;
};

struct mcpgw_client {
  std::string path;
  std::atomic<long> timeout_ms{0};
  std::atomic<bool> closing{false};
  std::mutex mu;  // guards everything below and each Connection's guarded fields
  std::condition_variable cv;
  std::shared_ptr<mcpgw::client::Connection> conn;
  uint64_t next_id = 1;
  int active_calls = 0;
};

namespace mcpgw::client {

enum class WriteResult { kOk, kAborted, kFailed };

// Opens a connection to the daemon and sends hello (the caller holds
// client->mu). On failure returns nullptr and sets *error.
std::shared_ptr<Connection> Connect(mcpgw_client* client, std::string* error);
// Writes one frame. `abort` is polled while the socket is full; a frame
// abandoned half-written breaks the connection (the reader then fails it).
WriteResult WriteFrame(Connection& conn, std::string_view frame,
                       const std::function<bool()>& abort);
// Ends the connection's socket so its reader thread returns.
void Shutdown(Connection& conn);

// Message for a call that lost its connection.
std::string LostConnectionMessage(const std::string& path);

}  // namespace mcpgw::client
