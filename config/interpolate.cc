#include "config/interpolate.h"

#include "config/display.h"

namespace mcpgw::config {
namespace {

constexpr std::string_view kEnvPrefix = "env:";
constexpr std::string_view kUserHome = "userHome";

// Expands the body of one `${body}`; an error when the body names an
// environment variable that cannot be read.
base::Status ExpandOne(std::string_view body, const ParseEnv& env, Interpolated& out) {
  if (body == kUserHome) {
    out.value += env.home;
    out.redacted += env.home;
    return base::Status();
  }
  if (body.substr(0, kEnvPrefix.size()) != kEnvPrefix) {
    std::string verbatim = "${" + std::string(body) + "}";
    out.value += verbatim;
    out.redacted += verbatim;
    return base::Status();
  }
  std::string_view name = body.substr(kEnvPrefix.size());
  if (name.empty()) return base::InvalidInput("${env:} names no environment variable");
  std::optional<std::string> found;
  if (env.get_env) found = env.get_env(name);
  if (!found) {
    return base::InvalidInput("environment variable " + DisplayName(name) + " is not set");
  }
  out.value += *found;
  out.redacted += Secret::kRedacted;
  out.env_values.push_back(std::move(*found));
  return base::Status();
}

}  // namespace

base::Status Interpolate(std::string_view text, const ParseEnv& env, Interpolated* out) {
  *out = Interpolated{};
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("${", pos);
    size_t close = open == std::string_view::npos ? open : text.find('}', open + 2);
    if (close == std::string_view::npos) {  // no more, or an unterminated `${`
      out->value += text.substr(pos);
      out->redacted += text.substr(pos);
      break;
    }
    out->value += text.substr(pos, open - pos);
    out->redacted += text.substr(pos, open - pos);
    base::Status expanded = ExpandOne(text.substr(open + 2, close - open - 2), env, *out);
    if (!expanded.ok()) {
      out->value.clear();
      out->redacted.clear();
      return expanded;
    }
    pos = close + 1;
  }
  return base::Status();
}

}  // namespace mcpgw::config
