// ServerHost: drives one mcp::Session on its Env's loop. It feeds the session
// the HTTP events of its transfers, its timer and the calls handed to it, and
// carries out the actions the session queues: transfers on the Env's HTTP
// transport, log lines (prefixed with the server's name, scrubbed by the
// log), and finished calls, state changes and authorization requests to its
// listener. Created, used and destroyed on the loop's thread.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "daemon/gateway/local_process.h"
#include "daemon/guard/pins.h"
#include "daemon/mcp/session.h"
#include "daemon/runtime/env.h"
#include "daemon/search/tool_index.h"

namespace mcpgw {

// A copy of a server's public state, cheap to pass between threads.
struct ServerState {
  mcp::Status status = mcp::Status::kLoading;
  std::string reason;
  // The tools hosts may see: a ready server's listing without the tools its
  // pins withhold (BEHAVIOR.md §13).
  std::shared_ptr<const mcp::ToolList> tools;
  // Its pins: what is withheld and why; null when pinning is off for it.
  std::shared_ptr<const PinReport> pins;
  // The tools analysed for search, made here on the server's worker when
  // they change (null when they did not, or the server is not ready).
  std::shared_ptr<const search::AnalyzedTools> analyzed;
  std::string protocol_version;  // negotiated; empty before
  std::string http_version;      // the latest response head's: "HTTP/2", "HTTP/1.1"; empty before
  uint64_t attempts = 0;         // mcp::Session::attempts(): the metrics' reconnects
  // Only `attempts` is meant (a reconnect that changed nothing else): the
  // other fields are not filled in.
  bool attempts_only = false;
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

// How a host pins its server's tools (BEHAVIOR.md §13).
struct PinOptions {
  std::string dir;  // the pins folder; empty: pinning is off
  PinningMode mode = PinningMode::kBlock;
};

// What a host's transfers are doing now, read by the gateway's status from
// another thread: its requests waiting for a connection (the transport's
// budget per origin).
struct HostGauges {
  std::atomic<uint64_t> queued{0};
  // A local server's process (BEHAVIOR.md §17); null for a remote server.
  std::shared_ptr<LocalGauges> local;
};

class ServerHost : private HttpSink, private LocalProcess::Events {
 public:
  // `gauges` (may be null) is kept up to date from here on.
  ServerHost(Env* env, std::string name, config::RemoteServer server, mcp::SessionLimits limits,
             ServerHostListener* listener, PinOptions pins = {},
             std::shared_ptr<HostGauges> gauges = nullptr);
  // A local server (BEHAVIOR.md §17): its process runs on `env`'s loop.
  ServerHost(Env* env, std::string name, config::LocalServer server, mcp::SessionLimits limits,
             ServerHostListener* listener, PinOptions pins = {},
             std::shared_ptr<HostGauges> gauges = nullptr);
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
  // Approves withheld tools (`mcpgw approve`); they come back in the state
  // the listener hears before this returns.
  base::Result<ServerPins::Approval> Approve(const std::vector<std::string>& tools, bool all);
  // The settings changed `pinning` (kOff: nothing withheld): the listing is
  // reviewed again.
  void SetPinning(PinningMode mode);
  // Every tool of the latest listing and every pinned one, with its state.
  std::vector<PinnedTool> DescribePins();

  const mcp::Session& session() const { return session_; }

 private:
  void OnHttpHead(uint64_t tag, const ResponseHead& head) override;
  void OnHttpData(uint64_t tag, std::string_view bytes) override;
  void OnHttpDone(uint64_t tag, const TransferResult& result) override;
  // LocalProcess::Events.
  void OnProcessOutput(std::string_view bytes) override;
  void OnProcessExited(const std::string& reason) override;
  void OnProcessesGone() override;

  void Pump();  // carries out queued actions and re-arms the timer
  void ArmTimer();
  void MaybeFinishShutdown();
  // Tells the listener the session's state. A new listing of a ready
  // server is reviewed against its pins and analysed for search first;
  // `again` does so for the current listing too (an approval, a new mode).
  void PublishState(bool again = false);
  void ReportHiddenText(const mcp::ToolList& tools);
  void PublishAttempts();

  Env* env_;
  std::string pin_url_;  // the server's url as shown: its pins' key
  mcp::Session session_;
  ServerHostListener* listener_;
  std::unique_ptr<Timer> timer_;         // session wake-ups
  std::optional<mcp::TimePoint> armed_;  // when timer_ is armed to run; nullopt: stopped
  std::unique_ptr<Timer> grace_timer_;   // shutdown bound; made by Shutdown
  std::unordered_set<uint64_t> live_;    // transfers started and not yet ended
  std::string http_version_;             // of the latest response head, for the status
  std::shared_ptr<const mcp::ToolList> reviewed_tools_;  // the listing last reviewed
  std::shared_ptr<const mcp::ToolList> visible_tools_;   // it, without withheld tools
  std::string pins_dir_;
  std::shared_ptr<HostGauges> gauges_;               // may be null
  std::unique_ptr<LocalProcess> local_;              // a local server's process
  std::unique_ptr<ServerPins> pins_;                 // null: pinning is off for this server
  std::unordered_set<std::string> hidden_reported_;  // tools whose hidden text was logged
  uint64_t published_attempts_ = 0;                  // the attempts the listener last heard of
  bool pumping_ = false;
  bool shutting_down_ = false;
  bool shutdown_reported_ = false;
};

}  // namespace mcpgw
