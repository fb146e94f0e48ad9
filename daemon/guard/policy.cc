#include "daemon/guard/policy.h"

#include <utility>

#include "base/bounded_json.h"
#include "base/json_text.h"
#include "daemon/guard/glob.h"

namespace mcpgw {
namespace {

// A pattern with a `/` names tools; without one, a whole namespace.
bool IsNamespacePattern(std::string_view pattern) {
  return pattern.find('/') == std::string_view::npos;
}

// A tool pattern matches when some `/` in it splits it into a part matching the
// namespace and a part matching the tool (namespaces may themselves hold `/`).
bool ToolPatternMatches(std::string_view pattern, std::string_view ns, std::string_view tool) {
  for (size_t i = pattern.find('/'); i != std::string_view::npos; i = pattern.find('/', i + 1)) {
    if (GlobMatch(pattern.substr(0, i), ns) && GlobMatch(pattern.substr(i + 1), tool)) return true;
  }
  return false;
}

// Could this pattern admit some tool of `ns`?
bool PatternCoversNamespace(std::string_view pattern, std::string_view ns) {
  if (IsNamespacePattern(pattern)) return GlobMatch(pattern, ns);
  for (size_t i = pattern.find('/'); i != std::string_view::npos; i = pattern.find('/', i + 1)) {
    if (GlobMatch(pattern.substr(0, i), ns)) return true;
  }
  return false;
}

bool PatternMatchesTool(std::string_view pattern, std::string_view ns, std::string_view tool) {
  if (IsNamespacePattern(pattern)) return GlobMatch(pattern, ns);
  return ToolPatternMatches(pattern, ns, tool);
}

std::string Quote(std::string_view s) {
  std::string out;
  base::AppendJsonString(&out, s);
  return out;
}

std::string Target(std::string_view ns, std::string_view tool) {
  std::string s = Quote(ns);
  s += '/';
  s += Quote(tool);
  return s;
}

base::Status Denied(std::string reason) {
  return base::Status(base::ErrorKind::kDenied, std::move(reason));
}

}  // namespace

Policy::Policy(PolicySettings settings) : settings_(std::move(settings)) {}

bool Policy::NamespaceVisible(std::string_view ns) const { return CheckNamespace(ns).ok(); }

base::Status Policy::CheckNamespace(std::string_view ns) const {
  for (const auto& p : settings_.deny) {
    if (IsNamespacePattern(p) && GlobMatch(p, ns)) {
      return Denied("policy denies namespace " + Quote(ns) + " (deny rule " + Quote(p) + ")");
    }
  }
  if (settings_.allow.empty()) return base::Status();
  for (const auto& p : settings_.allow) {
    if (PatternCoversNamespace(p, ns)) return base::Status();
  }
  return Denied("policy denies namespace " + Quote(ns) + " (no allow rule matches it)");
}

base::Status Policy::CheckName(std::string_view ns, std::string_view tool) const {
  for (const auto& p : settings_.deny) {
    if (PatternMatchesTool(p, ns, tool)) {
      return Denied("policy denies " + Target(ns, tool) + " (deny rule " + Quote(p) + ")");
    }
  }
  if (settings_.allow.empty()) return base::Status();
  for (const auto& p : settings_.allow) {
    if (PatternMatchesTool(p, ns, tool)) return base::Status();
  }
  return Denied("policy denies " + Target(ns, tool) + " (no allow rule matches it)");
}

base::Status Policy::CheckTool(std::string_view ns, const mcp::Tool& tool) const {
  if (base::Status named = CheckName(ns, tool.name); !named.ok()) return named;
  if (tool.read_only_hint) return base::Status();
  for (const auto& p : settings_.read_only) {
    if (GlobMatch(p, ns)) {
      return Denied("policy denies " + Target(ns, tool.name) + " (read_only rule " + Quote(p) +
                    ": the server does not mark this tool readOnlyHint)");
    }
  }
  return base::Status();
}

bool Policy::AllowsAll() const {
  return settings_.allow.empty() && settings_.deny.empty() && settings_.read_only.empty();
}

}  // namespace mcpgw
