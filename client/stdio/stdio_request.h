// One line a host sent `mcpgw stdio`, parsed once. A single SAX pass over the line builds the
// JSON-RPC message as a DOM (for its structure and small fields) and records the exact bytes
// of the values that must not be written again: the request id (answered as it was sent) and
// call_dynamic_tool's tool arguments, params.arguments.arguments, which reach the daemon byte
// for byte (BEHAVIOR.md §5: numbers keep their digits, keys their order). Pure; used by
// StdioBridge.
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "base/json_arena.h"
#include "base/status.h"

namespace mcpgw::cli {

// Neither copyable nor movable: the message's values live inside it.
struct HostLine {
  base::JsonArena<> arena;  // a call's line parses without a heap chunk
  // The message; numbers in it are doubles, do not echo them.
  rapidjson::Document& doc = arena.doc();
  // Spans of the line (valid while it is), empty when absent. Each is the first occurrence
  // of its key, the one the DOM's FindMember() returns too.
  std::string_view id;              // root "id"
  std::string_view request_id;      // root params "requestId" (notifications/cancelled)
  std::string_view tool_arguments;  // root params.arguments "arguments", when an object
  int depth = 0;                    // deepest nesting of arrays and objects
};

// Parses `line` (no newline; it may contain any bytes) into `*out`. UTF-8 is validated. A
// line that is not one JSON text is an error (invalid_input) saying where ("Invalid value.
// (at byte 3)"), and leaves no span set.
base::Status ParseHostLine(std::string_view line, HostLine* out);

// The JSON text to answer with for an id: a number as the host wrote it, a string in
// compact form. `raw` is the id's span, `value` its DOM node.
std::string IdJson(std::string_view raw, const rapidjson::Value& value);

}  // namespace mcpgw::cli
