// FrameDecoder: splits the byte stream of a local-protocol connection into
// newline-terminated frames, enforcing the frame size bound while bytes
// arrive. Entirely passive: its owner appends what it read from the socket
// and pops frames until none is left (read → buffer → process).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "proto/proto.h"

namespace mcpgw::proto {

class FrameDecoder {
 public:
  enum class Status {
    kFrame,     // *frame holds one frame, without its newline
    kNeedMore,  // no complete frame buffered yet
    kTooLarge,  // a frame exceeded the bound; the stream cannot be resynced
  };

  // `max_frame_bytes` counts the frame's newline.
  explicit FrameDecoder(size_t max_frame_bytes = kMaxFrameBytes);
  FrameDecoder(const FrameDecoder&) = delete;
  FrameDecoder& operator=(const FrameDecoder&) = delete;

  // Appends bytes read from the stream. Once the decoder has reported
  // kTooLarge it drops everything, so memory stays bounded by the limit plus
  // one read.
  void Append(std::string_view bytes);
  // Pops the next frame. Blank lines are skipped. The view stays valid until
  // the next Append().
  Status Next(std::string_view* frame);

  size_t buffered() const { return buf_.size() - start_; }
  size_t max_frame_bytes() const { return max_; }

 private:
  std::string buf_;
  size_t start_ = 0;  // first byte not yet returned
  size_t scan_ = 0;   // bytes before this offset hold no newline
  size_t max_;
  bool too_large_ = false;
};

}  // namespace mcpgw::proto
