// ServerHost: drives one mcp::Session on a worker thread. It feeds the session
// the HTTP events of its transfers, its timer and the calls handed to it, and
// carries out the actions the session queues (start/abort transfers on the
// worker's HttpClient, report finished calls and state changes to its
// Listener). Created, used and destroyed on the worker thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_set>

#include <uv.h>

#include "daemon/net/http_client.h"
#include "daemon/mcp/session.h"

namespace mcpgw {

// A copy of a server's public state, cheap to pass between threads.
struct ServerState {
  mcp::Status status = mcp::Status::kLoading;
  std::string reason;
  std::shared_ptr<const mcp::ToolList> tools;
};

class ServerHostListener {
 public:
  virtual ~ServerHostListener() = default;
  // All three run on the worker thread.
  virtual void OnStateChanged(const ServerState& state) = 0;
  virtual void OnCallFinished(mcp::CallId id, mcp::CallOutcome outcome) = 0;
  virtual void OnShutdownComplete() = 0;
};

class ServerHost : private HttpSink {
 public:
  ServerHost(uv_loop_t* loop, HttpClient* http, std::string name, config::RemoteServer server,
             mcp::SessionLimits limits, ServerHostListener* listener);
  ~ServerHost() override;  // aborts its transfers; closes its timer
  ServerHost(const ServerHost&) = delete;
  ServerHost& operator=(const ServerHost&) = delete;

  void Start();
  void Call(mcp::CallId id, std::string tool, std::string arguments_json);
  void Cancel(mcp::CallId id);
  // Shuts the session down (pending calls fail, DELETE is sent); the listener
  // hears OnShutdownComplete once every transfer has ended or `grace` passed.
  void Shutdown(uint64_t grace_ms);

 private:
  void OnHttpHead(uint64_t tag, int status, std::string_view content_type,
                  std::string_view session_id) override;
  void OnHttpData(uint64_t tag, std::string_view bytes) override;
  void OnHttpDone(uint64_t tag, const mcp::TransferResult& result) override;

  void Pump();  // carries out queued actions and re-arms the timer
  void ArmTimer();
  void MaybeFinishShutdown();
  static void OnTimer(uv_timer_t* timer);
  static void OnGraceTimer(uv_timer_t* timer);

  uv_loop_t* loop_;
  HttpClient* http_;
  mcp::Session session_;
  ServerHostListener* listener_;
  uv_timer_t* timer_;                  // session wake-ups; freed in its close callback
  uv_timer_t* grace_timer_;            // shutdown bound; likewise
  std::unordered_set<uint64_t> live_;  // transfers started and not yet ended
  bool pumping_ = false;
  bool shutting_down_ = false;
  bool shutdown_reported_ = false;
};

}  // namespace mcpgw
