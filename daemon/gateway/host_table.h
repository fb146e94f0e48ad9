// HostTable: the server hosts one worker owns, keyed by HostId. It lives on
// the worker's loop and is touched only there: the Gateway posts Create,
// Call, Cancel and Retire to it, and it posts what its hosts report back to
// the main loop (HostEvents), every message carrying the HostId. A HostId is
// never reused, so a message about a host that was retired or replaced by a
// reload finds nothing and is dropped; a call that finds no host is answered,
// never lost. A host is destroyed by its table once its shutdown completed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/gateway/large_results.h"
#include "daemon/gateway/server_host.h"
#include "daemon/runtime/env.h"

namespace mcpgw {

// Unique for the daemon's lifetime: a server that a reload changes gets a new one.
using HostId = uint64_t;

// What host tables report; runs on the main loop.
class HostEvents {
 public:
  virtual ~HostEvents() = default;
  virtual void OnHostState(HostId id, ServerState state) = 0;
  virtual void OnHostCallFinished(HostId id, mcp::CallId call, mcp::CallOutcome outcome) = 0;
  // The host shut down and is destroyed: nothing more comes from it.
  virtual void OnHostGone(HostId id) = 0;
  // A request was refused for lack of authorization (mcp::AuthorizationNeeded);
  // the session waits for Authorized or AuthorizationFailed.
  virtual void OnHostAuthorizationNeeded(HostId id, int http_status,
                                         std::string www_authenticate) = 0;
};

class HostTable {
 public:
  // `env` is the worker's, `main` the main loop's; `events` lives on `main`.
  HostTable(Env* env, Env* main, HostEvents* events);
  ~HostTable();  // on the worker's thread, or after it stopped
  HostTable(const HostTable&) = delete;
  HostTable& operator=(const HostTable&) = delete;

  // The worker's thread only (post these to env()).
  // `authorization` is what every request carries from the start (a stored
  // OAuth token), empty for none; `era_hint` as ServerHost::Start takes it.
  // `pins`: how the host pins its server's tools (BEHAVIOR.md §13).
  void Create(HostId id, std::string name, config::RemoteServer server, mcp::SessionLimits limits,
              Secret authorization = Secret(), std::string era_hint = {}, PinOptions pins = {},
              std::shared_ptr<HostGauges> gauges = nullptr);
  // A local server (BEHAVIOR.md §17): its process runs on this worker.
  void CreateLocal(HostId id, std::string name, config::LocalServer server,
                   mcp::SessionLimits limits, PinOptions pins = {},
                   std::shared_ptr<HostGauges> gauges = nullptr);
  // `bound` holds the result's text to its client's bound (BEHAVIOR.md §11),
  // here on the worker, before the outcome travels to the main loop.
  void Call(HostId id, mcp::CallId call, std::string tool, std::string arguments_json,
            ResultBound bound = {});
  void Cancel(HostId id, mcp::CallId call);
  // The session's authorization hooks (mcp::Session); unknown ids are ignored.
  void SetAuthorization(HostId id, Secret value);
  void Authorized(HostId id);
  void AuthorizationFailed(HostId id, std::string reason);
  // Approves withheld tools (ServerHost::Approve); `done` runs on the main
  // loop after the host's new state was posted there.
  void Approve(HostId id, std::vector<std::string> tools, bool all,
               std::function<void(base::Result<ServerPins::Approval>)> done);
  void SetPinning(HostId id, PinningMode mode);
  // Each tool of the server and its pin's state (ServerHost::DescribePins);
  // `done` runs on the main loop (with nothing for a host that is gone).
  void DescribePins(HostId id, std::function<void(std::vector<PinnedTool>)> done);
  // Shuts the host down; OnHostGone follows once it is done (bounded by `grace`).
  void Retire(HostId id, mcp::Duration grace);
  // Destroys every host at once (daemon teardown, after Retire of all).
  void Clear();

  Env* env() const { return env_; }
  size_t size() const { return slots_.size(); }

 private:
  struct Slot;
  void Erase(HostId id);

  Env* env_;
  Env* main_;
  HostEvents* events_;
  std::unordered_map<HostId, std::unique_ptr<Slot>> slots_;
};

}  // namespace mcpgw
