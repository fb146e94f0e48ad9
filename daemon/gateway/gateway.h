// Gateway: the daemon's request handler on its main loop. It answers the two
// tools and `status` for the IpcServer, keeps the Catalog (what hosts see) in
// step with every server's state, and routes calls to the server's host.
//
// Ownership: every configured server is a Server record owned by the Gateway
// on the main loop. Its session runs in a ServerHost owned by the HostTable
// of one worker (the main loop's own included), addressed by a HostId that is
// never reused: a reload that changes a server gives it a new host and id, and
// whatever the old host still reports (a state change, a call's outcome)
// carries the old id, so it can touch no newer record. Threads exchange only
// posted messages carrying those ids; no object is shared across threads.
// Every reason and error message it lets out passes through its Scrubber.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config/config.h"
#include "config/settings.h"
#include "daemon/gateway/catalog.h"
#include "daemon/gateway/host_table.h"
#include "daemon/gateway/large_results.h"
#include "daemon/gateway/metrics.h"
#include "daemon/ipc/ipc_server.h"
#include "daemon/mcp/era_cache.h"
#include "daemon/mcp/types.h"
#include "daemon/runtime/env.h"
#include "daemon/runtime/process_tree.h"

namespace mcpgw {

class CallLog;
class Cassette;
class CassetteWriter;
class Scrubber;
namespace auth {
class AuthManager;
class SessionLink;
}  // namespace auth

struct GatewayOptions {
  std::string config_path;
  std::string settings_path;  // empty: no settings file in use
  std::string socket_path;
  mcp::SessionLimits limits;
  mcp::Duration shutdown_grace = std::chrono::seconds(3);  // DELETE of sessions before exit
  std::string pins_dir;  // where tool definitions are pinned (BEHAVIOR.md §13); "": nowhere
  // Record and replay (BEHAVIOR.md §14), as status shows them: the files
  // (empty: not recording, not replaying) and what a replay does with a call
  // it has no recording of (true: sends it to the live server).
  std::string record_path;
  std::string replay_path;
  bool replay_forward = false;
  // Learned search words (BEHAVIOR.md §10): the file they are kept in ("":
  // kept in memory only).
  std::string learned_path;
};

class Gateway : public IpcHandler, private HostEvents {
 public:
  // `main` is the Env of the loop that runs the gateway and the IpcServer;
  // `workers` run the servers' sessions (`main` may be one of them). All
  // outlive the Gateway's use.
  Gateway(Env* main, std::vector<Env*> workers, GatewayOptions options);
  ~Gateway() override;
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // All below on the main loop.
  void SetReplies(IpcReplies* replies) { replies_ = replies; }
  void SetCallLog(CallLog* log) { call_log_ = log; }
  // Record and replay (BEHAVIOR.md §14), both set before Load: where each
  // finished call and each listing is appended (null: not recording), and
  // the cassette whose servers are served without a connection (null: none).
  void SetRecorder(CassetteWriter* recorder) { recorder_ = recorder; }
  void SetReplay(Cassette* cassette) { replay_ = cassette; }
  // Metrics (BEHAVIOR.md §15): how many hosts are connected to the socket,
  // and the metrics endpoint's address as status shows it ("" for none).
  void SetConnectionCount(std::function<size_t()> count) { connections_ = std::move(count); }
  void SetMetricsAddress(std::string address) { metrics_address_ = std::move(address); }
  // Runs on the main loop after a server's tool list changed; `settled`:
  // no server is loading any more.
  void SetToolsChanged(std::function<void(bool settled)> fn) { tools_changed_ = std::move(fn); }
  void SetPolicy(std::shared_ptr<const Policy> policy);
  // Large results (BEHAVIOR.md §11): the default bounds and the folder's
  // budget. The first call names the folder that keeps whole texts (empty:
  // none can be kept) and starts its hourly sweep; later calls (reloads)
  // change the bounds and the budget.
  void SetResults(const ResultsSettings& results, const std::string& dir);
  // Pinned tool definitions (BEHAVIOR.md §13): the mode and the exempt
  // namespaces, for the servers made from now on and, at a reload, for the
  // running ones too.
  void SetPinning(const PinningSettings& pinning);
  // Learned search words (BEHAVIOR.md §10): settings' search.learn, at start
  // and at every reload. The first call reads the learned file.
  void SetLearning(bool on);
  // The snapshot that reasons, errors and status are scrubbed with. Set it
  // before Load/Reload so the new servers' secrets are covered from the start.
  void SetScrubber(std::shared_ptr<const Scrubber> scrubber);
  // The OAuth client (BEHAVIOR.md §9), set before Load; null: no OAuth, login,
  // login_wait and logout are refused, and a refusal for lack of
  // authorization stands.
  void SetAuthManager(auth::AuthManager* manager) { auth_ = manager; }
  // What the AuthManager reports to: it reaches sessions through the gateway.
  auth::SessionLink* auth_link();
  // Runs on the main loop for every secret the AuthManager learns (tokens,
  // codes, verifiers, client secrets); the daemon extends its scrubbers.
  void SetSecretSink(std::function<void(const Secret&)> sink) { secret_sink_ = std::move(sink); }
  // Starts a session per accepted entry; refused ones show as error.
  void Load(const config::Config& config);
  // A new configuration: unchanged servers keep their sessions and calls,
  // removed ones are shut down (DELETE), added or changed ones start loading.
  void Reload(const config::Config& config);
  // A reload whose file was unusable: the old configuration stays.
  void ReloadFailed(std::string error);
  // The settings file was re-read: `error` empty when it was usable.
  void SettingsReloaded(std::string error);
  // Shuts every session down (DELETE), then runs `done` on the main loop.
  void Shutdown(std::function<void()> done);
  // Destroys whatever hosts are left, on their workers, and stops the
  // results sweep. Call on the main loop after Shutdown's `done`, before the
  // workers stop.
  void ReleaseHosts();

  void OnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                 const rapidjson::Value& params, std::string_view frame) override;
  void OnCancel(Ticket ticket) override;

  std::string StatusJson() const;
  // The metrics in the Prometheus text format (gateway_metrics.cc), from
  // the counters kept as calls end: no call or log is walked.
  std::string MetricsText() const;

 private:
  struct Server;
  // A host connection's last get_dynamic_tools query, and the tools it has
  // taught (gateway_learn.cc).
  struct RecentQuery {
    std::string text;
    mcp::TimePoint at;
    std::vector<std::string> taught;  // "namespace\0tool"
  };
  struct PendingCall {
    Ticket ticket = 0;
    HostId host = 0;
    size_t worker = 0;
    std::string ns;
    std::string tool;
    mcp::TimePoint start;
    Peer peer;
    // The request digest (daemon/guard/request_digest.h); "" for none, and
    // when nothing on the main loop needs it (no call log, no cassette).
    std::string digest;
    // The query its connection asked just before, if any (learning on).
    std::shared_ptr<RecentQuery> query;
  };

  // HostEvents: what the hosts report, on the main loop.
  void OnHostState(HostId id, ServerState state) override;
  void OnHostCallFinished(HostId id, mcp::CallId call, mcp::CallOutcome outcome) override;
  void OnHostGone(HostId id) override;
  void OnHostAuthorizationNeeded(HostId id, int http_status, std::string www_authenticate) override;

  // login, login_wait and logout, and the "oauth" status member (gateway_auth.cc).
  void HandleAuthRequest(Ticket ticket, std::string_view method, const rapidjson::Value& params);
  std::string AuthStatusJson(uint64_t auth_id) const;
  // pins, diff and approve (gateway_pins.cc), and the "pins" status member.
  void HandlePinsRequest(Ticket ticket, std::string_view method, const rapidjson::Value& params);
  void ReplyPins(Ticket ticket, const Server* only);
  void WritePins(Ticket ticket, const Server* only, const std::vector<PinnedTool>* tools);
  void ReplyDiff(Ticket ticket, const Server& server, const std::optional<std::string>& tool);
  void Approve(Ticket ticket, const Server& server, const std::optional<std::string>& tool,
               bool all);
  void ReplyApproval(Ticket ticket, const std::string& name,
                     base::Result<ServerPins::Approval> approval);
  PinningMode PinningFor(std::string_view name) const;
  std::string PinsStatusJson(const Server& server) const;
  class AuthLink;
  // What the AuthManager tells a server's session, by its auth id.
  Server* ByAuthId(uint64_t auth_id);
  void SetSessionAuthorization(uint64_t auth_id, const Secret& value);
  void SessionAuthorized(uint64_t auth_id);
  void SessionAuthorizationFailed(uint64_t auth_id, const std::string& reason);

  // Learned search words (gateway_learn.cc).
  void LoadLearned();
  void NoteQuery(const Peer& peer, std::string_view query);
  std::shared_ptr<RecentQuery> QueryBefore(const Peer& peer);
  void LearnFrom(const PendingCall& call);
  void SaveLearnedSoon();
  // Writes the store if it changed, on a worker.
  void SaveLearned();
  void HandleLearnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                          const rapidjson::Value& params);

  void HandleCall(Ticket ticket, const Peer& peer, const rapidjson::Value& params,
                  std::string_view frame);
  // The request as the call log records it: who asked, what, its digest (when
  // the call log, a recording or a replay needs it). `arguments_text` is the
  // exact text of params' "arguments" member, if it has one that is not null;
  // `arguments` is set to it ("{}" when absent; empty when the request names
  // no tool or its arguments cannot be read).
  PendingCall Requested(Ticket ticket, const Peer& peer, const rapidjson::Value& params,
                        std::optional<std::string_view> arguments_text,
                        std::string_view* arguments) const;
  // Answers a request the gateway refuses itself, and counts and logs it.
  void Refuse(const PendingCall& call, proto::ErrorKind kind, std::string message);
  void Answer(Ticket ticket, const mcp::CallOutcome& outcome);
  // What a finished call (live or replayed) adds to its server's figures.
  void CountFinished(Server* server, const mcp::CallOutcome& outcome, double ms);
  void Count(Server* server, CallEnd end);
  // Record and replay (gateway_replay.cc). Replay answers a call to a
  // server of the cassette from its recording; false: send it live.
  bool Replay(const PendingCall& call, Server& server, const ResultBound& bound);
  bool ServeFromCassette(Server& server);
  void RecordCall(const PendingCall& call, const mcp::CallOutcome& outcome, double ms);
  void RecordListing(const Server& server);
  std::string ReplayStatusJson() const;
  std::string DaemonStatusJson() const;
  std::string LocalStatusJson(const Server& server, std::optional<ProcessTree>& tree) const;
  ResultBound Bound(const TextBoundRequest& request) const;
  void SweepResults();
  void Apply(const config::Config& config, bool reload);
  std::unique_ptr<Server> NewServer(const config::Entry& entry);
  void Retire(Server& server);
  void MaybeFinishShutdown();
  void ReplyError(Ticket ticket, proto::ErrorKind kind, std::string message);
  // The error as it is: its kind (BEHAVIOR.md §4) and its message, scrubbed.
  void ReplyError(Ticket ticket, const base::Status& error);
  std::string Scrubbed(std::string text) const;
  void LogCall(const PendingCall& call, std::string_view outcome, const mcp::CallOutcome* result);
  template <typename F>
  void OnWorker(size_t worker, F&& fn);

  Env* main_;
  std::vector<Env*> workers_;
  // Shared with the workers' tables (they keep their calls' whole texts), so
  // made before them and destroyed after them.
  std::unique_ptr<ResultSpill> spill_;
  ResultsSettings results_;
  PinningSettings pinning_;
  std::unique_ptr<Timer> sweep_;
  std::vector<std::unique_ptr<HostTable>> tables_;  // one per worker, used on its loop only
  GatewayOptions options_;
  IpcReplies* replies_ = nullptr;
  CallLog* call_log_ = nullptr;
  CassetteWriter* recorder_ = nullptr;
  Cassette* replay_ = nullptr;
  std::function<size_t()> connections_;
  std::string metrics_address_;
  std::array<uint64_t, kCallEnds> calls_by_end_{};  // every request, known namespace or not
  // Calls that reached a server and finished (ok, backend, transport), every
  // server since start, removed and changed ones included.
  uint64_t calls_finished_ = 0;
  auth::AuthManager* auth_ = nullptr;
  std::shared_ptr<AuthLink> auth_link_;  // made by auth_link(), in gateway_auth.cc
  std::function<void(const Secret&)> secret_sink_;
  uint64_t next_auth_id_ = 1;
  std::shared_ptr<const Scrubber> scrubber_;
  Catalog catalog_;
  // The protocol version each origin's server spoke, for the daemon's life: a
  // (re)loaded server starts from it instead of probing a known 2025 server.
  mcp::EraCache era_cache_;
  std::string listing_literal_;                   // catalog_.Listing() as a JSON string; "" = stale
  std::vector<std::unique_ptr<Server>> servers_;  // config order
  std::unordered_map<std::string, Server*> by_name_;
  std::unordered_map<HostId, Server*> by_host_;  // current hosts only
  std::unordered_map<HostId, size_t> retiring_;  // retired hosts not yet gone → worker
  std::unordered_map<mcp::CallId, PendingCall> calls_;
  std::unordered_map<Ticket, mcp::CallId> call_by_ticket_;
  mcp::CallId next_call_id_ = 1;
  HostId next_host_id_ = 1;
  size_t next_worker_ = 0;
  double started_unix_;
  double last_reload_unix_ = 0;
  std::string reload_error_;
  std::string settings_error_;
  std::function<void()> shutdown_done_;
  std::function<void(bool)> tools_changed_;
  bool shutting_down_ = false;
  bool learning_ = true;
  bool learned_loaded_ = false;
  bool learned_dirty_ = false;  // changed since last written
  std::unique_ptr<Timer> learned_save_;
  std::unordered_map<uint64_t, std::shared_ptr<RecentQuery>> recent_queries_;  // by connection
  uint64_t queries_noted_ = 0;
  bool auth_draining_ = false;  // the AuthManager finishes a token refresh before exit
};

// Every message to a worker's hosts is posted, even to the main loop's own:
// it runs after what was posted before it, never inside the caller.
template <typename F>
void Gateway::OnWorker(size_t worker, F&& fn) {
  workers_[worker]->Post(
      [table = tables_[worker].get(), fn = std::forward<F>(fn)]() mutable { fn(*table); });
}

}  // namespace mcpgw
