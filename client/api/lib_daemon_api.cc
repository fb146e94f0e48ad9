// LibDaemonApi: DaemonApi over libmcpgw's C ABI. A CancelToken is bridged to a per-call
// mcpgw_cancel through a subscription that lives exactly as long as the call.
#include <string>
#include <utility>

#include "client/api/daemon_api.h"

namespace mcpgw::cli {
namespace {

// Owns the mcpgw_cancel of one call and keeps it linked to the caller's token.
class CallCancel {
 public:
  explicit CallCancel(CancelToken* token) : token_(token) {
    if (token_ == nullptr) return;
    native_ = mcpgw_cancel_new();
    if (native_ == nullptr) return;
    mcpgw_cancel* native = native_;
    id_ = token_->Subscribe([native] { mcpgw_cancel_trigger(native); });
  }
  ~CallCancel() {
    if (native_ == nullptr) return;
    token_->Unsubscribe(id_);
    mcpgw_cancel_free(native_);
  }
  CallCancel(const CallCancel&) = delete;
  CallCancel& operator=(const CallCancel&) = delete;

  mcpgw_cancel* native() const { return native_; }

 private:
  CancelToken* token_;
  mcpgw_cancel* native_ = nullptr;
  int id_ = 0;
};

ApiResult Finish(mcpgw_status status, char* out) {
  ApiResult result;
  result.status = status;
  if (out != nullptr) result.text = out;
  mcpgw_free(out);
  return result;
}

}  // namespace

LibDaemonApi::LibDaemonApi(const std::string& socket_path)
    : client_(mcpgw_open(socket_path.empty() ? nullptr : socket_path.c_str())) {}

LibDaemonApi::~LibDaemonApi() {
  if (client_ != nullptr) mcpgw_close(client_);
}

ApiResult LibDaemonApi::GetDynamicTools(const ToolsRequest& request, CancelToken* cancel) {
  if (client_ == nullptr) return {MCPGW_UNAVAILABLE, "out of memory"};
  if (const base::Status checked = CheckToolsRequest(request); !checked.ok()) {
    return {MCPGW_INVALID_REQUEST, checked.message()};
  }
  CallCancel call_cancel(cancel);
  char* out = nullptr;
  const char* ns = request.ns ? request.ns->c_str() : nullptr;
  const mcpgw_status status =
      request.query
          ? mcpgw_find_tools(client_, ns, request.query->c_str(),
                             static_cast<int>(request.limit.value_or(0)), call_cancel.native(),
                             &out)
          : mcpgw_get_dynamic_tools(client_, ns, request.tool ? request.tool->c_str() : nullptr,
                                    call_cancel.native(), &out);
  return Finish(status, out);
}

ApiResult LibDaemonApi::CallDynamicTool(const std::string& ns, const std::string& tool,
                                        const std::string& arguments_json, long long max_text_bytes,
                                        CancelToken* cancel) {
  if (client_ == nullptr) return {MCPGW_UNAVAILABLE, "out of memory"};
  CallCancel call_cancel(cancel);
  char* out = nullptr;
  const mcpgw_status status = mcpgw_call_dynamic_tool_bounded(
      client_, ns.c_str(), tool.c_str(), arguments_json.empty() ? nullptr : arguments_json.c_str(),
      max_text_bytes, call_cancel.native(), &out);
  return Finish(status, out);
}

ApiResult LibDaemonApi::Status(CancelToken* cancel) {
  if (client_ == nullptr) return {MCPGW_UNAVAILABLE, "out of memory"};
  CallCancel call_cancel(cancel);
  char* out = nullptr;
  const mcpgw_status status = mcpgw_status_json(client_, call_cancel.native(), &out);
  return Finish(status, out);
}

void LibDaemonApi::SetTimeoutMs(long timeout_ms) {
  if (client_ != nullptr) mcpgw_set_timeout_ms(client_, timeout_ms);
}

}  // namespace mcpgw::cli
