#include "config/headers.h"

#include <array>

namespace mcpgw::config {
namespace {

constexpr std::array<std::string_view, 6> kClientOwned = {
    "Accept", "Mcp-Session-Id", "Last-Event-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"};
// Revision 2026-07-28 mirrors tool arguments into Mcp-Param-{Name}.
constexpr std::string_view kParamPrefix = "Mcp-Param-";

bool IsTchar(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

unsigned char Lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

}  // namespace

bool IsHttpToken(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name) {
    if (!IsTchar(c)) return false;
  }
  return true;
}

bool IsClientOwnedHeader(std::string_view name) {
  for (std::string_view owned : kClientOwned) {
    if (EqualsIgnoreCase(name, owned)) return true;
  }
  return name.size() >= kParamPrefix.size() &&
         EqualsIgnoreCase(name.substr(0, kParamPrefix.size()), kParamPrefix);
}

bool HasForbiddenHeaderByte(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

}  // namespace mcpgw::config
