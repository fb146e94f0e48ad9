// Bounded JSON parsing: a message is parsed into a RapidJSON tree only after
// its size is known to be within the byte bound, and the parse itself stops
// at the nesting-depth bound (counted by a SAX filter in front of the DOM
// builder, so a hostile depth never reaches recursive code).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace mcpgw::mcp {

struct JsonLimits {
  size_t max_bytes = 16u << 20;
  int max_depth = 128;
};

// Parses `text` into `doc`. On failure returns false and sets `error` to a
// short reason ("response exceeds 16 MiB", "JSON nested deeper than 128",
// "invalid JSON at offset 12: Missing a comma...").
bool ParseBoundedJson(std::string_view text, const JsonLimits& limits, rapidjson::Document& doc,
                      std::string& error);

// Compact serialisation of a value (for schemas, structuredContent).
std::string ToCompactJson(const rapidjson::Value& value);

// Appends `s` as a JSON string literal (quotes included) to `out`. Invalid
// UTF-8 sequences are replaced by U+FFFD; control characters are escaped.
void AppendJsonString(std::string& out, std::string_view s);

// Compact serialisation appended to `out`, giving up (false, `out` holding a
// partial text) as soon as `out` grows past `max_bytes`. Strings go through
// AppendJsonString, so the text is valid JSON even for a hand-built value.
bool AppendCompactJson(std::string& out, const rapidjson::Value& value,
                       size_t max_bytes = static_cast<size_t>(-1));

// --- UTF-8 helpers shared by the codecs ---

// Appends `s` with every ill-formed UTF-8 sequence replaced by U+FFFD (one
// replacement per maximal ill-formed subpart, as the WHATWG decoder does).
void AppendUtf8Replacing(std::string& out, std::string_view s);

// The length of the longest prefix of `s` of at most `max_bytes` bytes that
// does not end inside a UTF-8 sequence (for truncating untrusted text).
size_t Utf8PrefixWithin(std::string_view s, size_t max_bytes);

}  // namespace mcpgw::mcp
