// Session lifecycle: attempts and back-off, the initialize handshake,
// re-initialisation after an expired session, tool listing, calls, timers and
// shutdown. Transfer handling lives in session_wire.cc.
#include "daemon/mcp/session.h"

#include <algorithm>
#include <functional>

#include "daemon/mcp/convert.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

#ifdef MCPGW_VERSION
constexpr std::string_view kClientVersion = MCPGW_VERSION;
#else
constexpr std::string_view kClientVersion = "0.0.0";
#endif

constexpr std::string_view kShuttingDown = "gateway shutting down";
constexpr size_t kMaxSessionIdBytes = 1024;

// The spec allows visible ASCII only; anything else could split a header.
bool ValidSessionId(std::string_view id) {
  if (id.size() > kMaxSessionIdBytes) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

std::string RpcError(const Message& msg) {
  return "error " + std::to_string(msg.error_code) + ": " + msg.error_message;
}

bool SameTools(const ToolList& a, const ToolList& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Tool& x, const Tool& y) {
    return x.name == y.name && x.description == y.description &&
           x.input_schema_json == y.input_schema_json && x.read_only_hint == y.read_only_hint;
  });
}

void Earliest(std::optional<TimePoint>& acc, std::optional<TimePoint> t) {
  if (t && (!acc || *t < *acc)) acc = t;
}

}  // namespace

std::string_view StatusName(Status s) {
  switch (s) {
    case Status::kLoading:
      return "loading";
    case Status::kReady:
      return "ready";
    case Status::kError:
      return "error";
  }
  return "error";
}

std::string DescribeDuration(Duration d) {
  using std::chrono::duration_cast;
  if (d >= std::chrono::minutes(1) && d % std::chrono::minutes(1) == Duration::zero()) {
    return std::to_string(duration_cast<std::chrono::minutes>(d).count()) + " min";
  }
  if (d >= std::chrono::seconds(1) && d % std::chrono::seconds(1) == Duration::zero()) {
    return std::to_string(duration_cast<std::chrono::seconds>(d).count()) + " s";
  }
  return std::to_string(duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

std::string DescribeSize(size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) {
    return std::to_string(bytes >> 10) + " KiB";
  }
  return std::to_string(bytes) + " bytes";
}

Session::Impl::Impl(std::string name, config::RemoteServer server, SessionLimits limits)
    : name_(std::move(name)),
      server_(std::move(server)),
      limits_(limits),
      tools_(std::make_shared<const ToolList>()) {}

void Session::Impl::SetState(Status status, std::string reason) {
  if (status == status_ && reason == reason_) return;
  status_ = status;
  reason_ = std::move(reason);
  actions_.emplace_back(std::in_place_type<StateChanged>, StateChanged{});
}

// --- attempts and the handshake ---

void Session::Impl::Start(TimePoint now) {
  if (started_ || shutting_down_) return;
  started_ = true;
  StartAttempt(now);
}

void Session::Impl::StartAttempt(TimePoint now) {
  retry_at_.reset();
  attempt_deadline_ = now + limits_.first_attempt_deadline;
  BeginHandshake(/*reinit=*/false, now);
}

void Session::Impl::BeginHandshake(bool reinit, TimePoint now) {
  reinit_ = reinit;
  session_lost_ = false;
  session_id_.clear();
  step_ = Step::kInitialize;
  const RpcId id = next_rpc_id_++;
  Request& req = requests_[id];
  req.kind = Kind::kInitialize;
  req.rpc_id = id;
  req.body = BuildInitialize(id, kClientVersion);
  req.budget = reinit ? limits_.request_deadline : limits_.first_attempt_deadline;
  req.deadline = reinit ? now + limits_.request_deadline : *attempt_deadline_;
  SendRequest(req);
}

void Session::Impl::OnInitializeResponse(const Message& msg, const std::string& session_id,
                                         TimePoint now) {
  if (msg.is_error) return FailHandshake("initialize failed: " + RpcError(msg), now);
  if (!msg.result->IsObject()) return FailHandshake("invalid initialize result", now);
  const auto pv = msg.result->FindMember("protocolVersion");
  if (pv == msg.result->MemberEnd() || !pv->value.IsString()) {
    return FailHandshake("server answered no protocol version", now);
  }
  const std::string_view version(pv->value.GetString(), pv->value.GetStringLength());
  if (!IsSupportedProtocolVersion(version)) {
    return FailHandshake(
        "server answered unsupported protocol version \"" + CleanServerText(version, 64) + "\"",
        now);
  }
  if (!ValidSessionId(session_id)) return FailHandshake("invalid session id from server", now);
  protocol_version_ = std::string(version);
  session_id_ = session_id;
  ++session_gen_;
  SendInitialized(now);
}

void Session::Impl::SendInitialized(TimePoint now) {
  step_ = Step::kInitialized;
  step_budget_ = reinit_ ? limits_.request_deadline : limits_.first_attempt_deadline;
  step_deadline_ = reinit_ ? now + limits_.request_deadline : *attempt_deadline_;
  initialized_transfer_ =
      StartHttp(Purpose::kInitialized, HttpMethod::kPost, BuildInitialized(), 0);
}

void Session::Impl::HandshakeDone(TimePoint now) {
  step_ = Step::kNone;
  step_deadline_.reset();
  initialized_transfer_ = 0;
  if (!reinit_) return StartListing(/*for_attempt=*/true, now);
  reinit_ = false;
  std::deque<RpcId> waiting;
  waiting.swap(waiting_);
  for (RpcId id : waiting) {
    auto it = requests_.find(id);
    if (it != requests_.end()) SendRequest(it->second);
  }
  OpenListen(now);
}

void Session::Impl::FailHandshake(const std::string& reason, TimePoint now) {
  step_ = Step::kNone;
  step_deadline_.reset();
  Abort(initialized_transfer_);
  std::vector<RpcId> inits;
  for (const auto& [id, req] : requests_) {
    if (req.kind == Kind::kInitialize) inits.push_back(id);
  }
  for (RpcId id : inits) DropRequest(id);
  if (!reinit_) return FailAttempt(reason, now);

  // The old session expired and no new one could be made: everything that
  // waited on it fails; the next request tries again.
  reinit_ = false;
  session_lost_ = true;
  std::deque<RpcId> waiting;
  waiting.swap(waiting_);
  const std::string why = "session expired and re-initializing failed: " + reason;
  for (RpcId id : waiting) {
    auto it = requests_.find(id);
    if (it == requests_.end()) continue;
    if (it->second.kind == Kind::kCall) {
      FinishCall(it->second, CallErrorKind::kTransport, why);
      DropRequest(id);
    } else {
      FailListing(why, now);
    }
  }
}

void Session::Impl::FailAttempt(const std::string& reason, TimePoint now) {
  std::vector<RpcId> ids;
  for (const auto& [id, req] : requests_) {
    if (req.kind != Kind::kCall) ids.push_back(id);
  }
  for (RpcId id : ids) DropRequest(id);
  Abort(initialized_transfer_);
  step_ = Step::kNone;
  step_deadline_.reset();
  listing_ = Listing{};
  attempt_deadline_.reset();
  backoff_ = backoff_ == Duration::zero() ? limits_.backoff_initial
                                          : std::min(backoff_ * 2, limits_.backoff_max);
  retry_at_ = now + backoff_;
  SetState(Status::kError, reason);
}

// --- listing tools ---

void Session::Impl::StartListing(bool for_attempt, TimePoint now) {
  listing_ = Listing{};
  listing_.active = true;
  listing_.for_attempt = for_attempt;
  RequestPage(std::nullopt, now);
}

void Session::Impl::RequestPage(const std::optional<std::string>& cursor, TimePoint now) {
  const RpcId id = next_rpc_id_++;
  Request& req = requests_[id];
  req.kind = Kind::kListTools;
  req.rpc_id = id;
  req.body = BuildToolsList(id, cursor);
  if (listing_.for_attempt) {
    req.budget = limits_.first_attempt_deadline;
    req.deadline = *attempt_deadline_;
    SendRequest(req);
  } else {
    req.budget = limits_.request_deadline;
    req.deadline = now + limits_.request_deadline;
    Dispatch(req, now);
  }
}

void Session::Impl::OnPage(const rapidjson::Value& result, TimePoint now) {
  std::string error;
  if (!result.IsObject() || !AppendToolsPage(result, ToolLimits{}, listing_.tools, error)) {
    return FailListing("invalid tools/list result", now);
  }
  ++listing_.pages;
  if (listing_.tools.size() > limits_.max_tools) {
    return FailListing("server lists more than " + std::to_string(limits_.max_tools) + " tools",
                       now);
  }
  const auto next = result.FindMember("nextCursor");
  if (next != result.MemberEnd() && next->value.IsString() && next->value.GetStringLength() > 0) {
    std::string cursor(next->value.GetString(), next->value.GetStringLength());
    if (!listing_.cursors.insert(std::hash<std::string>{}(cursor)).second) {
      return FailListing("listing repeated cursor", now);
    }
    if (listing_.pages >= limits_.max_list_pages) {
      return FailListing(
          "server lists more than " + std::to_string(limits_.max_list_pages) + " pages of tools",
          now);
    }
    return RequestPage(cursor, now);
  }

  ToolList tools = std::move(listing_.tools);
  SortAndDedupTools(tools);
  const bool for_attempt = listing_.for_attempt;
  const bool again = listing_.again;
  listing_ = Listing{};
  const bool changed = !SameTools(*tools_, tools);
  if (changed) tools_ = std::make_shared<const ToolList>(std::move(tools));
  if (for_attempt) {
    attempt_deadline_.reset();
    backoff_ = Duration::zero();
    status_ = Status::kReady;
    reason_.clear();
    actions_.emplace_back(std::in_place_type<StateChanged>, StateChanged{});
    OpenListen(now);
  } else if (changed) {
    actions_.emplace_back(std::in_place_type<StateChanged>, StateChanged{});
  }
  if (again) StartListing(/*for_attempt=*/false, now);
}

void Session::Impl::FailListing(const std::string& reason, TimePoint now) {
  std::vector<RpcId> pages;
  for (const auto& [id, req] : requests_) {
    if (req.kind == Kind::kListTools) pages.push_back(id);
  }
  for (RpcId id : pages) DropRequest(id);
  const bool for_attempt = listing_.for_attempt;
  listing_ = Listing{};
  // A failed re-list keeps the tools the server listed before.
  if (for_attempt) FailAttempt(reason, now);
}

void Session::Impl::ToolsChanged(TimePoint now) {
  if (shutting_down_) return;
  if (listing_.active) {
    listing_.again = true;
    return;
  }
  // Before ready the attempt under way (or the next one) lists anyway.
  if (status_ == Status::kReady) StartListing(/*for_attempt=*/false, now);
}

// --- calls ---

void Session::Impl::Dispatch(Request& req, TimePoint now) {
  if (reinit_ || session_lost_) {
    waiting_.push_back(req.rpc_id);
    if (!reinit_) BeginHandshake(/*reinit=*/true, now);
    return;
  }
  SendRequest(req);
}

void Session::Impl::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  auto refuse = [&](std::string_view text) {
    CallOutcome outcome;
    outcome.kind = CallErrorKind::kTransport;
    outcome.text = std::string(text);
    actions_.emplace_back(std::in_place_type<CallFinished>, CallFinished{id, std::move(outcome)});
  };
  if (shutting_down_) return refuse(kShuttingDown);
  if (status_ != Status::kReady) return refuse("server not ready");
  if (calls_.count(id)) return refuse("duplicate call id");
  const RpcId rpc_id = next_rpc_id_++;
  Request& req = requests_[rpc_id];
  req.kind = Kind::kCall;
  req.rpc_id = rpc_id;
  req.call_id = id;
  req.params = BuildToolsCallParams(tool, arguments_json);
  req.body = BuildRequest(rpc_id, "tools/call", req.params);
  req.budget = limits_.call_deadline;
  req.deadline = now + limits_.call_deadline;
  calls_[id] = rpc_id;
  Dispatch(req, now);
}

void Session::Impl::FinishCall(Request& req, CallErrorKind kind, std::string text) {
  CallOutcome outcome;
  outcome.kind = kind;
  outcome.text = std::move(text);
  if (req.bytes_out > 0) outcome.request_params = req.params;
  outcome.bytes_out = req.bytes_out;
  outcome.bytes_in = req.bytes_in;
  actions_.emplace_back(std::in_place_type<CallFinished>,
                        CallFinished{req.call_id, std::move(outcome)});
  calls_.erase(req.call_id);
}

void Session::Impl::Cancel(CallId id, TimePoint) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  const RpcId rpc_id = it->second;
  calls_.erase(it);
  auto req = requests_.find(rpc_id);
  if (req == requests_.end()) return;
  // Only a request the current session has seen needs telling.
  const bool live = req->second.transfer != 0 || req->second.resume_at.has_value();
  DropRequest(rpc_id);
  if (live) Notify(BuildCancelled(rpc_id, "cancelled by the client"));
}

void Session::Impl::DropRequest(RpcId rpc_id) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  Abort(it->second.transfer);
  requests_.erase(it);
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), rpc_id), waiting_.end());
}

// --- time ---

void Session::Impl::OnTimer(TimePoint now) {
  if (shutting_down_ || !started_) return;
  if (retry_at_ && now >= *retry_at_) StartAttempt(now);
  if (step_ == Step::kInitialized && step_deadline_ && now >= *step_deadline_) {
    FailHandshake("timed out after " + DescribeDuration(step_budget_) + " initializing", now);
  }
  std::vector<RpcId> expired, resume;
  for (const auto& [id, req] : requests_) {
    if (now >= req.deadline) {
      expired.push_back(id);
    } else if (req.resume_at && now >= *req.resume_at) {
      resume.push_back(id);
    }
  }
  for (RpcId id : expired) {
    auto it = requests_.find(id);
    if (it == requests_.end()) continue;
    Request& req = it->second;
    const std::string why = "timed out after " + DescribeDuration(req.budget);
    switch (req.kind) {
      case Kind::kInitialize:
        FailHandshake(why + " initializing", now);
        break;
      case Kind::kListTools:
        FailListing(why + " listing tools", now);
        break;
      case Kind::kCall: {
        const bool live = req.transfer != 0 || req.resume_at.has_value();
        FinishCall(req, CallErrorKind::kTransport, why);
        DropRequest(id);
        if (live) Notify(BuildCancelled(id, "timed out"));
        break;
      }
    }
  }
  for (RpcId id : resume) {
    auto it = requests_.find(id);
    if (it != requests_.end() && it->second.resume_at) Resume(it->second);
  }
  if (listen_retry_at_ && now >= *listen_retry_at_) OpenListen(now);
}

std::optional<TimePoint> Session::Impl::NextWakeup() const {
  if (shutting_down_) return std::nullopt;
  std::optional<TimePoint> next;
  Earliest(next, retry_at_);
  if (step_ == Step::kInitialized) Earliest(next, step_deadline_);
  for (const auto& [id, req] : requests_) {
    Earliest(next, req.deadline);
    Earliest(next, req.resume_at);
  }
  Earliest(next, listen_retry_at_);
  return next;
}

void Session::Impl::Shutdown(TimePoint) {
  if (shutting_down_) return;
  for (const auto& [id, t] : transfers_)
    actions_.emplace_back(std::in_place_type<AbortTransfer>, AbortTransfer{id});
  transfers_.clear();
  notify_transfers_ = 0;
  listen_transfer_ = 0;
  initialized_transfer_ = 0;
  for (auto& [id, req] : requests_) {
    if (req.kind == Kind::kCall)
      FinishCall(req, CallErrorKind::kTransport, std::string(kShuttingDown));
  }
  requests_.clear();
  waiting_.clear();
  calls_.clear();
  listing_ = Listing{};
  step_ = Step::kNone;
  step_deadline_.reset();
  attempt_deadline_.reset();
  retry_at_.reset();
  listen_retry_at_.reset();
  shutting_down_ = true;
  if (!session_id_.empty()) StartHttp(Purpose::kDelete, HttpMethod::kDelete, "", 0);
}

// --- the facade ---

Session::Session(std::string name, config::RemoteServer server, SessionLimits limits)
    : impl_(std::make_unique<Impl>(std::move(name), std::move(server), limits)) {}
Session::~Session() = default;

void Session::Start(TimePoint now) { impl_->Start(now); }
void Session::OnResponseHead(TransferId id, int http_status, std::string_view content_type,
                             std::string_view session_id, TimePoint now) {
  impl_->OnHead(id, http_status, content_type, session_id, now);
}
void Session::OnResponseData(TransferId id, std::string_view bytes, TimePoint now) {
  impl_->OnData(id, bytes, now);
}
void Session::OnTransferDone(TransferId id, const TransferResult& result, TimePoint now) {
  impl_->OnDone(id, result, now);
}
void Session::OnTimer(TimePoint now) { impl_->OnTimer(now); }
void Session::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  impl_->Call(id, std::move(tool), std::move(arguments_json), now);
}
void Session::Cancel(CallId id, TimePoint now) { impl_->Cancel(id, now); }
void Session::Shutdown(TimePoint now) { impl_->Shutdown(now); }

std::vector<Action> Session::TakeActions() {
  std::vector<Action> out;
  out.swap(impl_->actions_);
  return out;
}
std::optional<TimePoint> Session::NextWakeup() const { return impl_->NextWakeup(); }

const std::string& Session::name() const { return impl_->name_; }
Status Session::status() const { return impl_->status_; }
const std::string& Session::reason() const { return impl_->reason_; }
std::shared_ptr<const ToolList> Session::tools() const { return impl_->tools_; }
const std::string& Session::protocol_version() const { return impl_->protocol_version_; }

}  // namespace mcpgw::mcp
