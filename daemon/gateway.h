// Gateway: the daemon's request handler on its main loop. It answers the two
// tools and `status` for IpcServer, keeps the Catalog (what hosts see) in
// step with every server's state, and routes calls to the ServerHost of the
// server's worker thread, matching finished calls back to their tickets.
// Owns one HostBridge per accepted server; refused entries have none.
// Every reason and error message it lets out passes through its Scrubber.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config/config.h"
#include "daemon/catalog.h"
#include "daemon/ipc/ipc_server.h"
#include "daemon/mcp/session.h"
#include "daemon/worker.h"

namespace mcpgw {

class CallLog;
class Scrubber;
namespace auth {
class AuthManager;
class SessionLink;
}  // namespace auth

struct GatewayOptions {
  std::string config_path;
  std::string socket_path;
  mcp::SessionLimits limits;
  uint64_t shutdown_grace_ms = 3000;  // DELETE of sessions before exit
};

class Gateway : public IpcHandler {
 public:
  // `main` is the worker whose loop runs the gateway and the IpcServer;
  // `workers` run the servers' sessions. Both outlive the Gateway's use.
  Gateway(Worker* main, std::vector<Worker*> workers, GatewayOptions options);
  ~Gateway() override;
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // All below on the main loop.
  void SetIpcServer(IpcServer* ipc) { ipc_ = ipc; }
  void SetCallLog(CallLog* log) { call_log_ = log; }
  void SetPolicy(std::shared_ptr<const Policy> policy);
  // The snapshot that reasons, errors and status are scrubbed with. Set it
  // before Load/Reload so the new servers' secrets are covered from the start.
  void SetScrubber(std::shared_ptr<const Scrubber> scrubber);
  // The OAuth client (SPEC §9), set before Load; null: no OAuth, and login,
  // login_wait and logout are refused.
  void SetAuthManager(auth::AuthManager* manager) { auth_ = manager; }
  // What the AuthManager reports to: it reaches sessions through the gateway.
  auth::SessionLink* auth_link();
  // Runs on the main loop for every secret the AuthManager learns (tokens,
  // codes, verifiers, client secrets); the daemon extends its scrubbers.
  void SetSecretSink(std::function<void(const Secret&)> sink) { secret_sink_ = std::move(sink); }
  // Starts a session per accepted entry; refused ones show as error.
  void Load(const config::Config& config);
  // A new configuration: unchanged servers keep their sessions and calls,
  // removed ones are shut down, added or changed ones start loading.
  void Reload(const config::Config& config);
  // A reload whose file was unusable: the old configuration stays.
  void ReloadFailed(std::string error);
  // Shuts every session down (DELETE), then runs `done` on the main loop.
  void Shutdown(std::function<void()> done);
  // Destroys the hosts on their workers. Call after Shutdown's `done`, before
  // the workers stop.
  void ReleaseHosts();

  void OnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                 const rapidjson::Value& params) override;
  void OnCancel(Ticket ticket) override;

  std::string StatusJson() const;

 private:
  struct Record;
  struct PendingCall;
  class HostBridge;

  // Runs `fn` now when already on `worker`'s thread, else posts it there.
  template <typename F>
  void RunOn(Worker* worker, F&& fn);
  void HandleCall(Ticket ticket, const Peer& peer, const rapidjson::Value& params);
  // login, login_wait and logout (gateway_auth.cc).
  void HandleAuthRequest(Ticket ticket, std::string_view method, const rapidjson::Value& params);
  // The server's "oauth" status member: null, or what the AuthManager says.
  std::string AuthStatusJson(uint64_t auth_id) const;
  class AuthLink;
  // What the AuthManager tells a server's session, by its auth id.
  void SetSessionAuthorization(uint64_t auth_id, const Secret& value);
  void SessionAuthorized(uint64_t auth_id);
  void SessionAuthorizationFailed(uint64_t auth_id, const std::string& reason);
  void OnStateChanged(const std::shared_ptr<Record>& rec, struct ServerState state);
  void OnCallFinished(mcp::CallId id, mcp::CallOutcome outcome);
  void OnHostShutdown(HostBridge* bridge);
  void MaybeFinishShutdown();
  void Apply(const config::Config& config);
  std::shared_ptr<Record> NewRecord(const config::Entry& entry);
  void Retire(Record& rec);
  void ReplyError(Ticket ticket, proto::ErrorKind kind, std::string message);
  std::string Scrubbed(std::string text) const;
  void LogCall(const Peer& peer, const std::string& ns, const std::string& tool,
               std::chrono::steady_clock::time_point start, std::string_view outcome,
               const mcp::CallOutcome* result);

  Worker* main_;
  std::vector<Worker*> workers_;
  GatewayOptions options_;
  IpcServer* ipc_ = nullptr;
  CallLog* call_log_ = nullptr;
  auth::AuthManager* auth_ = nullptr;
  std::shared_ptr<AuthLink> auth_link_;  // made by auth_link(), in gateway_auth.cc
  std::function<void(const Secret&)> secret_sink_;
  uint64_t next_auth_id_ = 1;
  std::shared_ptr<const Scrubber> scrubber_;
  Catalog catalog_;
  std::string listing_literal_;                   // catalog_.Listing() as a JSON string; "" = stale
  std::vector<std::shared_ptr<Record>> records_;  // config order
  std::unordered_map<std::string, std::shared_ptr<Record>> by_name_;
  std::unordered_map<mcp::CallId, PendingCall> calls_;
  std::unordered_map<Ticket, mcp::CallId> call_by_ticket_;
  mcp::CallId next_call_id_ = 1;
  double started_unix_;
  std::unordered_map<HostBridge*, Worker*> bridges_;  // every host alive on a worker
  std::unordered_set<HostBridge*> retiring_;          // shut down, not yet reported
  size_t next_worker_ = 0;
  double last_reload_unix_ = 0;
  std::string reload_error_;
  std::function<void()> shutdown_done_;
  bool shutting_down_ = false;
};

}  // namespace mcpgw
