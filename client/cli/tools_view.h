// `mcpgw tools` on a terminal: the get_dynamic_tools answer (the listing of every server,
// one server's tools, one tool, or the tools that best match a query, ranked) as readable
// tables instead of one line of JSON. Pure:
// the caller passes the terminal's width; into a pipe, or with --json, the command prints
// the daemon's text unchanged and never calls this.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mcpgw::cli {

// The rendered text (lines end in '\n'; every text from the daemon is stripped of control
// characters; the last column wraps at `width`, 0 meaning no limit), or nullopt when `json`
// is not one of the four answer shapes.
std::optional<std::string> RenderTools(std::string_view json, size_t width);

}  // namespace mcpgw::cli
