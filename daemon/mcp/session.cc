// The HTTP session: a conversation over its Streamable HTTP wire, and the one
// list of actions both fill.
#include "daemon/mcp/session.h"

namespace mcpgw::mcp {

Session::Session(std::string name, config::RemoteServer server, SessionLimits limits)
    : http_(std::make_unique<HttpWire>(std::move(server), limits, &actions_)),
      conversation_(std::move(name), limits, http_.get(), this) {
  http_->SetListener(conversation_.listener());
}

Session::Session(std::string name, SessionLimits limits)
    : stdio_(std::make_unique<StdioWire>(limits, &actions_)),
      conversation_(std::move(name), limits, stdio_.get(), this) {
  stdio_->SetListener(conversation_.listener());
}

Wire& Session::wire() {
  if (http_) return *http_;
  return *stdio_;
}

Session::~Session() = default;

void Session::EndEvent(TimePoint now) {
  wire().AfterEvent(now);
  conversation_.Publish();
}

void Session::Start(TimePoint now) {
  conversation_.Start(now);
  EndEvent(now);
}

void Session::OnResponseHead(TransferId id, const ResponseHead& head, TimePoint now) {
  if (http_) http_->OnHead(id, head, now);
  EndEvent(now);
}

void Session::OnResponseData(TransferId id, std::string_view bytes, TimePoint now) {
  if (http_) http_->OnData(id, bytes, now);
  EndEvent(now);
}

void Session::OnTransferDone(TransferId id, const TransferResult& result, TimePoint now) {
  if (http_) http_->OnDone(id, result, now);
  EndEvent(now);
}

void Session::OnTimer(TimePoint now) {
  conversation_.OnTimer(now);
  EndEvent(now);
}

void Session::Call(CallId id, std::string tool, std::string arguments_json, TimePoint now) {
  conversation_.Call(id, std::move(tool), std::move(arguments_json), now);
  EndEvent(now);
}

void Session::Cancel(CallId id, TimePoint now) {
  conversation_.Cancel(id, now);
  EndEvent(now);
}

void Session::Shutdown(TimePoint now) {
  conversation_.Shutdown(now);
  EndEvent(now);
}

void Session::SetAuthorization(Secret value) {
  if (http_) http_->SetAuthorization(std::move(value));
}

void Session::OnProcessOutput(std::string_view bytes, TimePoint now) {
  if (stdio_) stdio_->OnOutput(bytes, now);
  EndEvent(now);
}

void Session::OnProcessExited(const std::string& reason, TimePoint now) {
  if (stdio_) stdio_->OnExited(reason, now);
  EndEvent(now);
}

void Session::OnAuthorized(TimePoint now) {
  conversation_.OnAuthorized(now);
  EndEvent(now);
}

void Session::OnAuthorizationFailed(std::string reason, TimePoint now) {
  conversation_.OnAuthorizationFailed(reason, now);
  EndEvent(now);
}

void Session::SetEraHint(std::string_view version) { conversation_.SetEraHint(version); }

std::vector<Action> Session::TakeActions() {
  std::vector<Action> out;
  out.swap(actions_);
  return out;
}

void Session::Finished(CallFinished finished) {
  actions_.emplace_back(std::in_place_type<CallFinished>, std::move(finished));
}

void Session::Changed() { actions_.emplace_back(std::in_place_type<StateChanged>); }

void Session::Log(LogLevel level, std::string text) {
  actions_.emplace_back(std::in_place_type<LogLine>, LogLine{level, std::move(text)});
}

}  // namespace mcpgw::mcp
