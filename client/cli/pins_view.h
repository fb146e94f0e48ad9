// `mcpgw pins`, `mcpgw diff` and `mcpgw approve` (BEHAVIOR.md §13): the
// daemon's answers to the pins, diff and approve requests (proto/PROTOCOL.md)
// rendered for a person. A tool definition is shown as indented lines of
// text — keys, then values as the server wrote them, control characters
// stripped, never as JSON escapes — and two definitions are compared line by
// line. Pure functions; the Run* commands do the requests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client/cli/commands.h"
#include "client/cli/raw_client.h"

namespace mcpgw::cli {

// A definition's JSON text as lines: `key: value` for strings, numbers,
// booleans and null; `key:` followed by its members indented two more
// spaces for objects; `- value` for the items of an array; a string of
// several lines continues on lines indented under its key. Text that is not
// JSON comes back as one line saying so.
std::vector<std::string> DefinitionLines(std::string_view json);

// One line of a comparison: ' ' in both, '-' only in the pinned
// definition, '+' only in the listed one (added).
struct DiffLine {
  char mark = ' ';
  std::string text;
};
// The lines of `before` and `after` in order, those they share once and
// the rest marked (a longest common subsequence of lines; past 4000 lines a
// side, the two are shown whole, one after the other).
std::vector<DiffLine> DiffDefinitions(const std::vector<std::string>& before,
                                      const std::vector<std::string>& after);

// The text of `mcpgw pins` (every server: a line each, then what waits for
// approval) from the daemon's pins answer; with one server's `tools`, a line
// per tool and its state. Empty when the answer is not what the daemon sends.
std::string RenderPins(std::string_view json, bool color);
// The text of `mcpgw diff`: for each withheld tool, a heading and the
// comparison of its pinned and listed definitions.
std::string RenderDiff(std::string_view json, bool color);

int RunPins(AuthApi& api, const Invocation& inv, CommandIo& io);
int RunDiff(AuthApi& api, const Invocation& inv, CommandIo& io);
int RunApprove(AuthApi& api, const Invocation& inv, CommandIo& io);

}  // namespace mcpgw::cli
