// LibAsyncDaemonApi: AsyncDaemonApi over libmcpgw's pollable interface. Each request's Done
// lives on the heap from its start until libmcpgw runs its callback (exactly once).
#include <memory>
#include <string>
#include <utility>

#include "client/api/async_api.h"

namespace mcpgw::cli {
namespace {

void Deliver(void* user_data, mcpgw_request, mcpgw_status status, const char* text, size_t len) {
  std::unique_ptr<AsyncDaemonApi::Done> done(static_cast<AsyncDaemonApi::Done*>(user_data));
  (*done)(ApiResult{status, std::string(text, len)});
}

// Hands `done` to a start function; it comes back through Deliver().
template <typename StartFn>
AsyncDaemonApi::RequestId Start(AsyncDaemonApi::Done done, StartFn&& start) {
  auto owned = std::make_unique<AsyncDaemonApi::Done>(std::move(done));
  const mcpgw_request id = start(owned.get());
  if (id != 0) owned.release();
  return id;
}

}  // namespace

LibAsyncDaemonApi::LibAsyncDaemonApi(const std::string& socket_path)
    : client_(mcpgw_open(socket_path.empty() ? nullptr : socket_path.c_str())) {}

LibAsyncDaemonApi::~LibAsyncDaemonApi() {
  if (client_ != nullptr) mcpgw_close(client_);
}

AsyncDaemonApi::RequestId LibAsyncDaemonApi::StartGetDynamicTools(const ToolsRequest& request,
                                                                  Done done) {
  if (client_ == nullptr) return 0;
  const char* ns = request.ns ? request.ns->c_str() : nullptr;
  if (const base::Status checked = CheckToolsRequest(request); !checked.ok()) {
    // Refused the way libmcpgw refuses, through the callback from Process(): its refusal of a
    // NULL query carries ours, so nothing is sent.
    Done refuse = [done = std::move(done), why = checked.message()](const ApiResult& result) {
      done(result.status == MCPGW_INVALID_REQUEST ? ApiResult{result.status, why} : result);
    };
    return Start(std::move(refuse), [&](Done* user) {
      return mcpgw_start_find_tools(client_, ns, nullptr, 0, Deliver, user);
    });
  }
  return Start(std::move(done), [&](Done* user) {
    if (request.query) {
      return mcpgw_start_find_tools(client_, ns, request.query->c_str(),
                                    static_cast<int>(request.limit.value_or(0)), Deliver, user);
    }
    return mcpgw_start_get_dynamic_tools(
        client_, ns, request.tool ? request.tool->c_str() : nullptr, Deliver, user);
  });
}

AsyncDaemonApi::RequestId LibAsyncDaemonApi::StartCallDynamicTool(const std::string& ns,
                                                                  const std::string& tool,
                                                                  std::string_view arguments_json,
                                                                  long long max_text_bytes,
                                                                  Done done) {
  if (client_ == nullptr) return 0;
  const std::string arguments(arguments_json);
  return Start(std::move(done), [&](Done* user) {
    return mcpgw_start_call_dynamic_tool_bounded(client_, ns.c_str(), tool.c_str(),
                                                 arguments.empty() ? nullptr : arguments.c_str(),
                                                 max_text_bytes, Deliver, user);
  });
}

void LibAsyncDaemonApi::Cancel(RequestId id) {
  if (client_ != nullptr) mcpgw_cancel_request(client_, id);
}

base::Status LibAsyncDaemonApi::Connect() {
  if (client_ == nullptr) return base::Status(base::ErrorKind::kInternal, "out of memory");
  char* message = nullptr;
  const mcpgw_status status = mcpgw_connect(client_, &message);
  std::string text = message != nullptr ? message : "";
  mcpgw_free(message);
  if (status == MCPGW_OK) return base::Status();
  return base::Status(base::ErrorKind::kUnavailable, std::move(text));
}

int LibAsyncDaemonApi::fd() { return client_ != nullptr ? mcpgw_fd(client_, nullptr) : -1; }

long LibAsyncDaemonApi::timeout_ms() { return client_ != nullptr ? mcpgw_timeout(client_) : -1; }

void LibAsyncDaemonApi::Process() {
  if (client_ != nullptr) mcpgw_process(client_);
}

}  // namespace mcpgw::cli
