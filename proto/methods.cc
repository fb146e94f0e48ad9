// The method table's text form (see methods.h).
#include "proto/methods.h"

namespace mcpgw::proto {

std::string RequestNames() {
  std::string out;
  for (const Method& method : kMethods) {
    if (method.kind != MethodKind::kRequest) continue;
    if (!out.empty()) out += ", ";
    out += method.name;
  }
  return out;
}

}  // namespace mcpgw::proto
