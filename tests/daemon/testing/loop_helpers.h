// Test helpers for code driven by a libuv loop: run a loop until a condition
// holds (bounded in time), and finish a loop, reporting whether every handle
// on it was closed. Header-only: tests include it.
#pragma once

#include <uv.h>

#include <chrono>
#include <functional>
#include <thread>

namespace mcpgw::testing {

// Runs `loop` until `done()` or `limit` passes; returns done().
inline bool RunUntil(uv_loop_t* loop, const std::function<bool()>& done,
                     std::chrono::milliseconds limit = std::chrono::milliseconds(2000)) {
  // A ticking timer bounds how long one iteration may block.
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(
      &tick, [](uv_timer_t*) {}, 1, 1);
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < deadline) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);  // lets the tick's close complete
  return done();
}

// Runs the loop for `ms` regardless (to see that nothing more happens).
inline void RunFor(uv_loop_t* loop, int ms) {
  RunUntil(
      loop, [] { return false; }, std::chrono::milliseconds(ms));
}

// Runs what is left on the loop (bounded) and closes it: 0 when every handle
// was closed and freed properly, UV_EBUSY otherwise.
inline int FinishLoop(uv_loop_t* loop) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (uv_loop_alive(loop) && std::chrono::steady_clock::now() < deadline) {
    uv_run(loop, UV_RUN_NOWAIT);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return uv_loop_close(loop);
}

}  // namespace mcpgw::testing
