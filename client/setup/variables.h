// Each host's way of naming an environment variable inside a url or header value, rewritten
// to mcpgw's `${env:NAME}` (docs/CONFIG.md, Interpolation) so that no value is ever copied:
// Claude Code's and Claude Desktop's `${VAR}` and `${VAR:-default}`, Gemini CLI's `$VAR` and
// `${VAR}`, Cursor's, VS Code's and Windsurf's `${env:VAR}` (kept). What mcpgw cannot do is
// said with what to do instead: a VS Code `${input:ID}` (mcpgw asks no one) becomes
// `${env:ID}` with the variable to set; a `${workspaceFolder}` becomes the project's folder
// when the entry came from a project's file. Pure.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "client/setup/hosts.h"

namespace mcpgw::setup {

struct VariableContext {
  Host host = Host::kCursor;
  std::string project;  // the entry's project folder, "" if none
  const std::map<std::string, std::string>* inputs = nullptr;  // VS Code: id → description
};

struct Rewritten {
  std::string text;
  // For a person, naming forms and variables, never a value: what the rewrite changed that
  // needs their hand ("VS Code asks for ${input:gh} ...").
  std::vector<std::string> todo;
  std::vector<std::string> variables;  // the environment variables the text now reads
};

// `text` with the host's variable forms as ${env:NAME}.
Rewritten RewriteVariables(std::string_view text, const VariableContext& context);

// The environment variable a VS Code input id is read from: "gh-token" → "GH_TOKEN".
std::string InputVariable(std::string_view id);

}  // namespace mcpgw::setup
