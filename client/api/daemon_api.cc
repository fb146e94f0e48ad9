#include "client/api/daemon_api.h"

#include <climits>
#include <utility>

#include "proto/proto.h"

namespace mcpgw::cli {

void CancelToken::Trigger() {
  std::lock_guard<std::mutex> lock(mu_);
  if (triggered_) return;
  triggered_ = true;
  for (auto& [id, fn] : callbacks_) fn();
  cv_.notify_all();
}

bool CancelToken::triggered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return triggered_;
}

int CancelToken::Subscribe(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (triggered_) fn();
  const int id = next_id_++;
  callbacks_.emplace(id, std::move(fn));
  return id;
}

void CancelToken::Unsubscribe(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  callbacks_.erase(id);
}

bool CancelToken::WaitFor(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return triggered_; });
}

base::Status CheckToolsRequest(const ToolsRequest& request) {
  if (!request.query) return base::Status();
  if (request.tool) {
    return base::Status(base::ErrorKind::kInvalidRequest,
                        "query does not go with toolName: pass query (and a namespace to search "
                        "one server) to find tools, or namespace and toolName to look up one tool");
  }
  if (request.limit &&
      (*request.limit == 0 || *request.limit < INT_MIN || *request.limit > INT_MAX)) {
    return base::Status(
        base::ErrorKind::kInvalidRequest,
        "limit must be an integer from 1 to " + std::to_string(proto::kMaxToolsLimit));
  }
  return base::Status();
}

std::string_view StatusName(mcpgw_status status) { return mcpgw_status_name(status); }

int ExitCodeFor(mcpgw_status status) {
  switch (status) {
    case MCPGW_OK:
    case MCPGW_BACKEND:
    case MCPGW_INVALID_REQUEST:
    case MCPGW_NOT_READY:
    case MCPGW_TRANSPORT:
    case MCPGW_DENIED:
    case MCPGW_UNAVAILABLE:
      return static_cast<int>(status);
    case MCPGW_CANCELLED:
      return 130;
  }
  return static_cast<int>(MCPGW_TRANSPORT);
}

std::string ErrorText(const ApiResult& result) {
  const std::string kind(StatusName(result.status));
  if (result.text.empty()) return kind;
  if (result.text.rfind(kind + ":", 0) == 0) return result.text;
  return kind + ": " + result.text;
}

}  // namespace mcpgw::cli
