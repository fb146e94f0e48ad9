#include "daemon/gateway/host_table.h"

#include <utility>

namespace mcpgw {

// One host and the listener that forwards its reports, stamped with its id.
struct HostTable::Slot : ServerHostListener {
  Slot(HostTable* owner, HostId host_id) : table(owner), id(host_id) {}

  void OnStateChanged(const ServerState& state) override {
    table->main_->Post(
        [events = table->events_, host = id, state] { events->OnHostState(host, state); });
  }
  void OnCallFinished(mcp::CallId call, mcp::CallOutcome outcome) override {
    if (auto bound = bounds.find(call); bound != bounds.end()) {
      FitResult(outcome, bound->second, table->env_->WallNow());
      bounds.erase(bound);
    }
    table->main_->Post(
        [events = table->events_, host = id, call, out = std::move(outcome)]() mutable {
          events->OnHostCallFinished(host, call, std::move(out));
        });
  }
  void OnAuthorizationNeeded(int http_status, const std::string& www_authenticate) override {
    table->main_->Post([events = table->events_, host = id, http_status, www = www_authenticate] {
      events->OnHostAuthorizationNeeded(host, http_status, www);
    });
  }
  void OnShutdownComplete() override {
    // Called from inside the host: it is destroyed on the next turn.
    table->env_->Post([owner = table, host = id] { owner->Erase(host); });
  }

  HostTable* table;
  HostId id;
  std::unique_ptr<ServerHost> host;
  // The bounds of the calls running that have one.
  std::unordered_map<mcp::CallId, ResultBound> bounds;
  bool retiring = false;
};

HostTable::HostTable(Env* env, Env* main, HostEvents* events)
    : env_(env), main_(main), events_(events) {}

HostTable::~HostTable() = default;

void HostTable::Create(HostId id, std::string name, config::RemoteServer server,
                       mcp::SessionLimits limits, Secret authorization, std::string era_hint,
                       PinOptions pins, std::shared_ptr<HostGauges> gauges) {
  auto slot = std::make_unique<Slot>(this, id);
  slot->host = std::make_unique<ServerHost>(env_, std::move(name), std::move(server), limits,
                                            slot.get(), std::move(pins), std::move(gauges));
  if (!authorization.empty()) slot->host->SetAuthorization(std::move(authorization));
  Slot* raw = slot.get();
  slots_[id] = std::move(slot);
  raw->host->Start(era_hint);
}

void HostTable::CreateLocal(HostId id, std::string name, config::LocalServer server,
                            mcp::SessionLimits limits, PinOptions pins,
                            std::shared_ptr<HostGauges> gauges) {
  auto slot = std::make_unique<Slot>(this, id);
  slot->host = std::make_unique<ServerHost>(env_, std::move(name), std::move(server), limits,
                                            slot.get(), std::move(pins), std::move(gauges));
  Slot* raw = slot.get();
  slots_[id] = std::move(slot);
  raw->host->Start();
}

void HostTable::Call(HostId id, mcp::CallId call, std::string tool, std::string arguments_json,
                     ResultBound bound) {
  auto it = slots_.find(id);
  if (it == slots_.end() || it->second->retiring) {
    mcp::CallOutcome outcome;
    outcome.kind = mcp::CallErrorKind::kTransport;
    outcome.text = "the server was removed or reloaded before the call reached it; try again";
    main_->Post([events = events_, id, call, out = std::move(outcome)]() mutable {
      events->OnHostCallFinished(id, call, std::move(out));
    });
    return;
  }
  if (bound.max_text_bytes > 0) it->second->bounds[call] = std::move(bound);
  it->second->host->Call(call, std::move(tool), std::move(arguments_json));
}

void HostTable::Cancel(HostId id, mcp::CallId call) {
  auto it = slots_.find(id);
  if (it == slots_.end()) return;
  it->second->bounds.erase(call);
  it->second->host->Cancel(call);
}

void HostTable::SetAuthorization(HostId id, Secret value) {
  auto it = slots_.find(id);
  if (it != slots_.end()) it->second->host->SetAuthorization(std::move(value));
}

void HostTable::Authorized(HostId id) {
  auto it = slots_.find(id);
  if (it != slots_.end()) it->second->host->OnAuthorized();
}

void HostTable::AuthorizationFailed(HostId id, std::string reason) {
  auto it = slots_.find(id);
  if (it != slots_.end()) it->second->host->OnAuthorizationFailed(std::move(reason));
}

void HostTable::Approve(HostId id, std::vector<std::string> tools, bool all,
                        std::function<void(base::Result<ServerPins::Approval>)> done) {
  auto it = slots_.find(id);
  base::Result<ServerPins::Approval> approval =
      it == slots_.end() || it->second->retiring
          ? base::Status(base::ErrorKind::kInvalidRequest,
                         "the server was removed or reloaded meanwhile; try again")
          : it->second->host->Approve(tools, all);
  main_->Post(
      [done = std::move(done), out = std::move(approval)]() mutable { done(std::move(out)); });
}

void HostTable::DescribePins(HostId id, std::function<void(std::vector<PinnedTool>)> done) {
  std::vector<PinnedTool> tools;
  auto it = slots_.find(id);
  if (it != slots_.end() && !it->second->retiring) tools = it->second->host->DescribePins();
  main_->Post([done = std::move(done), out = std::move(tools)]() mutable { done(std::move(out)); });
}

void HostTable::SetPinning(HostId id, PinningMode mode) {
  auto it = slots_.find(id);
  if (it != slots_.end() && !it->second->retiring) it->second->host->SetPinning(mode);
}

void HostTable::Retire(HostId id, mcp::Duration grace) {
  auto it = slots_.find(id);
  if (it == slots_.end()) {
    main_->Post([events = events_, id] { events->OnHostGone(id); });
    return;
  }
  if (it->second->retiring) return;
  it->second->retiring = true;
  it->second->host->Shutdown(grace);
}

void HostTable::Erase(HostId id) {
  if (slots_.erase(id) == 0) return;
  main_->Post([events = events_, id] { events->OnHostGone(id); });
}

void HostTable::Clear() { slots_.clear(); }

}  // namespace mcpgw
