#include "config/headers.h"

#include <array>

#include "base/text.h"

namespace mcpgw::config {
namespace {

constexpr std::array<std::string_view, 6> kClientOwned = {
    "Accept", "Mcp-Session-Id", "Last-Event-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"};
// Revision 2026-07-28 mirrors tool arguments into Mcp-Param-{Name}.
constexpr std::string_view kParamPrefix = "Mcp-Param-";

}  // namespace

bool IsClientOwnedHeader(std::string_view name) {
  for (std::string_view owned : kClientOwned) {
    if (base::EqualsIgnoreCase(name, owned)) return true;
  }
  return name.size() >= kParamPrefix.size() &&
         base::EqualsIgnoreCase(name.substr(0, kParamPrefix.size()), kParamPrefix);
}

bool HasForbiddenHeaderByte(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

}  // namespace mcpgw::config
