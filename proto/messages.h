// Messages of the local protocol: decoding one frame into a JSON-RPC request,
// notification or response, and encoding the frames both ends send. Pure
// functions shared by mcpgwd's IpcServer and libmcpgw; proto/PROTOCOL.md is
// the description of the wire.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "base/json_arena.h"
#include "base/json_text.h"
#include "proto/proto.h"

namespace mcpgw::proto {

// JSON-RPC protocol-level error codes; their data.kind is "invalid_request".
inline constexpr int kCodeParseError = -32700;
inline constexpr int kCodeInvalidRequest = -32600;
inline constexpr int kCodeMethodNotFound = -32601;
inline constexpr int kCodeInvalidParams = -32602;
// Deepest nesting of arrays and objects a frame may carry.
inline constexpr int kMaxJsonDepth = 128;

// The JSON-RPC error code that carries an error kind (-32001 ... -32006).
int ErrorCode(ErrorKind kind);

enum class MessageType { kRequest, kNotification, kResponse };

// What a decoded frame is parsed into. The call path's frames are a few
// hundred bytes of values: they fit the inline bytes, and the whole arena is
// small enough that the allocator serves it from its per-thread caches
// rather than its slower path for larger blocks. A larger frame continues in
// heap chunks.
using FrameArena = base::JsonArena<768>;

struct Message {
  MessageType type = MessageType::kNotification;
  // The id as compact JSON text (`7`, `"a"`): what a reply echoes and what
  // in-flight tables are keyed by. Empty for notifications.
  std::string id;
  std::string method;  // requests and notifications
  // Requests and notifications: the params object (an empty object when
  // absent). Responses: the result (null for an error). Points into doc.
  const rapidjson::Value* params = nullptr;
  const rapidjson::Value* result = nullptr;
  // Responses carrying an error object.
  bool is_error = false;
  int error_code = 0;
  std::string error_message;
  std::optional<ErrorKind> error_kind;  // from data.kind; nullopt if absent/unknown
  std::unique_ptr<FrameArena> doc;      // the parsed frame
};

// Why a frame is not a valid message. `id` is the request's id when it could
// be read (so the error reply can name it), else "null".
struct DecodeError {
  int code = 0;
  std::string message;
  std::string id = "null";
};

struct Decoded {
  bool ok = false;
  Message message;    // when ok
  DecodeError error;  // when !ok
};

// Decodes one frame (without its newline).
Decoded DecodeMessage(std::string_view frame);

// Strings in frames are written by base's encoder: invalid UTF-8 becomes
// U+FFFD, so whatever a server sent, the frame stays valid JSON.
using base::AppendJsonString;
// The compact JSON text of a value (used for ids).
std::string CompactJson(const rapidjson::Value& value);

// Encoders. Each returns one complete frame, newline included. `id` is
// compact JSON text (see Message::id); `*_json` arguments are compact JSON
// objects (a raw newline in one is replaced by a space, which keeps valid
// JSON valid since a newline can only be whitespace there).
std::string EncodeRequest(std::string_view id, std::string_view method,
                          std::string_view params_json);
std::string EncodeHello(std::string_view id, std::string_view client_name);
std::string EncodeCancel(std::string_view id);
std::string EncodeResult(std::string_view id, std::string_view result_json);
std::string EncodeTextResult(std::string_view id, std::string_view text);
// The same, with the text already a JSON string literal made by AppendJsonString.
std::string EncodeTextLiteralResult(std::string_view id, std::string_view literal);
std::string EncodeHelloResult(std::string_view id, std::string_view daemon);
// An error of a BEHAVIOR §4 kind, or a protocol-level error (`code` one of kCode*).
std::string EncodeError(std::string_view id, ErrorKind kind, std::string_view message);
std::string EncodeProtocolError(std::string_view id, int code, std::string_view message);

}  // namespace mcpgw::proto
