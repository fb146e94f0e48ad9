// StdioWire: the MCP stdio transport under a conversation (wire.h) — a local
// server's process, newline-delimited JSON-RPC on its stdin and stdout
// (BEHAVIOR.md §17). Sans-I/O like the HTTP wire: it asks its driver for a
// process, for bytes written to its stdin and for its stop (the actions of
// http_actions.h), and is told what the process wrote and that it ended.
//
// One process is one session: a new attempt that finds the process used
// starts another, and giving a session up stops its process. Every stdout
// line is bounded before it is parsed (the response byte and depth limits);
// a line past the bound fails the request it answers, when its id can be
// read from its start, and the reader goes on at the next newline; a line
// that is not JSON (a server logging to stdout) is skipped and counted. A
// process that ends fails each request in flight: a call as one that may have
// run, never sent again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/mcp/http_actions.h"
#include "daemon/mcp/wire.h"

namespace mcpgw::mcp {

class StdioWire final : public Wire {
 public:
  // `out` is the session's action list.
  StdioWire(SessionLimits limits, std::vector<Action>* out);
  StdioWire(const StdioWire&) = delete;
  StdioWire& operator=(const StdioWire&) = delete;

  void SetListener(WireListener* listener) { listener_ = listener; }

  // --- what the driver's process did ---
  // Bytes the current process wrote on stdout (any split).
  void OnOutput(std::string_view bytes, TimePoint now);
  // The current process ended; `reason` says how ("exited with code 1: …").
  void OnExited(const std::string& reason, TimePoint now);

  // Lines of stdout that were not JSON-RPC messages, since the wire began.
  uint64_t skipped_lines() const { return skipped_lines_; }
  // Whether a process is asked for and not given up.
  bool running() const { return running_; }

  // --- Wire ---
  void Begin(TimePoint now) override;
  void Abandon(std::string_view expired, TimePoint now) override;
  void Opened(std::string_view version) override;
  void Confirm(std::string body, TimePoint deadline, std::string timeout_reason,
               TimePoint now) override;
  void Close(TimePoint now) override;
  void Send(OutRequest request, TimePoint now) override;
  void Drop(RpcId id) override;
  bool Cancel(RpcId id, std::string notice, bool keep_reading, TimePoint now) override;
  void Reply(std::string body, From to, TimePoint now) override;
  void Tell(std::string body, TimePoint now) override;
  void Listen(Listening how, TimePoint now) override;
  void StopListening() override {}
  void AskCredentials() override {}
  void OnTimer(TimePoint) override {}
  std::optional<TimePoint> NextWakeup() const override { return std::nullopt; }
  void AfterEvent(TimePoint now) override;

 private:
  // One message's text to stdin, on one line.
  void Write(std::string body);
  void Spawn();
  void Stop();
  void OnLine(std::string_view line, TimePoint now);
  void OnMessage(const rapidjson::Value& value, TimePoint now);
  // A line past the bound ended: the request it answers fails.
  void OnOverlongLine(TimePoint now);
  void KeepOverlong(std::string_view piece);
  void Skipped(std::string_view line, std::string_view why, TimePoint now);
  void Log(LogLevel level, std::string text);

  SessionLimits limits_;
  std::vector<Action>* out_;
  WireListener* listener_ = nullptr;
  std::map<RpcId, Role> outs_;  // requests sent to the current process, unanswered
  std::string line_;            // the line being read
  std::string overlong_start_;  // the first bytes of a line past the bound, while it is skipped
  std::string overlong_end_;    // and its last ones
  bool overlong_ = false;
  bool running_ = false;  // a process is asked for
  bool used_ = false;     // something was sent to it
  bool confirm_due_ = false;
  bool subscribed_ = false;
  uint64_t session_ = 0;  // counts processes: From::session
  uint64_t skipped_lines_ = 0;
  uint64_t skipped_unlogged_ = 0;  // skipped since the last log line about it
  std::optional<TimePoint> skip_logged_at_;
};

}  // namespace mcpgw::mcp
