// What the gateway's answers share in writing JSON and reading a request's
// params: server names, paths and texts may hold any bytes, and what is not
// UTF-8 is written as U+FFFD.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/utf8.h"

namespace mcpgw {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// `s` as a JSON string, valid UTF-8 whatever it held.
inline void WriteText(JsonWriter& w, std::string_view s) {
  if (base::IsValidUtf8(s)) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  } else {
    const std::string valid = base::Utf8Replacing(s);
    w.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
  }
}

// The string member `key` of a request's params, if it has one.
inline std::optional<std::string> StringParam(const rapidjson::Value& params, const char* key) {
  if (!params.IsObject()) return std::nullopt;
  auto it = params.FindMember(key);
  if (it == params.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace mcpgw
