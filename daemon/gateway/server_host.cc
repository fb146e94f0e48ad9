#include "daemon/gateway/server_host.h"

#include <algorithm>
#include <variant>

#include "base/clean_text.h"

#include <spdlog/spdlog.h>

namespace mcpgw {

ServerHost::ServerHost(Env* env, std::string name, config::RemoteServer server,
                       mcp::SessionLimits limits, ServerHostListener* listener, PinOptions pins,
                       std::shared_ptr<HostGauges> gauges)
    : env_(env),
      pin_url_(server.url_redacted),
      session_(std::move(name), std::move(server), limits),
      listener_(listener),
      timer_(env->NewTimer()),
      pins_dir_(std::move(pins.dir)),
      gauges_(std::move(gauges)) {
  SetPinning(pins.mode);
}

ServerHost::ServerHost(Env* env, std::string name, config::LocalServer server,
                       mcp::SessionLimits limits, ServerHostListener* listener, PinOptions pins,
                       std::shared_ptr<HostGauges> gauges)
    : env_(env),
      pin_url_("command: " + server.shown),
      session_(name, limits),
      listener_(listener),
      timer_(env->NewTimer()),
      pins_dir_(std::move(pins.dir)),
      gauges_(gauges ? std::move(gauges) : std::make_shared<HostGauges>()) {
  if (!gauges_->local) gauges_->local = std::make_shared<LocalGauges>();
  LocalProcess::Events* events = this;
  local_ = std::make_unique<LocalProcess>(env, std::move(name), std::move(server), gauges_->local,
                                          events);
  SetPinning(pins.mode);
}

ServerHost::~ServerHost() {
  local_.reset();
  env_->http().AbortAll(this);
}

void ServerHost::OnProcessOutput(std::string_view bytes) {
  session_.OnProcessOutput(bytes, env_->Now());
  gauges_->local->skipped_lines.store(session_.skipped_lines(), std::memory_order_relaxed);
  Pump();
}

void ServerHost::OnProcessExited(const std::string& reason) {
  session_.OnProcessExited(reason, env_->Now());
  Pump();
}

void ServerHost::OnProcessesGone() { MaybeFinishShutdown(); }

void ServerHost::Start(std::string_view era_hint) {
  session_.SetEraHint(era_hint);
  session_.Start(env_->Now());
  Pump();
}

void ServerHost::Call(mcp::CallId id, std::string tool, std::string arguments_json) {
  session_.Call(id, std::move(tool), std::move(arguments_json), env_->Now());
  Pump();
}

void ServerHost::Cancel(mcp::CallId id) {
  session_.Cancel(id, env_->Now());
  Pump();
}

void ServerHost::SetAuthorization(Secret value) { session_.SetAuthorization(std::move(value)); }

void ServerHost::OnAuthorized() {
  session_.OnAuthorized(env_->Now());
  Pump();
}

void ServerHost::OnAuthorizationFailed(std::string reason) {
  session_.OnAuthorizationFailed(std::move(reason), env_->Now());
  Pump();
}

void ServerHost::Shutdown(mcp::Duration grace) {
  if (shutting_down_) return;
  shutting_down_ = true;
  session_.Shutdown(env_->Now());
  Pump();
  // A local server's stop takes up to twice 2 s (stdin closed, SIGTERM,
  // SIGKILL): its grace is at least that.
  if (local_) grace = std::max<mcp::Duration>(grace, std::chrono::milliseconds(4500));
  grace_timer_ = env_->NewTimer();  // made here: most hosts never shut down before the daemon
  grace_timer_->Start(grace, [this] {
    env_->http().AbortAll(this);
    live_.clear();
    if (local_) local_->KillAll();
    MaybeFinishShutdown();
  });
  MaybeFinishShutdown();
}

void ServerHost::OnHttpHead(uint64_t tag, const ResponseHead& head) {
  if (!head.http_version.empty()) http_version_ = head.http_version;
  session_.OnResponseHead(tag, head, env_->Now());
  Pump();
}

void ServerHost::OnHttpData(uint64_t tag, std::string_view bytes) {
  session_.OnResponseData(tag, bytes, env_->Now());
  Pump();
}

void ServerHost::OnHttpDone(uint64_t tag, const TransferResult& result) {
  live_.erase(tag);
  session_.OnTransferDone(tag, result, env_->Now());
  Pump();
  MaybeFinishShutdown();
}

void ServerHost::Pump() {
  if (pumping_) return;  // the outer Pump drains what re-entrant events queued
  pumping_ = true;
  for (;;) {
    std::vector<mcp::Action> actions = session_.TakeActions();
    if (actions.empty()) break;
    for (mcp::Action& action : actions) {
      if (auto* start = std::get_if<mcp::StartTransfer>(&action)) {
        HttpRequest req;
        req.method = start->method;
        req.url = start->server->url.Reveal();
        req.url_redacted = start->server->url_redacted;
        if (start->server->headers.empty()) {
          req.headers = std::move(start->headers);
        } else {
          req.headers.reserve(start->server->headers.size() + start->headers.size());
          for (const config::Header& h : start->server->headers) {
            req.headers.emplace_back(h.name, h.value.Reveal());
          }
          for (auto& h : start->headers) req.headers.push_back(std::move(h));
        }
        req.body = std::move(start->body);
        req.long_lived = start->long_lived;
        req.at_most_once = start->at_most_once;
        if (gauges_) req.queued_gauge = &gauges_->queued;
        live_.insert(start->id);
        env_->http().Start(this, start->id, std::move(req));
      } else if (auto* abort = std::get_if<mcp::AbortTransfer>(&action)) {
        live_.erase(abort->id);
        if (abort->answered) {
          env_->http().Finish(this, abort->id);
        } else {
          env_->http().Abort(this, abort->id);
        }
      } else if (auto* done = std::get_if<mcp::CallFinished>(&action)) {
        listener_->OnCallFinished(done->id, std::move(done->outcome));
      } else if (std::holds_alternative<mcp::StateChanged>(action)) {
        PublishState();
      } else if (auto* need = std::get_if<mcp::AuthorizationNeeded>(&action)) {
        listener_->OnAuthorizationNeeded(need->http_status, need->www_authenticate);
      } else if (std::holds_alternative<mcp::SpawnProcess>(action)) {
        if (local_) local_->Spawn();
      } else if (auto* input = std::get_if<mcp::WriteInput>(&action)) {
        if (local_) local_->Write(std::move(input->bytes));
      } else if (std::holds_alternative<mcp::StopProcess>(action)) {
        if (local_) local_->Stop();
      } else if (auto* line = std::get_if<mcp::LogLine>(&action)) {
        const spdlog::level::level_enum level =
            line->level == mcp::LogLevel::kWarn   ? spdlog::level::warn
            : line->level == mcp::LogLevel::kInfo ? spdlog::level::info
                                                  : spdlog::level::debug;
        spdlog::log(level, "server \"{}\": {}", session_.name(), line->text);
      }
    }
  }
  pumping_ = false;
  // A reconnect of a ready server changes no status: it is told all the same.
  if (session_.attempts() != published_attempts_) PublishAttempts();
  ArmTimer();
}

void ServerHost::ArmTimer() {
  // Most pumps leave the earliest wake-up where it was (a call's deadline
  // lies behind the ones already pending): the timer is then left alone.
  std::optional<mcp::TimePoint> wake = session_.NextWakeup();
  if (wake == armed_) return;
  armed_ = wake;
  if (!wake) {
    timer_->Stop();
    return;
  }
  timer_->Start(*wake - env_->Now(), [this] {
    armed_.reset();
    session_.OnTimer(env_->Now());
    Pump();
  });
}

void ServerHost::MaybeFinishShutdown() {
  if (!shutting_down_ || shutdown_reported_ || !live_.empty()) return;
  if (local_ && !local_->idle()) return;
  shutdown_reported_ = true;
  if (grace_timer_) grace_timer_->Stop();
  timer_->Stop();
  armed_.reset();
  listener_->OnShutdownComplete();
}

void ServerHost::PublishState(bool again) {
  const std::shared_ptr<const mcp::ToolList> tools = session_.tools();
  const bool ready = session_.status() == mcp::Status::kReady && tools;
  std::shared_ptr<const search::AnalyzedTools> analyzed;
  if (ready && (again || tools != reviewed_tools_)) {
    if (tools != reviewed_tools_) ReportHiddenText(*tools);
    reviewed_tools_ = tools;
    visible_tools_ = tools;
    if (pins_) {
      pins_->Review(*env_, *tools, [this](const std::string& line) {
        spdlog::warn("server \"{}\": {}", session_.name(), base::CleanServerText(line, 2000));
      });
      const PinReport& report = pins_->report();
      if (report.withheld() > 0) {
        auto visible = std::make_shared<mcp::ToolList>(*tools);
        visible->RemoveIf([&](const mcp::Tool& tool) { return report.Withholds(tool.name); });
        visible->Shrink();
        visible_tools_ = std::move(visible);
      }
    }
    analyzed = search::Analyze(session_.name(), *visible_tools_);
  }
  ServerState state{session_.status(),
                    session_.reason(),
                    ready ? visible_tools_ : tools,
                    pins_ ? pins_->shared_report() : nullptr,
                    std::move(analyzed),
                    session_.protocol_version(),
                    http_version_,
                    session_.attempts()};
  published_attempts_ = state.attempts;
  listener_->OnStateChanged(state);
}

void ServerHost::PublishAttempts() {
  ServerState state;
  state.attempts = session_.attempts();
  state.attempts_only = true;
  published_attempts_ = state.attempts;
  listener_->OnStateChanged(state);
}

base::Result<ServerPins::Approval> ServerHost::Approve(const std::vector<std::string>& tools,
                                                       bool all) {
  if (!pins_) {
    return base::Status(
        base::ErrorKind::kInvalidRequest,
        "pinning is off for server \"" + session_.name() + "\": nothing waits for approval");
  }
  base::Result<ServerPins::Approval> approval = pins_->Approve(*env_, tools, all);
  if (approval.ok() && (!approval->approved.empty() || all)) PublishState(/*again=*/true);
  return approval;
}

std::vector<PinnedTool> ServerHost::DescribePins() {
  if (pins_) return pins_->Describe(*env_, reviewed_tools_.get());
  std::vector<PinnedTool> tools;
  if (reviewed_tools_) {
    for (const mcp::Tool tool : *reviewed_tools_) {
      tools.push_back(PinnedTool{std::string(tool.name), PinnedTool::State::kUnpinned,
                                 tool.hidden_text_removed});
    }
  }
  return tools;
}

void ServerHost::SetPinning(PinningMode mode) {
  if (pins_dir_.empty() || mode == PinningMode::kOff) {
    if (!pins_) return;
    pins_.reset();
  } else if (pins_) {
    if (pins_->mode() == mode) return;
    pins_->SetMode(mode);
  } else {
    pins_ = std::make_unique<ServerPins>(PinFiles(pins_dir_), session_.name(), pin_url_, mode);
    if (!reviewed_tools_) return;  // the first listing reviews
  }
  if (reviewed_tools_) PublishState(/*again=*/true);
}

// Once per tool for the host's life, not at every listing.
void ServerHost::ReportHiddenText(const mcp::ToolList& tools) {
  std::string names;
  for (const mcp::Tool tool : tools) {
    if (!tool.hidden_text_removed || !hidden_reported_.emplace(tool.name).second) continue;
    if (!names.empty()) names += ", ";
    names += tool.name;
  }
  if (names.empty()) return;
  spdlog::warn(
      "server \"{}\": invisible characters (tag, bidirectional or zero-width) removed from "
      "tools: {}",
      session_.name(), base::CleanServerText(names, 1000));
}

}  // namespace mcpgw
