// Secret: a string whose value must never reach a log, reason, error or status.
// Values interpolated from ${env:...} and every header value travel as Secret.
// Formatting one (operator<<, fmt) prints "<redacted>"; the value is reachable
// only through Reveal(), which the HTTP layer calls when it hands bytes to curl.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace mcpgw {

class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}

  // The real value. Call only where bytes leave for the server.
  const std::string& Reveal() const { return value_; }
  bool empty() const { return value_.empty(); }

  friend bool operator==(const Secret& a, const Secret& b) { return a.value_ == b.value_; }

  static constexpr std::string_view kRedacted = "<redacted>";

 private:
  std::string value_;
};

inline std::ostream& operator<<(std::ostream& os, const Secret&) { return os << Secret::kRedacted; }

}  // namespace mcpgw
