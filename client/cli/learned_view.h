// `mcpgw tools [NAMESPACE [TOOL]] --learned` and `mcpgw forget [NAMESPACE
// [TOOL]]` (docs/CLI.md): the daemon's answers to the learned and forget
// requests (proto/PROTOCOL.md) for a person. The words a tool learned are
// what hosts asked before calling it, so they are shown as text with their
// control characters stripped. Pure functions; the Run* commands do the
// requests.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "client/cli/commands.h"
#include "client/cli/raw_client.h"

namespace mcpgw::cli {

// What was asked: every tool (neither set), a server's tools, or one tool.
struct LearnedScope {
  std::optional<std::string> ns;
  std::optional<std::string> tool;
};

// The text of `mcpgw tools --learned` from the daemon's learned answer: for
// each tool a line `NS/TOOL — N queries learned`, then a line per query,
// most recent first: `  "text"  (used U×, last YYYY-MM-DD, strength S)`,
// the date in local time. With no query, a line saying nothing was learned
// (for the scope asked); with learning off, a last line saying so. Empty
// when the answer is not what the daemon sends.
std::optional<std::string> RenderLearned(std::string_view json, const LearnedScope& scope,
                                         bool color);

// What `mcpgw forget` prints from the daemon's forget answer: `forgot N
// learned queries of NS/TOOL` (or `of NS`, or nothing after `queries` when
// every tool was asked), or `nothing was learned for NS/TOOL` when N is 0.
// Empty when the answer is not what the daemon sends.
std::optional<std::string> ForgetMessage(std::string_view json, const LearnedScope& scope);

int RunLearned(AuthApi& api, const Invocation& inv, CommandIo& io);
int RunForget(AuthApi& api, const Invocation& inv, CommandIo& io);

}  // namespace mcpgw::cli
