#include "daemon/guard/request_digest.h"

#include <limits>

#include "base/bounded_json.h"
#include "base/json_text.h"
#include "base/sha256.h"

namespace mcpgw {

std::optional<std::string> CanonicalRequest(std::string_view ns, std::string_view tool,
                                            std::string_view arguments_json) {
  base::JsonLimits limits;
  limits.max_bytes = std::numeric_limits<size_t>::max();  // the frame bound held it already
  base::Result<std::string> arguments = base::CanonicalJsonText(arguments_json, limits);
  if (!arguments.ok() || arguments->empty() || arguments->front() != '{') return std::nullopt;
  std::string text = "{\"arguments\":";
  text += *arguments;
  text += ",\"namespace\":";
  base::AppendJsonString(&text, ns);
  text += ",\"tool\":";
  base::AppendJsonString(&text, tool);
  text += '}';
  return text;
}

std::optional<std::string> RequestDigest(std::string_view ns, std::string_view tool,
                                         std::string_view arguments_json) {
  std::optional<std::string> text = CanonicalRequest(ns, tool, arguments_json);
  if (!text) return std::nullopt;
  return base::Sha256Hex(*text);
}

}  // namespace mcpgw
