// The request digest: one SHA-256 that names a call_dynamic_tool request by
// what it asks for — its namespace, its tool and its arguments in canonical
// form (BEHAVIOR.md §8) — so the same call written differently (members in
// another order, other white space, `arguments` absent or `{}`) has the same
// digest, and two calls whose numbers a double cannot tell apart do not.
// The call log records it, a cassette keys its recordings by it (BEHAVIOR §14), and a
// kept whole result is named after it (BEHAVIOR §11). Computed on the main loop when
// the gateway accepts a request; a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mcpgw {

// The canonical text that is digested:
// {"arguments":<arguments, canonical>,"namespace":"<ns>","tool":"<tool>"}
// — itself canonical JSON. `arguments_json` is the arguments' JSON text as
// the host sent it ("{}" when absent or null). nullopt when it is not one
// JSON object within the bounds (at most 128 levels deep).
std::optional<std::string> CanonicalRequest(std::string_view ns, std::string_view tool,
                                            std::string_view arguments_json);

// 64 lower-case hex digits: SHA-256 of CanonicalRequest; nullopt with it.
std::optional<std::string> RequestDigest(std::string_view ns, std::string_view tool,
                                         std::string_view arguments_json);

}  // namespace mcpgw
