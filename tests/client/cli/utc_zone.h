// Local time is UTC while one lives, so the dates and times the CLI prints
// are the same on every machine (tests only).
#pragma once

#include <stdlib.h>
#include <time.h>

#include <optional>
#include <string>

namespace mcpgw::cli::testing {

class UtcZone {
 public:
  UtcZone() {
    if (const char* tz = getenv("TZ")) saved_ = tz;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  ~UtcZone() {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  UtcZone(const UtcZone&) = delete;
  UtcZone& operator=(const UtcZone&) = delete;

 private:
  std::optional<std::string> saved_;
};

}  // namespace mcpgw::cli::testing
