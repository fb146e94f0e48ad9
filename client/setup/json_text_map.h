// Where each value of a JSONC text sits, byte by byte, so a host file can be edited by
// changing only the bytes of one member (docs/SETUP.md: every other character, comment,
// indentation and trailing comma stays as it was). The map is made from text that
// config::ParseJsonDocument has accepted, and is used by json_edit.h. Pure.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::setup {

struct JsonSpan;

// One member of an object: its key (unescaped) and where it and its value are.
struct JsonMember {
  std::string key;
  size_t key_begin = 0;             // the opening quote of the key
  std::unique_ptr<JsonSpan> value;  // never null
  std::optional<size_t> comma;      // the comma after the value, when there is one
};

struct JsonSpan {
  enum class Kind { kObject, kArray, kOther };
  Kind kind = Kind::kOther;
  size_t begin = 0;                              // first byte of the value
  size_t end = 0;                                // one past its last byte
  std::vector<JsonMember> members;               // kObject, in text order (repeats kept)
  std::vector<std::unique_ptr<JsonSpan>> items;  // kArray

  // The last member named `key` (JSON.parse keeps the last of repeated keys), or null.
  const JsonMember* Find(std::string_view key) const;
};

// The map of `text`, or nullopt when it is not JSONC this scanner follows (it is meant for
// text the parser accepted; nesting deeper than 256 levels is refused too).
std::optional<JsonSpan> MapJson(std::string_view text);

// The offset just past the whitespace and comments that follow `pos`.
size_t SkipBlank(std::string_view text, size_t pos);

}  // namespace mcpgw::setup
