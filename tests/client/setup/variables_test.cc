// Each host's variable forms become mcpgw's ${env:NAME} (client/setup/variables.h): no
// value is ever copied, and what mcpgw cannot do is said with what to do.
#include <catch2/catch.hpp>

#include "client/setup/variables.h"

namespace mcpgw::setup {

TEST_CASE("variables: each host's forms become ${env:NAME}", "[setup][variables]") {
  auto rewrite = [](Host host, const char* text) {
    return RewriteVariables(text, {host, "", nullptr}).text;
  };
  CHECK(rewrite(Host::kClaudeCode, "Bearer ${GITHUB_TOKEN}") == "Bearer ${env:GITHUB_TOKEN}");
  CHECK(rewrite(Host::kClaudeDesktop, "${A}-${B}") == "${env:A}-${env:B}");
  CHECK(rewrite(Host::kGemini, "Bearer $TOKEN and ${OTHER}") ==
        "Bearer ${env:TOKEN} and ${env:OTHER}");
  CHECK(rewrite(Host::kCursor, "Bearer ${env:KEY}") == "Bearer ${env:KEY}");
  CHECK(rewrite(Host::kWindsurf, "${env:KEY}") == "${env:KEY}");
  CHECK(rewrite(Host::kCursor, "${userHome}/x") == "${userHome}/x");
  // Only Gemini CLI expands a bare $VAR: elsewhere a '$' is part of the value.
  CHECK(rewrite(Host::kClaudeCode, "pa$word") == "pa$word");
  CHECK(rewrite(Host::kCursor, "$TOKEN") == "$TOKEN");
  // Codex expands nothing inside its strings.
  CHECK(rewrite(Host::kCodex, "${X}") == "${X}");
}

TEST_CASE("variables: a default is dropped and said so, never copied", "[setup][variables]") {
  const Rewritten r = RewriteVariables("key=${API_KEY:-s3cret}", {Host::kClaudeCode, "", nullptr});
  CHECK(r.text == "key=${env:API_KEY}");
  REQUIRE(r.todo.size() == 1);
  CHECK(r.todo[0].find("API_KEY") != std::string::npos);
  CHECK(r.todo[0].find("s3cret") == std::string::npos);
  CHECK(r.variables == std::vector<std::string>{"API_KEY"});
}

TEST_CASE("variables: a VS Code input becomes a variable, with what to do", "[setup][variables]") {
  const std::map<std::string, std::string> inputs = {{"gh-token", "GitHub token"}};
  const Rewritten r = RewriteVariables("Bearer ${input:gh-token}", {Host::kVsCode, "", &inputs});
  CHECK(r.text == "Bearer ${env:GH_TOKEN}");
  REQUIRE(r.todo.size() == 1);
  CHECK(r.todo[0].find("\"GitHub token\"") != std::string::npos);
  CHECK(r.todo[0].find("GH_TOKEN=") != std::string::npos);
  CHECK(r.todo[0].find("~/.config/mcpgw/environment") != std::string::npos);
  CHECK(InputVariable("1st.key") == "INPUT_1ST_KEY");
}

TEST_CASE("variables: ${workspaceFolder} is the project's folder when there is one",
          "[setup][variables]") {
  CHECK(RewriteVariables("http://h/${workspaceFolder}", {Host::kVsCode, "/p", nullptr}).text ==
        "http://h//p");
  const Rewritten none = RewriteVariables("${workspaceFolder}", {Host::kCursor, "", nullptr});
  CHECK(none.text == "${workspaceFolder}");
  CHECK(none.todo.size() == 1);
}

}  // namespace mcpgw::setup
