// The monotonic clock every loop-driven part of the daemon reads through its
// Env (daemon/runtime/env.h), and the time types the sans-I/O machines take
// as arguments: they never read a clock themselves, so tests drive them with
// a manual one.
#pragma once

#include <chrono>

namespace mcpgw {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = Clock::duration;

}  // namespace mcpgw
