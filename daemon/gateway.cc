#include "daemon/gateway.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "daemon/auth/manager.h"
#include "daemon/guard/call_log.h"
#include "daemon/guard/scrub.h"
#include "daemon/mcp/bounded_json.h"
#include "daemon/net/proxy.h"
#include "daemon/server_host.h"
#include "proto/messages.h"

namespace mcpgw {
namespace {

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

constexpr size_t kLatencyWindow = 256;  // calls per server kept for the median

void AppendNumber(std::string& out, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  out += buf;
}

std::string_view OutcomeName(mcp::CallErrorKind kind) {
  switch (kind) {
    case mcp::CallErrorKind::kNone:
      return "ok";
    case mcp::CallErrorKind::kBackend:
      return "backend";
    case mcp::CallErrorKind::kTransport:
      return "transport";
  }
  return "transport";
}

}  // namespace

// Per configured server, on the main loop.
struct Gateway::Record {
  std::string name;
  std::optional<config::RemoteServer> entry_remote;  // the entry it was made from
  std::string entry_refusal;
  uint64_t auth_id = 0;          // how the AuthManager knows it (0: not added)
  Secret authorization;          // what the AuthManager last gave its session
  Worker* worker = nullptr;      // null for refused entries
  HostBridge* bridge = nullptr;  // lives on `worker`
  ServerView view;
  std::string proxy;  // the proxy its transfers go through, fit to show; "" = direct
  double since_unix = 0;
  uint64_t in_flight = 0;
  uint64_t calls = 0;
  uint64_t errors = 0;
  std::vector<double> latencies_ms;  // ring of the last kLatencyWindow calls
  size_t latency_next = 0;

  void AddLatency(double ms) {
    if (latencies_ms.size() < kLatencyWindow) {
      latencies_ms.push_back(ms);
    } else {
      latencies_ms[latency_next] = ms;
      latency_next = (latency_next + 1) % kLatencyWindow;
    }
  }
  std::optional<double> MedianLatency() const {
    if (latencies_ms.empty()) return std::nullopt;
    std::vector<double> v = latencies_ms;
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
  }
};

struct Gateway::PendingCall {
  Ticket ticket = 0;
  std::shared_ptr<Record> record;
  std::chrono::steady_clock::time_point start;
  Peer peer;
  std::string tool;
};

// The worker-side half of a server: owns its ServerHost and forwards what it
// reports to the Gateway on the main loop.
class Gateway::HostBridge : public ServerHostListener {
 public:
  HostBridge(Gateway* gateway, std::shared_ptr<Record> record)
      : gateway_(gateway), record_(record), main_(gateway->main_) {}

  // Worker thread.
  void Create(uv_loop_t* loop, HttpClient* http, std::string name, config::RemoteServer server,
              mcp::SessionLimits limits) {
    host_ =
        std::make_unique<ServerHost>(loop, http, std::move(name), std::move(server), limits, this);
    host_->Start();
  }
  ServerHost* host() { return host_.get(); }

  // On the main loop's own thread (servers sharded onto it) these run at
  // once: a call then costs no thread hop at all.
  void OnStateChanged(const ServerState& state) override {
    if (main_->OnWorkerThread()) {
      if (auto r = record_.lock()) gateway_->OnStateChanged(r, state);
      return;
    }
    main_->Post([gw = gateway_, rec = record_, state] {
      if (auto r = rec.lock()) gw->OnStateChanged(r, state);
    });
  }
  void OnCallFinished(mcp::CallId id, mcp::CallOutcome outcome) override {
    if (main_->OnWorkerThread()) {
      gateway_->OnCallFinished(id, std::move(outcome));
      return;
    }
    main_->Post([gw = gateway_, id, out = std::move(outcome)]() mutable {
      gw->OnCallFinished(id, std::move(out));
    });
  }
  void OnShutdownComplete() override {
    main_->Post([gw = gateway_, self = this] { gw->OnHostShutdown(self); });
  }

 private:
  Gateway* gateway_;
  std::weak_ptr<Record> record_;
  Worker* main_;
  std::unique_ptr<ServerHost> host_;
};

Gateway::Gateway(Worker* main, std::vector<Worker*> workers, GatewayOptions options)
    : main_(main),
      workers_(std::move(workers)),
      options_(std::move(options)),
      started_unix_(UnixNow()) {}

Gateway::~Gateway() = default;

template <typename F>
void Gateway::RunOn(Worker* worker, F&& fn) {
  if (worker->OnWorkerThread()) {
    fn();
  } else {
    worker->Post(std::forward<F>(fn));
  }
}

void Gateway::SetPolicy(std::shared_ptr<const Policy> policy) {
  listing_literal_.clear();
  catalog_.SetPolicy(std::move(policy));
}

void Gateway::SetScrubber(std::shared_ptr<const Scrubber> scrubber) {
  scrubber_ = std::move(scrubber);
}

std::string Gateway::Scrubbed(std::string text) const {
  if (scrubber_) scrubber_->ScrubInPlace(text);
  return text;
}

void Gateway::ReplyError(Ticket ticket, proto::ErrorKind kind, std::string message) {
  ipc_->ReplyError(ticket, kind, Scrubbed(std::move(message)));
}

void Gateway::Load(const config::Config& config) { Apply(config); }

void Gateway::Reload(const config::Config& config) {
  last_reload_unix_ = UnixNow();
  reload_error_.clear();
  Apply(config);
}

void Gateway::ReloadFailed(std::string error) {
  last_reload_unix_ = UnixNow();
  reload_error_ = Scrubbed(std::move(error));
}

// Servers whose entry is unchanged keep their session and in-flight calls;
// removed ones are shut down (DELETE); added or changed ones start loading.
void Gateway::Apply(const config::Config& config) {
  std::unordered_map<std::string, std::shared_ptr<Record>> old = std::move(by_name_);
  by_name_.clear();
  records_.clear();
  std::vector<ServerView> views;
  for (const config::Entry& entry : config.entries) {
    auto it = old.find(entry.name);
    std::shared_ptr<Record> rec;
    if (it != old.end() && it->second->entry_remote == entry.remote &&
        it->second->entry_refusal == entry.refusal) {
      rec = std::move(it->second);
      old.erase(it);
    } else {
      rec = NewRecord(entry);
    }
    views.push_back(rec->view);
    by_name_[rec->name] = rec;
    records_.push_back(std::move(rec));
  }
  for (auto& [name, rec] : old) {
    spdlog::info("server \"{}\": removed from the configuration", name);
    Retire(*rec);
  }
  listing_literal_.clear();
  catalog_.Reset(std::move(views));
}

std::shared_ptr<Gateway::Record> Gateway::NewRecord(const config::Entry& entry) {
  auto rec = std::make_shared<Record>();
  rec->name = entry.name;
  rec->entry_remote = entry.remote;
  rec->entry_refusal = entry.refusal;
  rec->since_unix = UnixNow();
  rec->view.name = entry.name;
  if (!entry.accepted()) {
    rec->view.status = mcp::Status::kError;
    rec->view.reason = Scrubbed(entry.refusal);
    rec->view.refused = true;
    spdlog::warn("server \"{}\": refused: {}", entry.name, entry.refusal);
    return rec;
  }
  rec->view.status = mcp::Status::kLoading;
  if (auth_) {
    rec->auth_id = next_auth_id_++;
    // The Authorization a stored token gives is handed to the session below.
    rec->authorization = auth_->AddServer(rec->auth_id, entry.name, *entry.remote);
  }
  rec->worker = workers_[next_worker_++ % workers_.size()];
  rec->bridge = new HostBridge(this, rec);
  bridges_[rec->bridge] = rec->worker;
  rec->proxy = http::ShowProxy(http::ProcessProxyEnv().For(entry.remote->url.Reveal()));
  spdlog::info("server \"{}\": loading ({}{}{})", entry.name, entry.remote->url_redacted,
               rec->proxy.empty() ? "" : " through the proxy ", rec->proxy);
  rec->worker->Post([bridge = rec->bridge, w = rec->worker, name = entry.name,
                     server = *entry.remote, limits = options_.limits]() mutable {
    bridge->Create(w->loop(), &w->http(), std::move(name), std::move(server), limits);
  });
  return rec;
}

void Gateway::Retire(Record& rec) {
  if (auth_ && rec.auth_id) auth_->RemoveServer(rec.auth_id);
  rec.auth_id = 0;
  if (!rec.bridge) return;
  retiring_.insert(rec.bridge);
  rec.worker->Post([bridge = rec.bridge, grace = options_.shutdown_grace_ms] {
    if (bridge->host()) {
      bridge->host()->Shutdown(grace);
    } else {
      bridge->OnShutdownComplete();
    }
  });
  rec.bridge = nullptr;  // calls still pending hold the record, not the host
}

void Gateway::SetSessionAuthorization(uint64_t auth_id, const Secret& value) {
  for (const auto& rec : records_) {
    if (rec->auth_id == auth_id) rec->authorization = value;
  }
}

void Gateway::SessionAuthorized(uint64_t auth_id) {
  for (const auto& rec : records_) {
    if (rec->auth_id == auth_id) spdlog::debug("server \"{}\": authorized", rec->name);
  }
}

void Gateway::SessionAuthorizationFailed(uint64_t auth_id, const std::string& reason) {
  for (const auto& rec : records_) {
    if (rec->auth_id == auth_id) {
      spdlog::debug("server \"{}\": authorization failed: {}", rec->name, Scrubbed(reason));
    }
  }
}

void Gateway::OnStateChanged(const std::shared_ptr<Record>& rec, ServerState state) {
  state.reason = Scrubbed(std::move(state.reason));
  if (rec->view.status != state.status || rec->view.reason != state.reason) {
    rec->since_unix = UnixNow();
    size_t tools = state.tools ? state.tools->size() : 0;
    if (state.status == mcp::Status::kError) {
      spdlog::warn("server \"{}\": error: {}", rec->name, state.reason);
    } else {
      spdlog::info("server \"{}\": {} ({} tools)", rec->name, mcp::StatusName(state.status), tools);
    }
  }
  rec->view.status = state.status;
  rec->view.reason = std::move(state.reason);
  rec->view.tools = std::move(state.tools);
  listing_literal_.clear();
  catalog_.Update(rec->view);
}

void Gateway::OnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                        const rapidjson::Value& params) {
  if (method == proto::kGetDynamicTools) {
    if (params.IsObject() && params.MemberCount() == 0) {
      // The hottest request: answered from the listing kept encoded.
      if (listing_literal_.empty()) proto::AppendJsonString(&listing_literal_, catalog_.Listing());
      ipc_->ReplyTextLiteral(ticket, listing_literal_);
      return;
    }
    auto answer = catalog_.GetDynamicTools(params);
    if (auto* text = std::get_if<std::string>(&answer)) {
      ipc_->ReplyText(ticket, *text);
    } else {
      auto& err = std::get<GatewayError>(answer);
      ReplyError(ticket, err.kind, std::move(err.message));
    }
  } else if (method == proto::kCallDynamicTool) {
    HandleCall(ticket, peer, params);
  } else if (method == proto::kStatus) {
    ipc_->ReplyJson(ticket, StatusJson());
  } else if (method == proto::kLogin || method == proto::kLoginWait || method == proto::kLogout) {
    HandleAuthRequest(ticket, method, params);
  } else {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
               "unknown method; use get_dynamic_tools, call_dynamic_tool or status");
  }
}

void Gateway::HandleCall(Ticket ticket, const Peer& peer, const rapidjson::Value& params) {
  if (shutting_down_) {
    ReplyError(ticket, proto::ErrorKind::kTransport, "mcpgwd is shutting down");
    return;
  }
  auto prepared = catalog_.PrepareCall(params);
  if (auto* err = std::get_if<GatewayError>(&prepared)) {
    ReplyError(ticket, err->kind, err->message);
    if (err->kind == proto::ErrorKind::kDenied) {
      auto str = [&](const char* key) {
        auto m = params.FindMember(key);
        return m != params.MemberEnd() && m->value.IsString() ? std::string(m->value.GetString())
                                                              : std::string();
      };
      LogCall(peer, str("namespace"), str("toolName"), std::chrono::steady_clock::now(), "denied",
              nullptr);
    }
    return;
  }
  CallTarget target = std::move(std::get<CallTarget>(prepared));
  auto it = by_name_.find(target.ns);
  if (it == by_name_.end() || !it->second->bridge) {
    ReplyError(ticket, proto::ErrorKind::kNotReady, "server is not connected");
    return;
  }
  const std::shared_ptr<Record>& rec = it->second;
  mcp::CallId id = next_call_id_++;
  rec->in_flight++;
  calls_.emplace(id, PendingCall{ticket, rec, std::chrono::steady_clock::now(), peer, target.tool});
  call_by_ticket_.emplace(ticket, id);
  RunOn(rec->worker, [bridge = rec->bridge, id, tool = std::move(target.tool),
                      args = std::move(target.arguments_json)]() mutable {
    if (bridge->host()) bridge->host()->Call(id, std::move(tool), std::move(args));
  });
}

void Gateway::OnCallFinished(mcp::CallId id, mcp::CallOutcome outcome) {
  auto it = calls_.find(id);
  if (it == calls_.end() || !ipc_) return;  // cancelled meanwhile, or stopping
  PendingCall call = std::move(it->second);
  calls_.erase(it);
  call_by_ticket_.erase(call.ticket);
  Record& rec = *call.record;
  rec.in_flight--;
  rec.calls++;
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - call.start)
          .count();
  rec.AddLatency(ms);
  switch (outcome.kind) {
    case mcp::CallErrorKind::kNone:
      ipc_->ReplyText(call.ticket, outcome.text);
      break;
    case mcp::CallErrorKind::kBackend:
      rec.errors++;
      ReplyError(call.ticket, proto::ErrorKind::kBackend, outcome.text);
      break;
    case mcp::CallErrorKind::kTransport:
      rec.errors++;
      ReplyError(call.ticket, proto::ErrorKind::kTransport, outcome.text);
      break;
  }
  LogCall(call.peer, rec.name, call.tool, call.start, OutcomeName(outcome.kind), &outcome);
}

void Gateway::OnCancel(Ticket ticket) {
  auto it = call_by_ticket_.find(ticket);
  if (it == call_by_ticket_.end()) return;
  mcp::CallId id = it->second;
  call_by_ticket_.erase(it);
  auto call_it = calls_.find(id);
  if (call_it == calls_.end()) return;
  PendingCall call = std::move(call_it->second);
  calls_.erase(call_it);
  call.record->in_flight--;
  LogCall(call.peer, call.record->name, call.tool, call.start, "cancelled", nullptr);
  if (!call.record->bridge) return;  // retired by a reload: its host cancels everything
  RunOn(call.record->worker, [bridge = call.record->bridge, id] {
    if (bridge->host()) bridge->host()->Cancel(id);
  });
}

void Gateway::LogCall(const Peer& peer, const std::string& ns, const std::string& tool,
                      std::chrono::steady_clock::time_point start, std::string_view outcome,
                      const mcp::CallOutcome* result) {
  if (!call_log_) return;
  CallRecord r;
  r.time = std::chrono::system_clock::now();
  r.pid = peer.pid;
  r.uid = peer.uid;
  r.ns = ns;
  r.tool = tool;
  r.outcome = std::string(outcome);
  r.duration_ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::steady_clock::now() - start)
                                            .count());
  if (result) {
    r.request_params = result->request_params;
    r.bytes_in = result->bytes_in;
    r.bytes_out = result->bytes_out;
  }
  if (auto err = call_log_->Append(r)) spdlog::error("call log: {}", *err);
}

void Gateway::Shutdown(std::function<void()> done) {
  shutting_down_ = true;
  shutdown_done_ = std::move(done);
  for (const auto& rec : records_) Retire(*rec);
  MaybeFinishShutdown();
}

void Gateway::OnHostShutdown(HostBridge* bridge) {
  if (retiring_.erase(bridge) == 0) return;
  if (!shutting_down_) {
    // A server a reload removed: its host can go now.
    auto it = bridges_.find(bridge);
    if (it != bridges_.end()) {
      it->second->Post([bridge] { delete bridge; });
      bridges_.erase(it);
    }
  }
  MaybeFinishShutdown();
}

void Gateway::MaybeFinishShutdown() {
  if (!shutting_down_ || !retiring_.empty() || !shutdown_done_) return;
  auto cb = std::move(shutdown_done_);
  shutdown_done_ = nullptr;
  cb();
}

void Gateway::ReleaseHosts() {
  for (const auto& [bridge, worker] : bridges_) {
    worker->Post([b = bridge] { delete b; });
  }
  bridges_.clear();
}

std::string Gateway::StatusJson() const {
  double now = UnixNow();
  std::string out;
  out.reserve(256 + records_.size() * 160);
  out += "{\"daemon\":{\"version\":";
  mcp::AppendJsonString(out, MCPGW_VERSION);
  out += ",\"pid\":" + std::to_string(getpid());
  out += ",\"started_unix\":";
  AppendNumber(out, started_unix_);
  out += ",\"uptime_s\":";
  AppendNumber(out, now - started_unix_);
  out += ",\"config\":";
  mcp::AppendJsonString(out, options_.config_path);
  out += ",\"socket\":";
  mcp::AppendJsonString(out, options_.socket_path);
  out += ",\"last_reload_unix\":";
  if (last_reload_unix_ > 0) {
    AppendNumber(out, last_reload_unix_);
  } else {
    out += "null";
  }
  out += ",\"reload_error\":";
  if (!reload_error_.empty()) {
    mcp::AppendJsonString(out, reload_error_);
  } else {
    out += "null";
  }
  out += "},\"servers\":[";
  bool first = true;
  for (const ServerView& view : catalog_.servers()) {
    auto it = by_name_.find(view.name);
    if (it == by_name_.end()) continue;
    const Record& rec = *it->second;
    if (!first) out += ',';
    first = false;
    out += "{\"namespace\":";
    mcp::AppendJsonString(out, rec.name);
    out += ",\"status\":";
    mcp::AppendJsonString(out, mcp::StatusName(rec.view.status));
    out += ",\"reason\":";
    mcp::AppendJsonString(out, rec.view.reason);
    out += ",\"tools\":" + std::to_string(rec.view.tools ? rec.view.tools->size() : 0);
    out += ",\"in_flight\":" + std::to_string(rec.in_flight);
    out += ",\"calls\":" + std::to_string(rec.calls);
    out += ",\"errors\":" + std::to_string(rec.errors);
    out += ",\"latency_p50_ms\":";
    if (auto p50 = rec.MedianLatency()) {
      AppendNumber(out, *p50);
    } else {
      out += "null";
    }
    out += ",\"since_unix\":";
    AppendNumber(out, rec.since_unix);
    out += ",\"proxy\":";
    if (!rec.proxy.empty()) {
      mcp::AppendJsonString(out, rec.proxy);
    } else {
      out += "null";
    }
    out += ",\"oauth\":" + AuthStatusJson(rec.auth_id);
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace mcpgw
