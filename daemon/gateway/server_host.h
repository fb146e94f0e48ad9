// ServerHost: drives one mcp::Session on its Env's loop. It feeds the session
// the HTTP events of its transfers, its timer and the calls handed to it, and
// carries out the actions the session queues: transfers on the Env's HTTP
// transport, log lines (prefixed with the server's name, scrubbed by the
// log), and finished calls, state changes and authorization requests to its
// listener. Created, used and destroyed on the loop's thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "daemon/mcp/session.h"
#include "daemon/runtime/env.h"
#include "daemon/search/tool_index.h"

namespace mcpgw {

// A copy of a server's public state, cheap to pass between threads.
struct ServerState {
  mcp::Status status = mcp::Status::kLoading;
  std::string reason;
  std::shared_ptr<const mcp::ToolList> tools;
  // The tools analysed for search, made here on the server's worker when
  // they change (null when they did not, or the server is not ready).
  std::shared_ptr<const search::AnalyzedTools> analyzed;
  std::string protocol_version;  // negotiated; empty before
  std::string http_version;      // the latest response head's: "HTTP/2", "HTTP/1.1"; empty before
};

class ServerHostListener {
 public:
  virtual ~ServerHostListener() = default;
  // All run on the loop's thread, from inside the ServerHost: a listener
  // must not destroy the host there.
  virtual void OnStateChanged(const ServerState& state) = 0;
  virtual void OnCallFinished(mcp::CallId id, mcp::CallOutcome outcome) = 0;
  // The session waits until OnAuthorized or OnAuthorizationFailed.
  virtual void OnAuthorizationNeeded(int http_status, const std::string& www_authenticate) = 0;
  virtual void OnShutdownComplete() = 0;
};

class ServerHost : private HttpSink {
 public:
  ServerHost(Env* env, std::string name, config::RemoteServer server, mcp::SessionLimits limits,
             ServerHostListener* listener);
  ~ServerHost() override;  // aborts its transfers; stops its timers
  ServerHost(const ServerHost&) = delete;
  ServerHost& operator=(const ServerHost&) = delete;

  // `era_hint`: the protocol version the server's origin spoke before (the
  // gateway's EraCache), or empty.
  void Start(std::string_view era_hint = {});
  void Call(mcp::CallId id, std::string tool, std::string arguments_json);
  void Cancel(mcp::CallId id);
  // The session's authorization hooks (mcp::Session).
  void SetAuthorization(Secret value);
  void OnAuthorized();
  void OnAuthorizationFailed(std::string reason);
  // Shuts the session down (pending calls fail, DELETE is sent); the listener
  // hears OnShutdownComplete once every transfer has ended or `grace` passed.
  void Shutdown(mcp::Duration grace);

  const mcp::Session& session() const { return session_; }

 private:
  void OnHttpHead(uint64_t tag, const ResponseHead& head) override;
  void OnHttpData(uint64_t tag, std::string_view bytes) override;
  void OnHttpDone(uint64_t tag, const TransferResult& result) override;

  void Pump();  // carries out queued actions and re-arms the timer
  void ArmTimer();
  void MaybeFinishShutdown();
  // The session's tools analysed for search when they changed since last
  // time and the server is ready; else null.
  void ReportHiddenText(const mcp::ToolList& tools);
  std::shared_ptr<const search::AnalyzedTools> AnalyzeNewTools();

  Env* env_;
  mcp::Session session_;
  ServerHostListener* listener_;
  std::unique_ptr<Timer> timer_;         // session wake-ups
  std::optional<mcp::TimePoint> armed_;  // when timer_ is armed to run; nullopt: stopped
  std::unique_ptr<Timer> grace_timer_;   // shutdown bound
  std::unordered_set<uint64_t> live_;    // transfers started and not yet ended
  std::string http_version_;             // of the latest response head, for the status
  std::shared_ptr<const mcp::ToolList> analyzed_tools_;  // the list last analysed
  std::unordered_set<std::string> hidden_reported_;      // tools whose hidden text was logged
  bool pumping_ = false;
  bool shutting_down_ = false;
  bool shutdown_reported_ = false;
};

}  // namespace mcpgw
