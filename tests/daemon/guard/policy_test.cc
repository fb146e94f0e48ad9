// Policy rules and glob patterns (BEHAVIOR.md §8): what a user's allow/deny/read_only
// settings admit.
#include "daemon/guard/policy.h"

#include <catch2/catch.hpp>

#include "daemon/guard/glob.h"

namespace mcpgw {
namespace {

// A list holding the one tool `name`; take the tool with [0] while the list lives.
mcp::ToolList T(std::string_view name, bool read_only = false) {
  mcp::ToolList list;
  list.Add(name, "", "{}", read_only);
  return list;
}

bool Allowed(const Policy& p, std::string_view ns, std::string_view tool, bool read_only = false) {
  return p.CheckTool(ns, T(tool, read_only)[0]).ok();
}

TEST_CASE("glob matching", "[policy][glob]") {
  CHECK(GlobMatch("github", "github"));
  CHECK_FALSE(GlobMatch("github", "github2"));
  CHECK_FALSE(GlobMatch("github", "GitHub"));
  CHECK(GlobMatch("*", ""));
  CHECK(GlobMatch("*", "anything/at all"));
  CHECK(GlobMatch("delete_*", "delete_"));
  CHECK(GlobMatch("delete_*", "delete_repo"));
  CHECK_FALSE(GlobMatch("delete_*", "undelete_repo"));
  CHECK(GlobMatch("*_repo", "delete_repo"));
  CHECK(GlobMatch("a*b*c", "aXXbYYbZZc"));
  CHECK_FALSE(GlobMatch("a*b*c", "aXXbYYbZZ"));
  CHECK(GlobMatch("?", "x"));
  CHECK_FALSE(GlobMatch("?", ""));
  CHECK_FALSE(GlobMatch("?", "xy"));
  CHECK(GlobMatch("?", "\xC3\xA9"));  // one character, two bytes
  CHECK(GlobMatch("caf?", "caf\xC3\xA9"));
  CHECK(GlobMatch("**", "x"));
  CHECK(GlobMatch("", ""));
  CHECK_FALSE(GlobMatch("", "x"));
  // A pathological pattern still answers quickly.
  CHECK_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*b", std::string(5000, 'a')));
}

TEST_CASE("no rules allow everything", "[policy]") {
  Policy p(PolicySettings{});
  CHECK(p.AllowsAll());
  CHECK(p.NamespaceVisible("anything"));
  CHECK(Allowed(p, "anything", "delete_all"));
}

TEST_CASE("deny patterns", "[policy]") {
  Policy p(PolicySettings{{}, {"internal", "*/delete_*", "github/merge_pr"}, {}});
  CHECK_FALSE(p.AllowsAll());
  CHECK_FALSE(p.NamespaceVisible("internal"));
  CHECK(p.CheckNamespace("internal").message() ==
        "policy denies namespace \"internal\" (deny rule \"internal\")");
  CHECK(p.NamespaceVisible("internal2"));
  CHECK_FALSE(Allowed(p, "internal", "read", true));
  CHECK_FALSE(Allowed(p, "github", "delete_repo"));
  CHECK_FALSE(Allowed(p, "slack", "delete_message"));
  CHECK_FALSE(Allowed(p, "github", "merge_pr"));
  CHECK(Allowed(p, "github", "get_issue"));
  CHECK(Allowed(p, "github", "undelete_repo"));
  CHECK(p.CheckName("github", "delete_repo").message() ==
        "policy denies \"github\"/\"delete_repo\" (deny rule \"*/delete_*\")");
  // A tool pattern denies tools, not the namespace: it stays visible.
  CHECK(p.NamespaceVisible("github"));
}

TEST_CASE("a non-empty allow list admits only what it matches, deny wins", "[policy]") {
  Policy p(PolicySettings{{"github/get_*", "docs"}, {"github/get_secret"}, {}});
  CHECK(Allowed(p, "github", "get_issue"));
  CHECK_FALSE(Allowed(p, "github", "create_issue"));
  CHECK_FALSE(Allowed(p, "github", "get_secret"));  // deny wins
  CHECK(Allowed(p, "docs", "anything"));
  CHECK_FALSE(Allowed(p, "slack", "post"));
  CHECK(p.NamespaceVisible("github"));
  CHECK(p.NamespaceVisible("docs"));
  CHECK_FALSE(p.NamespaceVisible("slack"));
  CHECK(p.CheckName("github", "create_issue").message() ==
        "policy denies \"github\"/\"create_issue\" (no allow rule matches it)");
}

TEST_CASE("read_only namespaces admit only tools marked readOnlyHint", "[policy]") {
  Policy p(PolicySettings{{}, {}, {"prod-*"}});
  CHECK(Allowed(p, "prod-db", "query", true));
  CHECK_FALSE(Allowed(p, "prod-db", "drop_table", false));
  CHECK(Allowed(p, "staging-db", "drop_table", false));
  // read_only needs the tool's annotations: names alone pass it.
  CHECK(p.CheckName("prod-db", "drop_table").ok());
  CHECK(p.NamespaceVisible("prod-db"));
  CHECK_THAT(p.CheckTool("prod-db", T("drop_table")[0]).message(),
             Catch::Contains("read_only rule \"prod-*\""));
}

TEST_CASE("namespaces holding a slash are matched by tool patterns", "[policy]") {
  Policy p(PolicySettings{{}, {"team/a/secret_*"}, {}});
  CHECK_FALSE(Allowed(p, "team/a", "secret_x"));
  CHECK(Allowed(p, "team/a", "public"));
  CHECK(Allowed(p, "team", "a/secret_x") == false);  // the other split also matches
}

TEST_CASE("denial reasons quote hostile names safely", "[policy]") {
  Policy p(PolicySettings{{}, {"*"}, {}});
  const base::Status reason = p.CheckTool("ns\n\x1B", T("t\"x")[0]);
  REQUIRE_FALSE(reason.ok());
  CHECK(reason.kind() == base::ErrorKind::kDenied);
  for (char c : reason.message()) CHECK(static_cast<unsigned char>(c) >= 0x20);
  CHECK_THAT(reason.message(), Catch::Contains("\\n"));
}

TEST_CASE("pattern validation", "[policy]") {
  CHECK(CheckPolicyPattern("github").ok());
  CHECK(CheckPolicyPattern("*/delete_*").ok());
  CHECK_FALSE(CheckPolicyPattern("").ok());
  CHECK_FALSE(CheckPolicyPattern("/tool").ok());
  CHECK_FALSE(CheckPolicyPattern("github/").ok());
  CHECK_FALSE(CheckPolicyPattern("git\nhub").ok());
}

}  // namespace
}  // namespace mcpgw
