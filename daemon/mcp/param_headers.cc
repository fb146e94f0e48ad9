#include "daemon/mcp/param_headers.h"

#include <cmath>
#include <cstdint>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/base64.h"
#include "base/clean_text.h"
#include "base/text.h"

namespace mcpgw::mcp {
namespace {

constexpr std::string_view kAnnotation = "x-mcp-header";
constexpr std::string_view kSentinelPrefix = "=?base64?";
constexpr std::string_view kSentinelSuffix = "?=";
constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 - 1

std::string_view View(const rapidjson::Value& s) {
  return std::string_view(s.GetString(), s.GetStringLength());
}

// Keywords whose values are instances (data), not subschemas.
bool IsDataKeyword(std::string_view key) {
  return key == "const" || key == "enum" || key == "default" || key == "examples";
}

// A quoted, cleaned, bounded piece of server text for a reason.
std::string Quote(std::string_view s) { return "\"" + base::CleanServerText(s, 64) + "\""; }

std::string PathText(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& key : path) {
    if (!out.empty()) out += '.';
    out += key;
  }
  return Quote(out);
}

// The parameter's declared type admits only string, integer and boolean
// values (null too, in a type list: a null value simply sends no header).
bool PrimitiveType(const rapidjson::Value& schema, std::string& declared) {
  auto primitive = [](std::string_view t) {
    return t == "string" || t == "integer" || t == "boolean";
  };
  const auto type = schema.FindMember("type");
  if (type == schema.MemberEnd()) {
    declared = "no type";
    return false;
  }
  if (type->value.IsString()) {
    declared = "type " + Quote(View(type->value));
    return primitive(View(type->value));
  }
  declared = "a type that is not string, integer or boolean";
  if (!type->value.IsArray() || type->value.Empty()) return false;
  bool any = false;
  for (const auto& t : type->value.GetArray()) {
    if (!t.IsString()) return false;
    if (View(t) == "null") continue;
    if (!primitive(View(t))) return false;
    any = true;
  }
  return any;
}

class Reader {
 public:
  // Walks `node`. `chain` is true while every step from the root was a
  // `properties` key; `property` is true for a schema reached by one.
  bool Walk(const rapidjson::Value& node, bool chain, bool property) {
    if (node.IsArray()) {
      for (const auto& item : node.GetArray()) {
        if (!Walk(item, false, false)) return false;
      }
      return true;
    }
    if (!node.IsObject()) return true;
    const auto annotation =
        node.FindMember(rapidjson::StringRef(kAnnotation.data(), kAnnotation.size()));
    if (annotation != node.MemberEnd() && !Annotation(node, annotation->value, chain && property)) {
      return false;
    }
    for (const auto& member : node.GetObject()) {
      const std::string_view key = View(member.name);
      if (key == kAnnotation || IsDataKeyword(key)) continue;
      if (key == "properties" && member.value.IsObject()) {
        for (const auto& prop : member.value.GetObject()) {
          path_.emplace_back(View(prop.name));
          const bool ok = Walk(prop.value, chain, true);
          path_.pop_back();
          if (!ok) return false;
        }
      } else if (!Walk(member.value, false, false)) {
        return false;
      }
    }
    return true;
  }

  ParamHeaders found;
  std::string error;

 private:
  bool Annotation(const rapidjson::Value& node, const rapidjson::Value& value, bool reachable) {
    const std::string where = path_.empty() ? "the schema root" : "parameter " + PathText(path_);
    if (!value.IsString()) return Fail("x-mcp-header on " + where + " is not a string");
    const std::string_view name = View(value);
    if (name.empty()) return Fail("x-mcp-header on " + where + " is empty");
    if (name.size() > kMaxParamHeaderNameBytes) {
      return Fail("x-mcp-header on " + where + " is longer than " +
                  std::to_string(kMaxParamHeaderNameBytes) + " bytes");
    }
    if (!base::IsHttpToken(name)) {
      return Fail("x-mcp-header " + Quote(name) + " on " + where +
                  " is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)");
    }
    if (!reachable) {
      return Fail("x-mcp-header " + Quote(name) + " on " + where +
                  " is not reachable from the schema root through properties alone");
    }
    std::string declared;
    if (!PrimitiveType(node, declared)) {
      return Fail("x-mcp-header " + Quote(name) + " is on parameter " + PathText(path_) + " with " +
                  declared + " (only string, integer or boolean)");
    }
    for (const ParamHeader& other : found) {
      if (base::EqualsIgnoreCase(other.name, name)) {
        return Fail("x-mcp-header " + Quote(name) + " on parameter " + PathText(path_) +
                    " repeats " + Quote(other.name) + " of parameter " + PathText(other.path));
      }
    }
    if (found.size() >= kMaxParamHeaders) {
      return Fail("more than " + std::to_string(kMaxParamHeaders) + " x-mcp-header annotations");
    }
    found.push_back(ParamHeader{path_, std::string(name)});
    return true;
  }

  bool Fail(std::string why) {
    error = std::move(why);
    return false;
  }

  std::vector<std::string> path_;
};

const rapidjson::Value* AtPath(const rapidjson::Value& arguments,
                               const std::vector<std::string>& path) {
  const rapidjson::Value* v = &arguments;
  for (const auto& key : path) {
    if (!v->IsObject()) return nullptr;
    const auto it = v->FindMember(rapidjson::StringRef(key.data(), key.size()));
    if (it == v->MemberEnd()) return nullptr;
    v = &it->value;
  }
  return v;
}

// The text of a primitive value, or false when it gets no header.
bool ValueText(const rapidjson::Value& v, std::string& out) {
  if (v.IsString()) {
    out.assign(View(v));
  } else if (v.IsBool()) {
    out = v.GetBool() ? "true" : "false";
  } else if (v.IsInt64()) {
    out = std::to_string(v.GetInt64());
  } else if (v.IsUint64()) {
    out = std::to_string(v.GetUint64());
  } else if (v.IsNumber()) {
    const double d = v.GetDouble();
    if (!std::isfinite(d)) return false;
    if (std::trunc(d) == d && std::fabs(d) <= kMaxSafeInteger) {
      out = std::to_string(static_cast<int64_t>(d));
    } else {
      rapidjson::StringBuffer buffer;
      rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
      if (!v.Accept(writer)) return false;
      out.assign(buffer.GetString(), buffer.GetSize());
    }
  } else {
    return false;  // null, object, array
  }
  return true;
}

}  // namespace

std::variant<ParamHeaders, std::string> ReadParamHeaders(const rapidjson::Value& input_schema) {
  Reader reader;
  if (!reader.Walk(input_schema, /*chain=*/true, /*property=*/false)) return reader.error;
  return std::move(reader.found);
}

std::vector<std::pair<std::string, std::string>> ParamValues(const ParamHeaders& params,
                                                             const rapidjson::Value& arguments) {
  std::vector<std::pair<std::string, std::string>> values;
  std::string text;
  for (const ParamHeader& param : params) {
    const rapidjson::Value* value = AtPath(arguments, param.path);
    if (value == nullptr || !ValueText(*value, text)) continue;
    values.emplace_back(param.name, text);
  }
  return values;
}

std::vector<std::pair<std::string, std::string>> ParamHeaderValues(
    const ParamHeaders& params, const rapidjson::Value& arguments) {
  std::vector<std::pair<std::string, std::string>> headers = ParamValues(params, arguments);
  for (auto& [name, value] : headers) {
    name.insert(0, kParamHeaderPrefix);
    value = EncodeHeaderValue(value);
  }
  return headers;
}

std::string EncodeHeaderValue(std::string_view value) {
  bool plain = value.empty() || (value.front() != ' ' && value.back() != ' ');
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7E) plain = false;
  }
  const bool looks_encoded = value.size() >= kSentinelPrefix.size() + kSentinelSuffix.size() &&
                             value.substr(0, kSentinelPrefix.size()) == kSentinelPrefix &&
                             value.substr(value.size() - kSentinelSuffix.size()) == kSentinelSuffix;
  if (plain && !looks_encoded) return std::string(value);
  std::string out(kSentinelPrefix);
  out += base::Base64(value);
  out += kSentinelSuffix;
  return out;
}

}  // namespace mcpgw::mcp
