// Policy: the gateway's allow/deny rules over namespaces and tools (BEHAVIOR.md §8),
// built once from the settings and consulted by the Catalog for every listing
// and before every call is dispatched. Immutable after construction; pure.
//
// A pattern is "namespace" (the whole namespace) or "namespace/tool", with `*`
// and `?` globs. Deny wins over allow; a non-empty allow list admits only the
// tools it matches; a read_only namespace admits only tools whose server marks
// them readOnlyHint — an untrusted hint, so read_only narrows what a model is
// offered but is no defence against a hostile server.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/settings.h"
#include "daemon/mcp/tool_list.h"

namespace mcpgw {

class Policy {
 public:
  explicit Policy(PolicySettings settings);
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  // False when the namespace is denied entirely (a deny pattern without `/`
  // matches it) or when a non-empty allow list cannot admit any of its tools.
  // A namespace that is not visible is left out of every listing.
  bool NamespaceVisible(std::string_view ns) const;
  // The checks below answer ok when allowed, else a denial (kind denied, as
  // a host sees it) whose message names the rule.
  //
  // The same rule as NamespaceVisible, with its reason.
  base::Status CheckNamespace(std::string_view ns) const;

  // The deny/allow rules, which need only the names. Usable before the server
  // has listed its tools.
  base::Status CheckName(std::string_view ns, std::string_view tool) const;

  // Every rule, read_only included.
  base::Status CheckTool(std::string_view ns, const mcp::Tool& tool) const;

  // True when no rule is set: everything is allowed.
  bool AllowsAll() const;

 private:
  PolicySettings settings_;
};

}  // namespace mcpgw
