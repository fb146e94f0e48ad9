#include "config/interpolate.h"

#include "config/display.h"

namespace mcpgw::config {
namespace {

constexpr std::string_view kEnvPrefix = "env:";
constexpr std::string_view kUserHome = "userHome";

// Expands the body of one `${body}`; returns false (with out.error set) when
// the body names an environment variable that cannot be read.
bool ExpandOne(std::string_view body, const ParseEnv& env, Interpolated& out) {
  if (body == kUserHome) {
    out.value += env.home;
    out.redacted += env.home;
    return true;
  }
  if (body.substr(0, kEnvPrefix.size()) != kEnvPrefix) {
    std::string verbatim = "${" + std::string(body) + "}";
    out.value += verbatim;
    out.redacted += verbatim;
    return true;
  }
  std::string_view name = body.substr(kEnvPrefix.size());
  if (name.empty()) {
    out.error = "${env:} names no environment variable";
    return false;
  }
  std::optional<std::string> found;
  if (env.get_env) found = env.get_env(name);
  if (!found) {
    out.error = "environment variable " + DisplayName(name) + " is not set";
    return false;
  }
  out.value += *found;
  out.redacted += Secret::kRedacted;
  out.env_values.push_back(std::move(*found));
  return true;
}

}  // namespace

Interpolated Interpolate(std::string_view text, const ParseEnv& env) {
  Interpolated out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("${", pos);
    size_t close = open == std::string_view::npos ? open : text.find('}', open + 2);
    if (close == std::string_view::npos) {  // no more, or an unterminated `${`
      out.value += text.substr(pos);
      out.redacted += text.substr(pos);
      break;
    }
    out.value += text.substr(pos, open - pos);
    out.redacted += text.substr(pos, open - pos);
    if (!ExpandOne(text.substr(open + 2, close - open - 2), env, out)) {
      out.value.clear();
      out.redacted.clear();
      return out;
    }
    pos = close + 1;
  }
  return out;
}

}  // namespace mcpgw::config
