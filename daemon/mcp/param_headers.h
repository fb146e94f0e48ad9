// Tool parameters mirrored into HTTP headers (protocol revision 2026-07-28,
// `x-mcp-header`): reading and validating a tool's annotations when it is
// listed, and the `Mcp-Param-{Name}` headers of one call's arguments. Pure
// functions over untrusted schemas and arguments; the session calls them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <rapidjson/document.h>

namespace mcpgw::mcp {

// One annotated parameter of a tool's input schema.
struct ParamHeader {
  // The chain of `properties` keys from the schema root to the parameter.
  std::vector<std::string> path;
  std::string name;  // the annotation's value: the header is Mcp-Param-<name>
};
using ParamHeaders = std::vector<ParamHeader>;

// Bounds on what one tool may ask for; a tool past them is refused like an
// invalid one (each annotation adds a header to every call).
inline constexpr size_t kMaxParamHeaders = 64;
inline constexpr size_t kMaxParamHeaderNameBytes = 128;

// The annotations of `input_schema`, or why the tool must be refused: an
// annotation that is not a string, is empty, is not an HTTP token (RFC 9110
// tchar), repeats another case-insensitively, sits on a parameter whose type
// is not string, integer or boolean, or is not reachable from the root
// through `properties` alone (not under items, oneOf, $defs, ...). Values of
// const, enum, default and examples are data, not schemas, and are not read.
std::variant<ParamHeaders, std::string> ReadParamHeaders(const rapidjson::Value& input_schema);

// The values of a call's arguments that a tool annotated with `params`
// mirrors, given the call's arguments object: (annotation name, value as
// text). A parameter that is absent, null, an object or an array has none; a
// string is taken as is, a boolean as true/false, an integral number in
// decimal.
std::vector<std::pair<std::string, std::string>> ParamValues(const ParamHeaders& params,
                                                             const rapidjson::Value& arguments);

// The Mcp-Param-* headers of those values: each name after the prefix, each
// value through EncodeHeaderValue.
inline constexpr std::string_view kParamHeaderPrefix = "Mcp-Param-";
std::vector<std::pair<std::string, std::string>> ParamHeaderValues(
    const ParamHeaders& params, const rapidjson::Value& arguments);

// A header value as the revision encodes it: plain when it is printable ASCII
// (0x20-0x7E) without leading or trailing space; otherwise (non-ASCII, control
// characters, edge whitespace, or a plain value that looks like the sentinel
// itself) "=?base64?<Base64 of the UTF-8 bytes>?=". Also used for Mcp-Name.
std::string EncodeHeaderValue(std::string_view value);

}  // namespace mcpgw::mcp
