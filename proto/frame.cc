// Newline framing with a size bound (see frame.h).
#include "proto/frame.h"

#include <cstring>

namespace mcpgw::proto {

FrameDecoder::FrameDecoder(size_t max_frame_bytes)
    : max_(max_frame_bytes < 2 ? 2 : max_frame_bytes) {}

void FrameDecoder::Append(std::string_view bytes) {
  if (too_large_) return;
  if (start_ > 0 && (start_ == buf_.size() || start_ >= buf_.size() / 2)) {
    buf_.erase(0, start_);
    scan_ -= start_;
    start_ = 0;
  }
  buf_.append(bytes);
}

FrameDecoder::Status FrameDecoder::Next(std::string_view* frame) {
  for (;;) {
    if (too_large_) return Status::kTooLarge;
    const char* base = buf_.data();
    const void* nl =
        scan_ < buf_.size() ? memchr(base + scan_, '\n', buf_.size() - scan_) : nullptr;
    if (nl == nullptr) {
      scan_ = buf_.size();
      // A frame is at most max_ bytes with its newline: max_ - 1 without.
      if (buf_.size() - start_ > max_ - 1) {
        too_large_ = true;
        buf_.clear();
        buf_.shrink_to_fit();
        start_ = scan_ = 0;
        return Status::kTooLarge;
      }
      return Status::kNeedMore;
    }
    size_t end = static_cast<const char*>(nl) - base;
    size_t begin = start_;
    start_ = scan_ = end + 1;
    if (end - begin > max_ - 1) {
      too_large_ = true;
      buf_.clear();
      start_ = scan_ = 0;
      return Status::kTooLarge;
    }
    std::string_view line(base + begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    *frame = line;
    return Status::kFrame;
  }
}

}  // namespace mcpgw::proto
