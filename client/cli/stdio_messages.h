// The JSON texts `mcpgw stdio` sends: JSON-RPC envelopes, the initialize result, the two tool
// definitions and tools/call results. Pure builders used by StdioBridge; every string goes
// through a JSON writer, so no message ever contains a raw newline.
#pragma once

#include <string>
#include <string_view>

namespace mcpgw::cli {

// MCP revision this bridge speaks, and the older ones it also accepts from a client.
inline constexpr std::string_view kLatestProtocolVersion = "2025-11-25";

// JSON-RPC 2.0 error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kServerBusy = -32000;

// The protocol version to answer for the client's request (empty: client sent none).
std::string_view NegotiateProtocolVersion(std::string_view requested);

// `id_json` is the request id as JSON text ("7", "\"abc\"", or "null").
std::string ResultMessage(std::string_view id_json, std::string_view result_json);
std::string ErrorMessage(std::string_view id_json, int code, std::string_view message);

std::string InitializeResult(std::string_view protocol_version);
std::string ToolsListResult();
// {"content":[{"type":"text","text":...}],"isError":...}; invalid UTF-8 becomes U+FFFD.
std::string ToolCallResult(std::string_view text, bool is_error);

}  // namespace mcpgw::cli
