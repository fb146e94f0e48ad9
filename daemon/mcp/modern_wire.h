// The stateless wire of protocol revision 2026-07-28 (the revision calls it
// "modern"; 2025-11-25 and earlier, with their initialize handshake, are
// "legacy"): request parameters carrying `_meta`, the headers every POST
// carries, server/discover and the revision's own errors, the verdict of an
// era probe, result types and listing freshness. Pure functions over
// untrusted input; the session calls them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "proto/mcp_versions.h"

namespace mcpgw::mcp {

// The modern revision this client speaks.
inline constexpr std::string_view kModernProtocolVersion = proto::kMcpModernVersion;
bool IsModernProtocolVersion(std::string_view version);

// Error codes the revision defines (basic/index "Error Codes").
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingRequiredClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = proto::kMcpUnsupportedVersionCode;
// One of the three codes above (the sub-range the revision reserves for itself).
bool IsModernErrorCode(int64_t code);

// --- requests ---------------------------------------------------------------

// A request's `params` object: `members` (the text between the braces of the
// method's own parameters, "" for none, already valid JSON) followed by
// `_meta` with the protocol version, the client's identity (mcpgw and
// `client_version`) and its capabilities, which are empty: the gateway
// answers no input requests (BEHAVIOR.md §6).
std::string ModernParams(std::string_view members, std::string_view version,
                         std::string_view client_version);
// The params of server/discover, tools/list (with a cursor when set),
// tools/call (`arguments_json` spliced in as is) and subscriptions/listen
// (opting in to tools/list_changed only).
std::string DiscoverParams(std::string_view version, std::string_view client_version);
std::string ModernToolsListParams(const std::optional<std::string>& cursor,
                                  std::string_view version, std::string_view client_version);
std::string ModernToolsCallParams(std::string_view tool, std::string_view arguments_json,
                                  std::string_view version, std::string_view client_version);
std::string ListenParams(std::string_view version, std::string_view client_version);

// The protocol headers of a modern POST: MCP-Protocol-Version, Mcp-Method and,
// when `name` is set (tools/call), Mcp-Name encoded like a parameter value.
std::vector<std::pair<std::string, std::string>> ModernHeaders(
    std::string_view version, std::string_view method,
    std::optional<std::string_view> name = std::nullopt);

// --- what servers answer ----------------------------------------------------

// A server/discover result. Only the parts the gateway uses are kept.
struct DiscoverResult {
  std::vector<std::string> supported_versions;  // at most kMaxVersions, each bounded
  bool tools_list_changed = false;              // capabilities.tools.listChanged === true
};
inline constexpr size_t kMaxVersions = 32;

// `result` as a discover result, or nullopt when it is none: not an object,
// no `supportedVersions` array of strings, or a resultType other than
// "complete" (a legacy server's empty result is no discover result).
std::optional<DiscoverResult> ParseDiscoverResult(const rapidjson::Value& result);

// One of the revision's own errors in a JSON-RPC error response: header
// mismatch, missing client capability, or unsupported protocol version with
// its `data.supported` list of strings (without the list it is not
// recognised). nullopt for anything else.
struct ModernError {
  int64_t code = 0;
  std::string message;                 // cleaned server text
  std::vector<std::string> supported;  // kUnsupportedProtocolVersion only
};
std::optional<ModernError> RecognizeModernError(const rapidjson::Value& message);

// The modern version to use from a server's supported list: the newest this
// client speaks, or nullopt.
std::optional<std::string> PickModernVersion(const std::vector<std::string>& supported);

// "2026-07-28, 2025-11-25" from a server's list, cleaned and bounded.
std::string DescribeVersions(const std::vector<std::string>& versions);

// --- the era probe ------------------------------------------------------------

// What one server/discover exchange says about the server (streamable-http
// "Backward Compatibility"): modern at `version`; modern but refusing the
// version sent, so ask again at `version` (once); legacy, so initialize at
// 2025-11-25; or modern and unusable, for `reason`.
struct EraVerdict {
  enum class Kind { kModern, kRetry, kLegacy, kFail };
  Kind kind = Kind::kLegacy;
  std::string version;  // kModern, kRetry
  bool tools_list_changed = false;
  std::string reason;  // kFail
};
// `message` is the JSON-RPC message the answer held, or null when it held
// none (empty, not JSON, not one message); `refused`: it came as the
// transport's refusal (an HTTP error status), where a result is no discover
// result.
// `retried` says whether this was already the second ask. A valid discover
// result listing a modern version this client speaks means modern; a
// recognised modern error means modern (retry or fail); anything else — a
// 2025 server's empty result or error, an error status with any other body —
// means legacy. Transport failures and authorization are not judged here.
EraVerdict JudgeDiscover(const rapidjson::Value* message, bool refused, bool retried);

// --- results ------------------------------------------------------------------

// A result's resultType: absent or "complete" is complete (servers of earlier
// revisions send none); "input_required" asks the client for input; "task"
// is the tasks extension's handle, which the gateway never asks for (it
// declares no extension); any other value is invalid.
enum class ResultType { kComplete, kInputRequired, kTask, kInvalid };
ResultType ResultTypeOf(const rapidjson::Value& result);

// The model's message for a call the server answered with input_required:
// the server needs interactive input the gateway cannot give, naming what it
// asked for (its input requests' methods, cleaned and bounded).
std::string InputRequiredText(const rapidjson::Value& result);

// How long a cacheable result (tools/list, server/discover) stays fresh: its
// `ttlMs` when a non-negative integer, else zero (stale at once), capped at
// a day.
std::chrono::milliseconds TtlOf(const rapidjson::Value& result);

}  // namespace mcpgw::mcp
