// Minimal edits of a JSON or JSONC host file (docs/SETUP.md): one member of one object is
// added, replaced or removed by rewriting only its own bytes (and the comma beside it);
// every other character — comments, key order, indentation, line endings, trailing commas —
// stays as it was. A new member is written in the file's own indentation. Every edit is
// checked by parsing the result and comparing it with the intended document; an edit that
// would change anything else is refused, never written. Pure: text in, text out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "base/status.h"

namespace mcpgw::setup {

// Each returns the edited text, or why the edit cannot be made (the text is not JSON, its
// structure does not allow it, or the result would change something else).
//
// Sets member `key` of the object at `path` (keys from the root) to `value`: in place of the
// last member of that name, else as the object's last member. Objects of `path` that are
// missing are created. An empty `text` is taken as an empty file: the result is a new
// document holding just the path.
base::Result<std::string> SetMember(std::string_view text, const std::vector<std::string>& path,
                                    std::string_view key, const rapidjson::Value& value);

// Removes every member named `key` from the object at `path`; the text is returned as it is
// when there is none.
base::Result<std::string> RemoveMember(std::string_view text, const std::vector<std::string>& path,
                                       std::string_view key);

}  // namespace mcpgw::setup
