// The daemon as the one-thread stdio bridge sees it: requests that finish through a callback,
// driven by the owner's poll loop (fd, timeout_ms, Process). LibAsyncDaemonApi implements it
// over libmcpgw's pollable interface (mcpgw.h); tests substitute a fake whose requests finish
// when the test says. Callbacks run only inside Process(), never inside Start*() or Cancel().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "client/api/daemon_api.h"

namespace mcpgw::cli {

class AsyncDaemonApi {
 public:
  using RequestId = uint64_t;
  using Done = std::function<void(const ApiResult& result)>;

  virtual ~AsyncDaemonApi() = default;
  // get_dynamic_tools. A request CheckToolsRequest() refuses is the caller's to refuse; given
  // one anyway, it finishes as MCPGW_INVALID_REQUEST saying why.
  virtual RequestId StartGetDynamicTools(const ToolsRequest& request, Done done) = 0;
  // call_dynamic_tool; `arguments_json` is a JSON object's text, sent as it is;
  // `max_text_bytes` as mcpgw_start_call_dynamic_tool_bounded() takes it.
  virtual RequestId StartCallDynamicTool(const std::string& ns, const std::string& tool,
                                         std::string_view arguments_json, long long max_text_bytes,
                                         Done done) = 0;
  // Drops a request: the daemon is told, and its callback then runs with MCPGW_CANCELLED.
  virtual void Cancel(RequestId id) = 0;
  // Connects now; an error says which socket and how to start the daemon when it cannot.
  virtual base::Status Connect() = 0;

  // For the poll loop: the descriptor to watch for reading (-1: none), the milliseconds until
  // Process() must run anyway (-1: no deadline), and the step that runs finished callbacks.
  virtual int fd() = 0;
  virtual long timeout_ms() = 0;
  virtual void Process() = 0;
};

// Owns one mcpgw_client handle, used through the pollable interface only.
class LibAsyncDaemonApi : public AsyncDaemonApi {
 public:
  // socket_path empty: libmcpgw's default. A request has no deadline on this side: it ends
  // when the daemon answers it (the daemon owns the call deadline, proto/proto.h), when it is
  // cancelled, or when the connection to the daemon is lost.
  explicit LibAsyncDaemonApi(const std::string& socket_path);
  ~LibAsyncDaemonApi() override;
  LibAsyncDaemonApi(const LibAsyncDaemonApi&) = delete;
  LibAsyncDaemonApi& operator=(const LibAsyncDaemonApi&) = delete;

  RequestId StartGetDynamicTools(const ToolsRequest& request, Done done) override;
  RequestId StartCallDynamicTool(const std::string& ns, const std::string& tool,
                                 std::string_view arguments_json, long long max_text_bytes,
                                 Done done) override;
  void Cancel(RequestId id) override;
  base::Status Connect() override;
  int fd() override;
  long timeout_ms() override;
  void Process() override;

 private:
  struct mcpgw_client* client_;
};

}  // namespace mcpgw::cli
