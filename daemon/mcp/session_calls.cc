// Session requests: listing tools (every new session, and on list_changed),
// calls and cancellation, and carrying out what the classifier (outcome.h)
// says of a request whose transfer ended without an answer (BEHAVIOR.md §5:
// a call runs at most once). Phases live in session.cc, transfers in
// session_wire.cc and session_receive.cc.
#include <algorithm>
#include <functional>

#include "base/text.h"
#include "daemon/mcp/convert.h"
#include "daemon/mcp/modern_wire.h"
#include "daemon/mcp/session_impl.h"

namespace mcpgw::mcp {

namespace {

constexpr std::string_view kShuttingDown = "gateway shutting down";
constexpr int kMaxResumes = 5;  // resumptions in a row that brought no new event
constexpr auto kDefaultResumeDelay = std::chrono::milliseconds(500);
constexpr long kMaxResumeDelayMs = 10'000;

// A Last-Event-ID must stay one header line.
bool UsableEventId(std::string_view id) {
  return !id.empty() && id.size() <= 1024 && std::none_of(id.begin(), id.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
}

}  // namespace

Session::Impl::Request& Session::Impl::NewRequest(Kind kind, TimePoint deadline, Duration budget) {
  const RpcId id = next_rpc_id_++;
  Request& req = requests_[id];
  req.kind = kind;
  req.rpc_id = id;
  req.deadline = deadline;
  req.budget = budget;
  Remind(Reminder::What::kRequestDeadline, id, deadline);
  return req;
}

// --- listing tools ---

void Session::Impl::StartListing(TimePoint now) {
  listing_ = Listing{};
  listing_.active = true;
  listed_at_ = now;
  RequestPage(std::nullopt, now);
}

void Session::Impl::RequestPage(const std::optional<std::string>& cursor, TimePoint now) {
  const bool attempt = phase_ == Phase::kListing;
  const Duration budget = !attempt  ? limits_.request_deadline
                          : served_ ? limits_.request_deadline
                                    : limits_.first_attempt_deadline;
  Request& req = NewRequest(Kind::kListTools,
                            attempt ? *attempt_deadline_ : now + limits_.request_deadline, budget);
  req.cursor = cursor;
  if (attempt) {
    SendRequest(req, now);
  } else {
    Dispatch(req, now);
  }
}

void Session::Impl::OnPage(const rapidjson::Value& result, TimePoint now) {
  std::string error;
  if (ResultTypeOf(result) != ResultType::kComplete) {
    return FailListing("tools/list answered with a result that is not complete", now);
  }
  if (era_.modern()) ReadAnnotations(result);
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
  // Tools whose x-mcp-header annotations are invalid cannot be called on the
  // modern wire: they are left out (the revision's rule), the rest stay.
  const std::vector<std::string>& refused = listing_.refused;
  if (!refused.empty()) {
    tools.RemoveIf([&](const Tool& t) {
      return std::find(refused.begin(), refused.end(), t.name) != refused.end();
    });
  }
  param_headers_ = std::move(listing_.param_headers);
  if (era_.modern()) fresh_until_ = now + listing_.ttl.value_or(Duration::zero());
  const bool again = listing_.again;
  listing_ = Listing{};
  Log(LogLevel::kDebug, "listed " + std::to_string(tools.size()) + " tools");
  if (*tools_ != tools) {
    tools.Shrink();
    tools_ = std::make_shared<const ToolList>(std::move(tools));
  }
  if (phase_ == Phase::kListing) EnterPhase(Phase::kReady, now);
  if (again && !listing_.active) {
    if (Serving()) {
      StartListing(now);
    } else {
      listing_.again = true;  // once credentials come
    }
  }
}

void Session::Impl::FailListing(const std::string& reason, TimePoint now) {
  std::vector<RpcId> pages;
  for (const auto& [id, req] : requests_) {
    if (req.kind == Kind::kListTools) pages.push_back(id);
  }
  for (RpcId id : pages) DropRequest(id);
  listing_ = Listing{};
  if (phase_ == Phase::kListing) return FailAttempt(reason, now);
  // A failed re-list keeps the tools the server listed before.
  Log(LogLevel::kDebug, "re-listing tools failed: " + reason + "; keeping the " +
                            std::to_string(tools_->size()) + " tools listed before");
}

void Session::Impl::ToolsChanged(TimePoint now) {
  if (listing_.active) {
    listing_.again = true;
    return;
  }
  // Before ready, and in a new session, the listing under way (or next) counts.
  if (phase_ != Phase::kReady) return;
  if (!Serving()) {
    listing_.again = true;  // once credentials come
    return;
  }
  Log(LogLevel::kDebug, "tools changed: listing again");
  StartListing(now);
}

// --- calls ---

// Sends `req` now when the session serves, else queues it for kReady. A
// ready server backing off after a failed re-initialization tries again at
// once: a call is waiting.
void Session::Impl::Dispatch(Request& req, TimePoint now) {
  if (Serving()) return SendRequest(req, now);
  waiting_.push_back(req.rpc_id);
  if (phase_ == Phase::kBackingOff && served_) EnterPhase(AttemptPhase(), now);
}

void Session::Impl::SendWaiting(TimePoint now) {
  std::deque<RpcId> waiting;
  waiting.swap(waiting_);
  for (RpcId id : waiting) {
    auto it = requests_.find(id);
    if (it != requests_.end() && it->second.transfer == 0) SendRequest(it->second, now);
  }
}

void Session::Impl::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  auto refuse = [&](std::string_view text) {
    CallOutcome outcome;
    outcome.kind = CallErrorKind::kTransport;
    outcome.text = std::string(text);
    actions_.emplace_back(std::in_place_type<CallFinished>, CallFinished{id, std::move(outcome)});
  };
  if (phase_ == Phase::kClosed) return refuse(kShuttingDown);
  if (status() != Status::kReady) return refuse("server not ready");
  if (calls_.count(id) || task_calls_.count(id)) return refuse("duplicate call id");
  // A tool that requires task-augmented execution is called as a task
  // (session_tasks.cc); every other tool exactly as before tasks existed.
  std::optional<Tool> listed = tools_->Find(tool);
  if (!listed) {
    // A name the list shows cleaned of invisible characters goes out as the
    // server wrote it: found by that name (rare, so a scan).
    for (const Tool t : *tools_) {
      if (t.wire_name == tool) {
        listed = t;
        break;
      }
    }
  }
  if (listed && listed->task_support == TaskSupport::kRequired) {
    return CallAsTask(id, std::move(tool), std::move(arguments_json), now);
  }
  Request& req = NewRequest(Kind::kCall, now + limits_.call_deadline, limits_.call_deadline);
  req.call_id = id;
  req.tool = std::move(tool);
  req.arguments = std::move(arguments_json);
  calls_[id] = req.rpc_id;
  Dispatch(req, now);
  RefreshIfStale(now);
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

void Session::Impl::Cancel(CallId id, TimePoint now) {
  if (task_calls_.count(id)) return CancelTaskCall(id, now);
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  const RpcId rpc_id = it->second;
  calls_.erase(it);
  auto req = requests_.find(rpc_id);
  if (req == requests_.end()) return;
  // Only a request the server may hold needs telling: one in flight, or
  // between its stream and the resumption.
  // On the modern wire closing its stream (DropRequest aborts it) is the
  // cancellation itself.
  const bool live =
      req->second.gen != 0 && (req->second.transfer != 0 || req->second.resume_at.has_value());
  const bool tell = live && !req->second.modern;
  const uint64_t gen = req->second.gen;
  DropRequest(rpc_id);
  if (tell) Notify(BuildCancelled(rpc_id, "cancelled by the client"), /*must=*/true, gen, now);
}

void Session::Impl::DropRequest(RpcId rpc_id) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  Abort(it->second.transfer);
  requests_.erase(it);
  auth_.Forget(rpc_id);
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), rpc_id), waiting_.end());
}

void Session::Impl::OnResponse(RpcId rpc_id, const Message& msg, TimePoint now) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  Request& req = it->second;
  // An SSE stream has served its purpose once the response is in.
  Abort(req.transfer);
  req.transfer = 0;
  req.resume_at.reset();
  switch (req.kind) {
    case Kind::kDiscover:
      return;  // answered through OnDiscoverAnswer
    case Kind::kInitialize: {
      const std::string session_id = std::move(req.head_session_id);
      DropRequest(rpc_id);
      return OnInitializeResponse(msg, session_id, now);
    }
    case Kind::kListTools:
      if (msg.is_error) {
        return FailListing(
            "tools/list failed: error " + std::to_string(msg.error_code) + ": " + msg.error_message,
            now);
      }
      DropRequest(rpc_id);
      return OnPage(*msg.result, now);
    case Kind::kCall: {
      if (req.as_task) return OnTaskAnswer(req, msg, now);
      auto [kind, text] = CallResultOf(msg);
      FinishCall(req, kind, std::move(text));
      DropRequest(rpc_id);
      return;
    }
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      return OnTaskAnswer(req, msg, now);
  }
}

// What a tools/call's answer (or a plain answer to a task-augmented one)
// makes of the call (BEHAVIOR.md §5).
std::pair<CallErrorKind, std::string> Session::Impl::CallResultOf(const Message& msg) {
  if (msg.is_error) {
    return {CallErrorKind::kBackend,
            "error " + std::to_string(msg.error_code) + ": " + msg.error_message};
  }
  if (!msg.result->IsObject()) return {CallErrorKind::kTransport, "invalid tools/call result"};
  switch (ResultTypeOf(*msg.result)) {
    case ResultType::kInputRequired:
      // The gateway declares no client capabilities: it cannot answer.
      return {CallErrorKind::kBackend, InputRequiredText(*msg.result)};
    case ResultType::kTask:
      return {CallErrorKind::kTransport,
              "the server answered with a task (resultType \"task\"), which the gateway did not "
              "ask for: it declares no tasks extension on the 2026-07-28 wire"};
    case ResultType::kInvalid:
      return {CallErrorKind::kTransport, "invalid tools/call result: unknown resultType"};
    case ResultType::kComplete:
      break;
  }
  ConvertedResult converted = ConvertCallResult(*msg.result);
  return {converted.is_error ? CallErrorKind::kBackend : CallErrorKind::kNone,
          std::move(converted.text)};
}

// --- what becomes of a request without an answer ---

bool Session::Impl::Resumable(const Request& req) const {
  return UsableEventId(req.last_event_id) && req.resumes < kMaxResumes && req.gen == gen_ &&
         have_session_;
}

// Carries out the classifier's verdict on a request: its transfer ended (or
// was refused) without an answer, or its refusal's body is the answer.
void Session::Impl::Settle(RpcId rpc_id, const Verdict& verdict, int http_status,
                           const rapidjson::Value* message, TimePoint now) {
  auto it = requests_.find(rpc_id);
  if (it == requests_.end()) return;
  Request& req = it->second;
  switch (verdict.remedy) {
    case Remedy::kAnswer:
      if (message != nullptr) return OnResponse(rpc_id, ClassifyMessage(*message), now);
      break;
    case Remedy::kJudgeEra:
      return OnDiscoverAnswer(rpc_id, http_status, message, now);
    case Remedy::kProbeEra:
      if (ProbeAfterInitialize(verdict.reason, now)) return;
      break;
    default:
      break;
  }
  // A call that left reads its tools/call only to learn the task to cancel:
  // it is never sent again, nor held.
  const bool again = verdict.remedy == Remedy::kResend || verdict.remedy == Remedy::kReprobe ||
                     verdict.remedy == Remedy::kHold;
  if (again && req.as_task && TaskCallLeft(req.call_id)) return FailRequest(req, verdict, now);
  Abort(req.transfer);
  req.transfer = 0;
  req.resume_at.reset();
  switch (verdict.remedy) {
    case Remedy::kResend:
    case Remedy::kReprobe:
      return SendAgain(req, verdict, now);
    case Remedy::kHold:
      auth_.Hold(rpc_id);
      return;
    case Remedy::kResume:
      return ScheduleResume(req, verdict.reason, now);
    default:
      return FailRequest(req, verdict, now);
  }
}

// The server never took the request: it goes out once more, in a new session
// or once the era is probed again. A listing is not sent again: the new
// session lists from the start.
void Session::Impl::SendAgain(Request& req, const Verdict& verdict, TimePoint now) {
  const bool reprobe = verdict.remedy == Remedy::kReprobe;
  if (req.kind == Kind::kListTools) {
    DropRequest(req.rpc_id);
  } else {
    req.resent = true;
    const std::string method = req.kind == Kind::kCall      ? "tools/call"
                               : req.kind == Kind::kTaskGet ? "tasks/get"
                                                            : "tasks/result";
    Log(LogLevel::kDebug, reprobe ? method + " refused (" + verdict.reason +
                                        "): sending it again once the server's era is probed"
                                  : method + " answered 404: sending it again in a new session");
    waiting_.push_back(req.rpc_id);
  }
  if (!verdict.session_expired.empty()) return SessionExpired(verdict.session_expired, now);
  if (verdict.era_doubted) return EraMayHaveChanged(verdict.reason, now);
  // The session was replaced already: the new one sends it.
  if (Serving()) SendWaiting(now);
  if (phase_ == Phase::kBackingOff && served_) EnterPhase(AttemptPhase(), now);
}

void Session::Impl::ScheduleResume(Request& req, const std::string& why, TimePoint now) {
  ++req.resumes;
  Duration delay = kDefaultResumeDelay;
  if (req.retry_ms) {
    delay = std::chrono::milliseconds(std::clamp(*req.retry_ms, 0L, kMaxResumeDelayMs));
  }
  req.resume_at = now + delay;
  Remind(Reminder::What::kResume, req.rpc_id, *req.resume_at);
  Log(LogLevel::kDebug,
      "stream ended early (" + why + "); resuming it in " + base::DescribeDuration(delay));
}

void Session::Impl::FailRequest(Request& req, const Verdict& verdict, TimePoint now) {
  const RpcId rpc_id = req.rpc_id;
  Abort(req.transfer);
  req.transfer = 0;
  switch (req.kind) {
    case Kind::kDiscover:
    case Kind::kInitialize:
      FailAttempt(verdict.reason, now);
      break;
    case Kind::kListTools:
      FailListing(verdict.reason, now);
      break;
    case Kind::kCall:
      if (req.as_task) {
        OnTaskRequestFailed(req, verdict, now);
        break;
      }
      FinishCall(req, verdict.backend ? CallErrorKind::kBackend : CallErrorKind::kTransport,
                 verdict.reason);
      DropRequest(rpc_id);
      break;
    case Kind::kTaskGet:
    case Kind::kTaskResult:
      OnTaskRequestFailed(req, verdict, now);
      break;
  }
  // The request's session is gone all the same.
  if (!verdict.session_expired.empty()) SessionExpired(verdict.session_expired, now);
}

// Calls that waited for a session (or for credentials) fail with `why`.
void Session::Impl::FailWaiting(const std::string& why, TimePoint now) {
  std::vector<RpcId> ids(waiting_.begin(), waiting_.end());
  waiting_.clear();
  for (RpcId id : auth_.TakeHeld()) ids.push_back(id);
  for (RpcId id : ids) {
    auto it = requests_.find(id);
    if (it == requests_.end()) continue;
    if (it->second.as_task || it->second.kind == Kind::kTaskGet ||
        it->second.kind == Kind::kTaskResult) {
      OnTaskRequestAbandoned(it->second, why, now);
    } else if (it->second.kind == Kind::kCall) {
      FinishCall(it->second, CallErrorKind::kTransport, why);
      DropRequest(id);
    } else if (it->second.kind == Kind::kListTools) {
      FailListing(why, now);
    } else {
      DropRequest(id);
    }
  }
}

}  // namespace mcpgw::mcp
