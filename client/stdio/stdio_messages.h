// The JSON texts `mcpgw stdio` sends: JSON-RPC envelopes, the initialize result, the two tool
// definitions and tools/call results, and for hosts of revision 2026-07-28 the server/discover
// result and the check of a request's per-request _meta. Pure functions used by StdioBridge;
// every string goes through a JSON writer, so no message ever contains a raw newline.
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace mcpgw::cli {

// The revisions the bridge speaks are the daemon's: proto/mcp_versions.h.

// JSON-RPC 2.0 error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kServerBusy = -32000;

// The protocol version to answer for the client's initialize: the legacy revision it asks
// for, else proto::kMcpLegacyVersion (also when it sent none).
std::string_view NegotiateProtocolVersion(std::string_view requested);

// `id_json` is the request id as JSON text ("7", "\"abc\"", or "null").
std::string ResultMessage(std::string_view id_json, std::string_view result_json);
std::string ErrorMessage(std::string_view id_json, int code, std::string_view message);

std::string InitializeResult(std::string_view protocol_version);
// `modern`: for a request of revision 2026-07-28, whose results carry resultType (and, for
// the listing, the caching hints ttlMs and cacheScope).
std::string ToolsListResult(bool modern = false);
// {"content":[{"type":"text","text":...}],"isError":...}; invalid UTF-8 becomes U+FFFD.
std::string ToolCallResult(std::string_view text, bool is_error, bool modern = false);
// ResultMessage(id_json, ToolCallResult(text, is_error, modern)), built in one pass.
std::string ToolCallMessage(std::string_view id_json, std::string_view text, bool is_error,
                            bool modern = false);
// {} (ping), or {"resultType":"complete"} for a modern request.
std::string EmptyResult(bool modern);

// --- revision 2026-07-28 (proto::kMcpModernVersion): stateless hosts ---

// A host request is modern when its params carry _meta["io.modelcontextprotocol/
// protocolVersion"]; it is then served without any initialize. `refusal` is the complete
// error message to answer instead when that _meta is unusable: a version other than
// proto::kMcpModernVersion (-32022 with the supported versions), or a version or
// clientCapabilities of the wrong type or missing (-32602).
struct HostRequest {
  bool modern = false;
  std::string refusal;
};
HostRequest ClassifyHostRequest(std::string_view id_json, const rapidjson::Value* params);

// The server/discover result: every version the bridge speaks, its capabilities, identity
// and instructions, and caching hints (its two tools never change).
std::string DiscoverResult();
// subscriptions/listen: the bridge has no change to announce (its tools never change), so
// it acknowledges with an empty filter and ends the subscription at once, gracefully.
std::string ListenAcknowledged(std::string_view id_json);
std::string ListenClosedResult(std::string_view id_json);

}  // namespace mcpgw::cli
