// `mcpgw stdio`: an MCP server (revision 2025-11-25) on newline-delimited JSON-RPC whose only
// tools are get_dynamic_tools and call_dynamic_tool, bridged to the daemon through a
// DaemonApi. The reader (Run or HandleLine) never blocks on the daemon: each tools/call runs on
// its own thread, so notifications/cancelled can arrive while calls run. Every outgoing
// message goes through one serialised writer.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/cli/daemon_api.h"

namespace mcpgw::cli {

// Longest accepted input line (one JSON-RPC message), as the local socket's frame bound.
inline constexpr size_t kMaxStdioLineBytes = 32u << 20;
// Deepest JSON nesting accepted in a message.
inline constexpr int kMaxStdioDepth = 512;
// Calls running at once; past it a tools/call is refused with kServerBusy.
inline constexpr size_t kMaxConcurrentCalls = 256;
// How long stdin EOF waits for cancelled calls to end.
inline constexpr std::chrono::milliseconds kShutdownGrace{2000};

class StdioBridge {
 public:
  // Receives one complete JSON-RPC message (no trailing newline); calls are serialised.
  using Writer = std::function<void(const std::string& message)>;

  StdioBridge(DaemonApi& api, Writer writer);
  // Cancels what still runs and joins every call thread.
  ~StdioBridge();
  StdioBridge(const StdioBridge&) = delete;
  StdioBridge& operator=(const StdioBridge&) = delete;

  // Handles one input line (a JSON-RPC message without its newline).
  void HandleLine(std::string_view line);
  // Reads lines until EOF, then cancels in-flight calls and waits for them (Shutdown).
  // Returns true when every call ended within the grace period.
  bool Run(std::istream& in);
  // Cancels every in-flight call (none of them is answered) and waits up to `grace`.
  bool Shutdown(std::chrono::milliseconds grace);

  size_t in_flight() const;

 private:
  struct Call {
    CancelToken cancel;
    bool cancelled = false;  // the client gave up on it: nobody is answered
    std::thread thread;
  };
  // One validated tools/call: which of the two tools, and its arguments.
  struct ToolCall {
    bool call = false;  // call_dynamic_tool; else get_dynamic_tools
    std::optional<std::string> ns;
    std::optional<std::string> tool;
    std::string arguments_json;  // call_dynamic_tool only
  };

  void Send(const std::string& message);
  void StartCall(const std::string& id_json, ToolCall request);
  void CancelCall(const std::string& id_json);
  void RunCall(const std::string& id_json, Call* call, const ToolCall& request);
  void JoinFinished();

  DaemonApi& api_;
  Writer writer_;
  std::mutex write_mu_;

  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  std::map<std::string, std::unique_ptr<Call>> calls_;  // by request id as JSON text
  std::vector<std::thread> finished_;                   // ended threads, joined by the reader
};

}  // namespace mcpgw::cli
