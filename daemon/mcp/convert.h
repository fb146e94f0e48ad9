// Conversions of server answers into what the gateway serves: a tools/call
// result into text (BEHAVIOR.md §5) and a tools/list result into a ToolList (BEHAVIOR.md §4's
// description fallback). Pure functions over untrusted input.
#pragma once

#include <string>

#include <rapidjson/document.h>

#include "base/status.h"
#include "daemon/mcp/tool_list.h"
#include "daemon/mcp/types.h"

namespace mcpgw::mcp {

// Bounds applied to server-provided strings kept in a Tool.
struct ToolLimits {
  size_t max_name_bytes = 256;
  size_t max_description_bytes = 64u << 10;
  size_t max_schema_bytes = 1u << 20;
};

// A CallToolResult → (is_error, text). Blocks joined with "\n\n": text →
// its text; resource with text → text; image/audio → "[image omitted: <mime>]"
// / "[audio omitted: <mime>]"; resource with blob → "[resource omitted: <mime>]";
// resource_link → "[resource: <uri>]"; other → "[<type> omitted]"; missing
// mimeType → "unknown". No blocks: compact structuredContent, else "".
struct ConvertedResult {
  bool is_error = false;
  std::string text;
};
ConvertedResult ConvertCallResult(const rapidjson::Value& result);

// One tools/list page's `tools` array appended to `out`. A tool without a
// string name is skipped; fields are bounded by `limits`. Each tool keeps its
// execution.taskSupport (forbidden unless "optional" or "required"). An error
// when `tools` is not an array (and nothing is appended).
base::Status AppendToolsPage(const rapidjson::Value& result, const ToolLimits& limits,
                             ToolList& out);

// Sorts by name (byte order) and removes later duplicates of a name. The
// text of removed tools stays in the list until ToolList::Shrink.
void SortAndDedupTools(ToolList& tools);

}  // namespace mcpgw::mcp
