// The local wire protocol shared by mcpgwd and its clients (libmcpgw, mcpgw):
// constants, error kinds and the frame codec. The protocol itself is written
// down in proto/PROTOCOL.md; change both together. The method table is
// methods.h; the MCP revisions both MCP ends speak are mcp_versions.h.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace mcpgw::proto {

inline constexpr int kProtocolVersion = 1;
// Largest frame either side accepts (one JSON text plus its newline).
inline constexpr size_t kMaxFrameBytes = 32u << 20;

// The daemon's deadline for one call_dynamic_tool, end to end, unless the
// settings change it (limits.call_timeout_s, docs/SETTINGS.md). The daemon owns
// it: it answers every call by then (a `transport` error when the server has
// not), so clients set no deadline of their own on a call; they notice a dead
// daemon by its connection closing (docs/BEHAVIOR.md §5).
inline constexpr std::chrono::seconds kDefaultCallTimeout{300};

// get_dynamic_tools with a query (docs/BEHAVIOR.md §4) answers at most `limit`
// tools: this many when the client names none, and a limit outside 1 to
// kMaxToolsLimit is refused. The daemon checks the range; clients name it
// where they describe the parameter (mcpgw stdio's schema) and where a person
// types it (`mcpgw tools --limit`, checked as it is parsed).
inline constexpr int kDefaultToolsLimit = 10;
inline constexpr int kMaxToolsLimit = 50;

// call_dynamic_tool's `max_text_bytes` (docs/BEHAVIOR.md §11): a result text
// longer than this many bytes comes back cut, the whole text kept in a file.
// 0 is no bound; absent is the daemon's results.max_text_bytes (none unless
// set), and the string kMaxTextStdio its results.stdio_max_text_bytes
// (kDefaultStdioMaxTextBytes unless set), which `mcpgw stdio` sends: it serves
// models. Larger numbers than kMaxTextBytesBound are refused.
inline constexpr std::string_view kMaxTextStdio = "stdio";
inline constexpr uint64_t kDefaultStdioMaxTextBytes = 100000;
inline constexpr uint64_t kMaxTextBytesBound = uint64_t{1} << 53;

// Method names; methods.h says what each one is.
inline constexpr std::string_view kHello = "hello";
inline constexpr std::string_view kGetDynamicTools = "get_dynamic_tools";
inline constexpr std::string_view kCallDynamicTool = "call_dynamic_tool";
inline constexpr std::string_view kStatus = "status";
// OAuth (BEHAVIOR.md §9): start a server's authorization for `mcpgw login`, wait for
// it to end, forget its tokens.
inline constexpr std::string_view kLogin = "login";
inline constexpr std::string_view kLoginWait = "login_wait";
inline constexpr std::string_view kLogout = "logout";
// Pinned tool definitions (BEHAVIOR.md §13): each server's pins, the
// withheld tools' definitions, approving them.
inline constexpr std::string_view kPins = "pins";
inline constexpr std::string_view kDiff = "diff";
inline constexpr std::string_view kApprove = "approve";
inline constexpr std::string_view kMetrics = "metrics";
// Learned search words (BEHAVIOR.md §10): what each tool learned, and
// forgetting it. The daemon's own user only.
inline constexpr std::string_view kLearned = "learned";
inline constexpr std::string_view kForget = "forget";
// Notification from client to daemon: {"method":"cancel","params":{"id":<request id>}}.
inline constexpr std::string_view kCancel = "cancel";

// BEHAVIOR.md §4 error kinds: the first six kinds of a Status (base/status.h).
// kUnavailable never crosses the wire: clients use it when the daemon cannot
// be reached. A kind that stays inside a program (kIo, ...) is never sent as
// itself: on the wire it reads as kTransport.
using ErrorKind = base::ErrorKind;

std::string_view ErrorKindName(ErrorKind kind);  // "invalid_request", ...
// One of the six wire names, else nullopt.
std::optional<ErrorKind> ParseErrorKind(std::string_view name);
// CLI exit code of BEHAVIOR §7 for an error kind (1 backend ... 7 unavailable).
int ExitCode(ErrorKind kind);

}  // namespace mcpgw::proto
