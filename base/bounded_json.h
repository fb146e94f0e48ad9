// Bounded JSON: the reader of JSON that remote servers and OAuth endpoints
// send (and the token store reads back). A message is parsed into a RapidJSON
// tree only after its size is known to be within the byte bound, and the
// parse itself stops at the nesting-depth bound (counted by a SAX filter in
// front of the DOM builder, so a hostile depth is never built). The reader
// recurses once per level of text it parses whole, so the depth bound is also
// its stack bound: the deepest a setting allows (1024) takes well under 1 MiB.
// Also the raw-member finder (the bytes of one member, forwarded untouched)
// and the compact writer. Used by the MCP session and its codecs, the gateway
// and catalog, and the OAuth client. In the mcpgw_base_json target
// (RapidJSON), not in mcpgw_base.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "base/status.h"

namespace mcpgw::base {

struct JsonLimits {
  size_t max_bytes = 16u << 20;
  int max_depth = 128;
};

// Parses `text` into `doc`. A failure is an InvalidInput with a short reason
// ("response exceeds 16 MiB", "JSON nested deeper than 128", "invalid JSON at
// offset 12: Missing a comma..."), and `doc` null.
Status ParseBoundedJson(std::string_view text, const JsonLimits& limits, rapidjson::Document& doc);

// How ParseJsonWithinDepth went: too deep, or the reader's error and where.
struct FrameParse {
  bool too_deep = false;
  rapidjson::ParseErrorCode error = rapidjson::kParseErrorNone;
  size_t offset = 0;
  bool ok() const { return !too_deep && error == rapidjson::kParseErrorNone; }
};

// Parses `text` into `doc` as rapidjson::Document::Parse reads it (a UTF-8
// byte order mark skipped, the bytes of strings checked as UTF-8, numbers
// converted by RapidJSON, escaped surrogates not checked), in one pass that
// stops where the text nests deeper than `max_depth` without building the
// deeper part. No byte bound: for text whose size is already bounded (a
// local-protocol frame). `doc` is null when it fails.
FrameParse ParseJsonWithinDepth(std::string_view text, int max_depth, rapidjson::Document& doc);

// Checks that `text` is exactly one JSON value within `limits`, its strings
// valid UTF-8 (escaped surrogates paired), without building a tree and
// without converting numbers: any number the grammar allows passes, digits
// intact. For text that is forwarded as it is (a call's arguments). A failure
// is an InvalidInput saying why.
Status ValidateBoundedJson(std::string_view text, const JsonLimits& limits);

// The exact bytes of the value reached from the root object of `text` through
// the member names in `path` (a SAX pass that notes stream offsets), or
// nullopt when a member is missing. `text` must be well-formed JSON.
std::optional<std::string_view> RawMember(std::string_view text,
                                          std::initializer_list<std::string_view> path);

// Compact serialisation of a value (for schemas, structuredContent).
std::string ToCompactJson(const rapidjson::Value& value);

// Compact serialisation appended to `out`, giving up (false, `out` holding a
// partial text) as soon as `out` grows past `max_bytes`. Strings go through
// AppendJsonString (base/json_text.h), so the text is valid JSON even for a hand-built value.
bool AppendCompactJson(std::string& out, const rapidjson::Value& value,
                       size_t max_bytes = static_cast<size_t>(-1));

// Compact serialisation with every object's members in byte order of their
// names: two values that differ only in member order give the same text (a
// tool definition's pin, BEHAVIOR.md §12).
std::string CanonicalJson(const rapidjson::Value& value);

// The canonical form of the JSON text `text`, read without building a tree
// or converting numbers: every object's members in byte order of their
// names (equal names keep their order), no insignificant white space,
// strings re-escaped the one way AppendJsonString writes them, numbers
// exactly as written (`1.0` stays `1.0`; 30 digits keep all 30). Two texts
// that differ only in member order or white space give the same form; two
// numbers a double cannot tell apart do not. An InvalidInput when `text` is
// not one JSON value within `limits`. For the request digest
// (daemon/guard/request_digest.h).
Result<std::string> CanonicalJsonText(std::string_view text, const JsonLimits& limits);

}  // namespace mcpgw::base
