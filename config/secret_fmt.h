// fmt support for Secret, so a Secret handed to spdlog or fmt::format prints
// "<redacted>" instead of failing to compile or leaking. Include it wherever a
// log line might carry a Secret; config/secret.h stays free of fmt.
#pragma once

#include <spdlog/fmt/fmt.h>

#include "config/secret.h"

template <>
struct fmt::formatter<mcpgw::Secret> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(const mcpgw::Secret&, FormatContext& ctx) const -> decltype(ctx.out()) {
    constexpr std::string_view kText = mcpgw::Secret::kRedacted;
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(kText.data(), kText.size()),
                                                    ctx);
  }
};
