#include "daemon/server_host.h"

#include <chrono>
#include <variant>

namespace mcpgw {
namespace {

mcp::TimePoint Now() { return mcp::Clock::now(); }

uv_timer_t* NewTimer(uv_loop_t* loop, void* data) {
  auto* t = new uv_timer_t;
  uv_timer_init(loop, t);
  t->data = data;
  return t;
}

void CloseTimer(uv_timer_t* t) {
  t->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(t),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
}

}  // namespace

ServerHost::ServerHost(uv_loop_t* loop, HttpClient* http, std::string name,
                       config::RemoteServer server, mcp::SessionLimits limits,
                       ServerHostListener* listener)
    : loop_(loop),
      http_(http),
      session_(std::move(name), std::move(server), limits),
      listener_(listener),
      timer_(NewTimer(loop, this)),
      grace_timer_(NewTimer(loop, this)) {}

ServerHost::~ServerHost() {
  http_->AbortAll(this);
  CloseTimer(timer_);
  CloseTimer(grace_timer_);
}

void ServerHost::Start() {
  session_.Start(Now());
  Pump();
}

void ServerHost::Call(mcp::CallId id, std::string tool, std::string arguments_json) {
  session_.Call(id, std::move(tool), std::move(arguments_json), Now());
  Pump();
}

void ServerHost::Cancel(mcp::CallId id) {
  session_.Cancel(id, Now());
  Pump();
}

void ServerHost::Shutdown(uint64_t grace_ms) {
  if (shutting_down_) return;
  shutting_down_ = true;
  session_.Shutdown(Now());
  Pump();
  uv_timer_start(grace_timer_, &ServerHost::OnGraceTimer, grace_ms, 0);
  MaybeFinishShutdown();
}

void ServerHost::OnHttpHead(uint64_t tag, int status, std::string_view content_type,
                            std::string_view session_id) {
  session_.OnResponseHead(tag, status, content_type, session_id, Now());
  Pump();
}

void ServerHost::OnHttpData(uint64_t tag, std::string_view bytes) {
  session_.OnResponseData(tag, bytes, Now());
  Pump();
}

void ServerHost::OnHttpDone(uint64_t tag, const mcp::TransferResult& result) {
  live_.erase(tag);
  session_.OnTransferDone(tag, result, Now());
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
        req.headers.reserve(start->server->headers.size() + start->headers.size());
        for (const config::Header& h : start->server->headers) {
          req.headers.emplace_back(h.name, h.value.Reveal());
        }
        for (auto& h : start->headers) req.headers.push_back(std::move(h));
        req.body = std::move(start->body);
        live_.insert(start->id);
        http_->Start(this, start->id, std::move(req));
      } else if (auto* abort = std::get_if<mcp::AbortTransfer>(&action)) {
        live_.erase(abort->id);
        http_->Abort(this, abort->id);
      } else if (auto* done = std::get_if<mcp::CallFinished>(&action)) {
        listener_->OnCallFinished(done->id, std::move(done->outcome));
      } else if (std::holds_alternative<mcp::StateChanged>(action)) {
        listener_->OnStateChanged(
            ServerState{session_.status(), session_.reason(), session_.tools()});
      }
    }
  }
  pumping_ = false;
  ArmTimer();
}

void ServerHost::ArmTimer() {
  std::optional<mcp::TimePoint> wake = session_.NextWakeup();
  if (!wake) {
    uv_timer_stop(timer_);
    return;
  }
  auto delay = std::chrono::ceil<std::chrono::milliseconds>(*wake - Now()).count();
  uv_timer_start(timer_, &ServerHost::OnTimer, delay > 0 ? static_cast<uint64_t>(delay) : 0, 0);
}

void ServerHost::OnTimer(uv_timer_t* timer) {
  auto* self = static_cast<ServerHost*>(timer->data);
  if (!self) return;
  self->session_.OnTimer(Now());
  self->Pump();
}

void ServerHost::OnGraceTimer(uv_timer_t* timer) {
  auto* self = static_cast<ServerHost*>(timer->data);
  if (!self) return;
  self->http_->AbortAll(self);
  self->live_.clear();
  self->MaybeFinishShutdown();
}

void ServerHost::MaybeFinishShutdown() {
  if (!shutting_down_ || shutdown_reported_ || !live_.empty()) return;
  shutdown_reported_ = true;
  uv_timer_stop(grace_timer_);
  uv_timer_stop(timer_);
  listener_->OnShutdownComplete();
}

}  // namespace mcpgw
