// Other hosts' variable forms in an mcp.json string: `${VAR}`, `$VAR`,
// `${VAR:-default}`, `${input:ID}`, `${workspaceFolder}` and the like. mcpgw
// passes them through unchanged (BEHAVIOR.md §2), but they are almost always a
// mistake in a file copied from another host, so the entry parser turns each
// one into a note naming the form that works. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::config {

// One form found in a string: how it is shown (never more of the string than
// the form itself, and never a default value) and what to write instead.
struct HostForm {
  std::string shown;   // e.g. "${GITHUB_TOKEN}", "$TOKEN", "${PORT:-...}"
  std::string advice;  // e.g. "write ${env:GITHUB_TOKEN}"
};

// Every such form in `text`, left to right. `${env:NAME}` and `${userHome}`
// (mcpgw's own forms) are not reported. `$VAR` counts only at the start of
// the text or after a character that is not a letter or digit, with VAR in
// capitals, digits and '_' (the environment variable convention), so a
// literal secret that happens to hold a '$' is not quoted back.
std::vector<HostForm> FindHostForms(std::string_view text);

}  // namespace mcpgw::config
