// The local protocol's methods, listed once (proto/PROTOCOL.md "Methods"):
// each name with what both ends know of it. mcpgwd's IpcServer accepts the
// requests listed here and names them when refusing another; libmcpgw hands
// its caller the part of a result the table says. A method added here is
// documented in PROTOCOL.md in the same change (a test compares the two).
#pragma once

#include <string>
#include <string_view>

#include "proto/proto.h"

namespace mcpgw::proto {

enum class MethodKind {
  kRequest,       // has an id; answered exactly once, unless the client cancels it
  kNotification,  // no id; never answered
};

// What a request's result carries.
enum class ResultShape {
  kText,    // {"text": "..."}: the answer is the string (libmcpgw returns it as is)
  kObject,  // an object that is the answer itself (libmcpgw returns it as compact JSON)
  kNone,    // notifications
};

struct Method {
  std::string_view name;
  MethodKind kind;
  ResultShape result;
};

inline constexpr Method kMethods[] = {
    {kHello, MethodKind::kRequest, ResultShape::kObject},
    {kGetDynamicTools, MethodKind::kRequest, ResultShape::kText},
    {kCallDynamicTool, MethodKind::kRequest, ResultShape::kText},
    {kStatus, MethodKind::kRequest, ResultShape::kObject},
    {kLogin, MethodKind::kRequest, ResultShape::kObject},
    {kLoginWait, MethodKind::kRequest, ResultShape::kObject},
    {kLogout, MethodKind::kRequest, ResultShape::kObject},
    {kPins, MethodKind::kRequest, ResultShape::kObject},
    {kDiff, MethodKind::kRequest, ResultShape::kObject},
    {kApprove, MethodKind::kRequest, ResultShape::kObject},
    {kMetrics, MethodKind::kRequest, ResultShape::kText},
    {kLearned, MethodKind::kRequest, ResultShape::kObject},
    {kForget, MethodKind::kRequest, ResultShape::kObject},
    {kCancel, MethodKind::kNotification, ResultShape::kNone},
};

// The entry named `name`, or nullptr for a method the protocol does not have.
constexpr const Method* FindMethod(std::string_view name) {
  for (const Method& method : kMethods) {
    if (method.name == name) return &method;
  }
  return nullptr;
}

// "hello, get_dynamic_tools, ...": every request's name in table order, as the
// daemon lists them when it refuses an unknown method.
std::string RequestNames();

}  // namespace mcpgw::proto
