// JSON-RPC 2.0 messages of the MCP client: builders for what the session sends
// (initialize, notifications, tools/list, tools/call, replies to server
// requests) and a classifier for what a server sends. Pure functions; the
// session calls them. Incoming values are untrusted and may have any shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "proto/mcp_versions.h"

namespace mcpgw::mcp {

using RpcId = int64_t;

// The revision the client asks for, and the ones it accepts in answer (BEHAVIOR §6);
// written once in proto/mcp_versions.h, which the stdio bridge shares.
inline constexpr std::string_view kProtocolVersion = proto::kMcpLegacyVersion;
bool IsSupportedProtocolVersion(std::string_view version);

// JSON-RPC error codes the client sends.
inline constexpr int kMethodNotFound = -32601;

// --- builders: each returns one complete JSON-RPC message as compact text ---

// initialize with protocolVersion kProtocolVersion, capabilities {} and
// clientInfo {name "mcpgw", version `client_version`}.
std::string BuildInitialize(RpcId id, std::string_view client_version);
std::string BuildInitialized();
// tools/list; `cursor` is sent as params.cursor when set.
std::string BuildToolsList(RpcId id, const std::optional<std::string>& cursor);
// The `params` of a tools/call: {"name":<tool>,"arguments":<arguments_json>}.
// `arguments_json` is already validated compact JSON object text; it is
// spliced in as is.
std::string BuildToolsCallParams(std::string_view tool, std::string_view arguments_json);
// A request whose params are already serialised.
std::string BuildRequest(RpcId id, std::string_view method, std::string_view params_json);
std::string BuildCancelled(RpcId request_id, std::string_view reason);
// Replies to a server request; `id` is echoed as received (string or number).
std::string BuildEmptyResult(const rapidjson::Value& id);
std::string BuildErrorResponse(const rapidjson::Value& id, int code, std::string_view message);

// --- incoming ---

enum class MessageKind { kInvalid, kResponse, kRequest, kNotification };

// A view of one incoming message; pointers refer into the classified value.
struct Message {
  MessageKind kind = MessageKind::kInvalid;
  const rapidjson::Value* id = nullptr;  // requests and responses (string or number)
  std::optional<RpcId> int_id;           // the id when it is an integer
  std::string_view method;               // requests and notifications
  const rapidjson::Value* params = nullptr;
  // Responses: either a result or an error.
  const rapidjson::Value* result = nullptr;
  bool is_error = false;
  int64_t error_code = 0;
  std::string error_message;  // server text, cleaned by base::CleanServerText
};

// Classifies `value`. Anything that is not a single well-formed request,
// notification or response (an array batch, a non-object, a method that is
// not a string, an id of another type, a response with both or neither of
// result and error) is kInvalid. A missing "jsonrpc" member is tolerated.
Message ClassifyMessage(const rapidjson::Value& value);

}  // namespace mcpgw::mcp
