// `mcpgw stdio`'s protocol side: an MCP server on newline-delimited JSON-RPC whose only tools
// are get_dynamic_tools and call_dynamic_tool, bridged to the daemon through an
// AsyncDaemonApi. It serves hosts of revision 2025-11-25 (and earlier) after their initialize,
// and hosts of revision 2026-07-28 statelessly: a request whose params carry that revision's
// _meta is answered on its own (server/discover included), with resultType on its results. Entirely
// passive and single-threaded: its owner (StdioLoop) hands it each input line and drives the api;
// each answer goes to the Writer when it is ready, so calls are answered in the order they finish.
// Methods are dispatched through a table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "client/api/async_api.h"
#include "client/stdio/stdio_request.h"

namespace mcpgw::cli {

// Longest accepted input line (one JSON-RPC message), as the local socket's frame bound.
inline constexpr size_t kMaxStdioLineBytes = 32u << 20;
// Deepest JSON nesting accepted in a message.
inline constexpr int kMaxStdioDepth = 512;
// Calls running at once; past it a tools/call is refused with kServerBusy.
inline constexpr size_t kMaxConcurrentCalls = 256;
// The bridge sets no deadline of its own on a call: the daemon owns it (proto::
// kDefaultCallTimeout, limits.call_timeout_s) and answers every call by then, however long
// it is configured to be. A daemon that dies closes its socket, which ends the calls it had
// at once, as `unavailable`.

// What to tell the host's log (stderr) when the daemon cannot be reached; `error` comes
// from libmcpgw and names the socket it tried.
std::string UnreachableNotice(std::string_view error);

class StdioBridge {
 public:
  // Receives one complete JSON-RPC message (no trailing newline).
  using Writer = std::function<void(std::string message)>;
  // Receives one line for stderr (no trailing newline).
  using Notice = std::function<void(const std::string& line)>;

  // `max_text_bytes` bounds each call's result text (BEHAVIOR.md §11): a number
  // of bytes (0: none), or MCPGW_MAX_TEXT_STDIO, the daemon's setting for models.
  StdioBridge(AsyncDaemonApi& api, Writer writer, Notice notice = nullptr,
              long long max_text_bytes = MCPGW_MAX_TEXT_STDIO);
  // Cancels the calls still running; they are not answered.
  ~StdioBridge();
  StdioBridge(const StdioBridge&) = delete;
  StdioBridge& operator=(const StdioBridge&) = delete;

  // Handles one input line (a JSON-RPC message without its newline).
  void HandleLine(std::string_view line);
  // Answers a line longer than kMaxStdioLineBytes, which its reader did not keep.
  void RejectOversized();
  // Calls started and not answered yet.
  size_t in_flight() const { return calls_.size(); }

 private:
  // One host message that passed the JSON-RPC checks.
  struct Message {
    const HostLine& line;
    std::string id_json;             // "null" for a notification
    const rapidjson::Value* params;  // nullptr when absent
    bool modern = false;             // carries the 2026-07-28 _meta
  };
  using Handler = void (StdioBridge::*)(const Message& m);
  struct Method {
    std::string_view name;
    Handler handler;
  };
  static const Method kRequests[];
  static const Method kNotifications[];

  // One validated tools/call: which of the two tools, and its arguments.
  struct ToolCall {
    bool call = false;  // call_dynamic_tool; else get_dynamic_tools
    ToolsRequest args;  // namespace and toolName; query and limit of get_dynamic_tools
    std::string_view arguments_json;  // call_dynamic_tool only: the host's bytes
  };
  struct Call {
    uint64_t seq = 0;  // tells a call from a later one that reused its id
    AsyncDaemonApi::RequestId request = 0;
    bool modern = false;  // its result carries resultType
  };

  void OnInitialize(const Message& m);
  void OnPing(const Message& m);
  void OnToolsList(const Message& m);
  void OnToolsCall(const Message& m);
  void OnDiscover(const Message& m);
  void OnListen(const Message& m);
  void OnCancelled(const Message& m);

  void StartCall(const std::string& id_json, const ToolCall& request, bool modern);
  void Finish(const std::string& id_json, uint64_t seq, const ApiResult& result);
  void Send(std::string message) { writer_(std::move(message)); }

  AsyncDaemonApi& api_;
  Writer writer_;
  Notice notice_;
  long long max_text_bytes_;
  std::unordered_map<std::string, Call> calls_;  // by request id as JSON text
  uint64_t next_seq_ = 1;
  bool unreachable_noted_ = false;  // since the last call that reached the daemon
  // Callbacks can outlive the bridge (the api delivers what was cancelled when it closes):
  // they hold this weakly and do nothing once it is gone.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace mcpgw::cli
