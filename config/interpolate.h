// Expansion of ${env:NAME} and ${userHome} in one string value of an entry
// (BEHAVIOR.md §2). Pure: the environment comes in through ParseEnv. The entry
// parser calls it once per url, header value, and keeps the pieces that came
// from the environment so they can be redacted and scrubbed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/config.h"

namespace mcpgw::config {

struct Interpolated {
  std::string value;                    // the expanded text; may hold secrets
  std::string redacted;                 // the same, with every ${env:..} value as "<redacted>"
  std::vector<std::string> env_values;  // every value read from the environment
};

// Expands `text` left to right in one pass into `*out`: `${env:NAME}` becomes
// the value of NAME (unset or empty NAME is an error), `${userHome}` becomes
// env.home, any other `${...}` and an unterminated `${` stay as written.
// Expanded values are never scanned again. An error is a reason naming the
// variable, never a value ("environment variable GH_TOKEN is not set"); then
// `out` has no value, but its env_values still hold what was read before it,
// for the scrubber.
base::Status Interpolate(std::string_view text, const ParseEnv& env, Interpolated* out);

}  // namespace mcpgw::config
