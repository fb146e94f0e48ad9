// The daemon as the CLI and the stdio bridge see it: three calls that return a status and a
// text, each cancellable through a CancelToken. LibDaemonApi implements it over libmcpgw
// (mcpgw.h); tests substitute a fake so commands and the bridge run without a daemon.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "client/include/mcpgw.h"

namespace mcpgw::cli {

// A one-shot cancellation flag shared between the thread running a call and whoever wants
// it stopped. Trigger() runs the subscribed callbacks (under the token's lock, so
// Unsubscribe() returning means the callback is neither running nor will run).
class CancelToken {
 public:
  CancelToken() = default;
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  void Trigger();
  bool triggered() const;
  // Runs fn when triggered (at once if it already is). Returns an id for Unsubscribe.
  int Subscribe(std::function<void()> fn);
  void Unsubscribe(int id);
  // Blocks until triggered or the timeout passes; true when triggered.
  bool WaitFor(std::chrono::milliseconds timeout) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool triggered_ = false;
  int next_id_ = 0;
  std::map<int, std::function<void()>> callbacks_;
};

// Outcome of one daemon call: on MCPGW_OK the text is the answer, otherwise an error message.
struct ApiResult {
  mcpgw_status status = MCPGW_OK;
  std::string text;
};

// The arguments of one get_dynamic_tools (BEHAVIOR.md §4); an empty optional is not sent.
// With `query` the daemon answers the tools that best match it, at most `limit` of them
// (mcpgw_find_tools); without it, `limit` is not sent and the request is what it always was.
struct ToolsRequest {
  std::optional<std::string> ns;
  std::optional<std::string> tool;
  std::optional<std::string> query;
  std::optional<int64_t> limit;
};

// Ok when libmcpgw can carry `request` to the daemon, else why not (invalid_request):
// mcpgw_find_tools has no toolName (the daemon refuses query with toolName anyway) and reads
// a limit of 0 as "the default", so such requests, and limits beyond an int, are refused on
// this side with the daemon's rule. Callers refuse them before starting anything.
base::Status CheckToolsRequest(const ToolsRequest& request);

class DaemonApi {
 public:
  virtual ~DaemonApi() = default;
  virtual ApiResult GetDynamicTools(const ToolsRequest& request, CancelToken* cancel) = 0;
  // call_dynamic_tool; arguments_json is a JSON object's text.
  // `max_text_bytes` as mcpgw_call_dynamic_tool_bounded() takes it.
  virtual ApiResult CallDynamicTool(const std::string& ns, const std::string& tool,
                                    const std::string& arguments_json, long long max_text_bytes,
                                    CancelToken* cancel) = 0;
  // The daemon's status object as JSON text.
  virtual ApiResult Status(CancelToken* cancel) = 0;
  // Upper bound for each following call in milliseconds (0: none).
  virtual void SetTimeoutMs(long timeout_ms) { (void)timeout_ms; }
};

// libmcpgw-backed implementation; owns one mcpgw_client handle.
class LibDaemonApi : public DaemonApi {
 public:
  // socket_path empty: libmcpgw's default ($MCPGW_SOCKET, then $XDG_RUNTIME_DIR/...).
  explicit LibDaemonApi(const std::string& socket_path);
  ~LibDaemonApi() override;
  LibDaemonApi(const LibDaemonApi&) = delete;
  LibDaemonApi& operator=(const LibDaemonApi&) = delete;

  ApiResult GetDynamicTools(const ToolsRequest& request, CancelToken* cancel) override;
  ApiResult CallDynamicTool(const std::string& ns, const std::string& tool,
                            const std::string& arguments_json, long long max_text_bytes,
                            CancelToken* cancel) override;
  ApiResult Status(CancelToken* cancel) override;
  void SetTimeoutMs(long timeout_ms) override;

 private:
  mcpgw_client* client_;
};

// "backend", "invalid_request", ... (the BEHAVIOR.md §4 kind names); "ok" and "cancelled" too.
std::string_view StatusName(mcpgw_status status);
// The CLI exit code for an outcome (BEHAVIOR.md §7); cancelled maps to 130 like an interrupt.
int ExitCodeFor(mcpgw_status status);
// "<kind>: <message>", unless the message already starts with its kind.
std::string ErrorText(const ApiResult& result);

}  // namespace mcpgw::cli
