// JsonArena: a RapidJSON document whose first values and strings live inside
// the object itself. A default rapidjson::Document takes a 64 KiB chunk from
// the heap for its first value and returns it when destroyed; for the small
// messages of the call path (a request frame, a server's answer) that chunk is
// most of what a parse costs, and returning a chunk that large makes glibc
// consolidate its free lists. Here a message that fits the inline bytes
// parses without a heap chunk; a larger one continues in 16 KiB chunks.
// The parse stack starts small (it grows as a deep or wide text needs) and
// shares one allocator, so a parse takes one small block for it, not a block
// large enough to make glibc sort its free lists plus an allocator object.
// Header-only, for the layers that link RapidJSON. Neither copyable nor
// movable: every value points into it.
#pragma once

#include <cstddef>

#include <rapidjson/document.h>

namespace mcpgw::base {

template <size_t kInlineBytes = 4096>
class JsonArena {
 public:
  JsonArena() : pool_(buffer_, sizeof buffer_, kChunkBytes), doc_(&pool_, kStackBytes, &Stack()) {}
  JsonArena(const JsonArena&) = delete;
  JsonArena& operator=(const JsonArena&) = delete;

  rapidjson::Document& doc() { return doc_; }
  const rapidjson::Document& doc() const { return doc_; }

 private:
  static constexpr size_t kChunkBytes = 16u << 10;
  static constexpr size_t kStackBytes = 512;  // 32 values before it grows
  // Stateless (malloc and free), so one serves every thread.
  static rapidjson::CrtAllocator& Stack() {
    static rapidjson::CrtAllocator allocator;
    return allocator;
  }
  alignas(8) char buffer_[kInlineBytes];
  rapidjson::MemoryPoolAllocator<> pool_;
  rapidjson::Document doc_;  // after pool_: destroyed first
};

}  // namespace mcpgw::base
